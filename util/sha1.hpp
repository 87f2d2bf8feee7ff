#pragma once

#include <string>
#include <string_view>

namespace kpt::util {

/// SHA-1 (RFC 3174) of `data` as 40 lower-case hex digits. Used where another program's names
/// are SHA-1 derived (JobSet's job-key label), not for security.
std::string sha1_hex(std::string_view data);

}  // namespace kpt::util
