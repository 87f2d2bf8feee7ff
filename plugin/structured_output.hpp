#pragma once

#include <functional>
#include <iosfwd>
#include <string_view>

namespace kpt::plugin {

/// Writes the JSON document `write_json` writes, or, when `format` is "yaml", the same document
/// as YAML: kubectl's `-o yaml` is its `-o json` in YAML (keys sorted), so each command keeps one
/// writer for both.
void write_structured(std::ostream& out, std::string_view format,
                      const std::function<void(std::ostream&)>& write_json);

}  // namespace kpt::plugin
