#pragma once

#include "util/expected.hpp"

#include <nlohmann/json_fwd.hpp>

#include <string>

namespace kpt::kube {

/// Parses the first YAML document of `text` into JSON, as kubectl's YAML-to-JSON step does for
/// kubeconfig files: plain `true`/`false`/`null`/numbers are typed, everything else is a string.
/// Errors read `'<name>' line L, column C: <problem>`.
Expected<nlohmann::json> yaml_to_json(const std::string& name, const std::string& text);

}  // namespace kpt::kube
