#pragma once

#include <nlohmann/json_fwd.hpp>

#include <string>

namespace kpt::yaml {

/// YAML text for a JSON value, as `kubectl get -o yaml` prints objects: block style, keys in
/// the object's order, strings quoted whenever a YAML 1.1 reader could take them for anything
/// else (yes, 1e3, 0x1F, null, ": "...).
std::string to_yaml(const nlohmann::json& value);

}  // namespace kpt::yaml
