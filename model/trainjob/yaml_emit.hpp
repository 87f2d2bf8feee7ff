#pragma once

#include <nlohmann/json_fwd.hpp>

#include <string>

namespace kpt::model::trainjob {

/// JSON as block-style YAML the way sigs.k8s.io/yaml writes it: keys sorted, two-space indent,
/// sequences under a key not indented, strings quoted (double quotes) only when plain style would
/// read back as another type or not parse, multi-line strings as literal blocks. Deterministic:
/// the same value gives the same bytes. Ends with a newline.
std::string to_yaml(const nlohmann::json& value);

}  // namespace kpt::model::trainjob
