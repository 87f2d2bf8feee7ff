#pragma once

#include <nlohmann/json_fwd.hpp>

#include <string>

namespace kpt::yaml {

/// YAML text for a JSON value as sigs.k8s.io/yaml writes it (`kubectl get -o yaml`, the
/// TrainJob runtime snapshot): block style, keys in the object's order (sorted for
/// nlohmann::json), two-space indent, sequences under a key not indented, strings double-quoted
/// only when plain style would read back as another type (yes, 1e3, 0x1F, null, ": "...) or not
/// parse, multi-line strings as literal blocks; past 64 levels the rest is written in flow style so
/// hostile nesting cannot grow the stack. Deterministic; ends with a newline.
std::string to_yaml(const nlohmann::json& value);

}  // namespace kpt::yaml
