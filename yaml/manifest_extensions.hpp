#pragma once

#include <string_view>

namespace kpt::yaml {

/// True for names ending in .yaml, .yml or .json, the extensions kubectl reads from a directory.
inline bool has_manifest_extension(std::string_view path) {
  const auto ends = [&](std::string_view ext) {
    return path.size() > ext.size() && path.substr(path.size() - ext.size()) == ext;
  };
  return ends(".yaml") || ends(".yml") || ends(".json");
}

}  // namespace kpt::yaml
