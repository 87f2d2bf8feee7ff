#pragma once

#include "util/expected.hpp"
#include "yaml/node.hpp"

#include <nlohmann/json_fwd.hpp>

#include <string>

namespace kpt::yaml {

/// The node as the API server would decode it (positions dropped). Integers that
/// overflow int64 become their text, so nothing is silently changed.
nlohmann::json to_json(const Node& node);

/// A node tree for a decoded JSON value (API objects have no source positions: all 0).
Node from_json(const nlohmann::json& value);

/// Parses the first YAML document of `text` into JSON, as kubectl's YAML-to-JSON step does (for
/// kubeconfig files, snapshots held in ConfigMaps): plain `true`/`false`/`null`/numbers are typed,
/// everything else is a string; an empty text is null. Errors read
/// `'<name>' line L, column C: <problem>`.
Expected<nlohmann::json> yaml_to_json(const std::string& name, const std::string& text);

}  // namespace kpt::yaml
