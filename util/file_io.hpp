#pragma once

#include <optional>
#include <string>

namespace kpt::util {

/// The whole content of a file, or nothing when it cannot be read.
std::optional<std::string> read_whole_file(const std::string& path);

}  // namespace kpt::util
