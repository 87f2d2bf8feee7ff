#pragma once

#include "util/expected.hpp"

#include <nlohmann/json.hpp>

#include <iosfwd>
#include <string>
#include <vector>

namespace kpt::plugin {

/// Every object (mapping document) of FILE, a directory or "-" (stdin from `in`), as JSON, read with
/// the manifest reader's bounds. The first reader finding of error severity fails, with file:line:col.
Expected<std::vector<nlohmann::json>> read_manifest_objects(const std::string& path, std::istream& in);

}  // namespace kpt::plugin
