#pragma once

#include "yaml/node.hpp"

#include <nlohmann/json_fwd.hpp>

namespace kpt::yaml {

/// The node as the API server would decode it (positions dropped). Integers that
/// overflow int64 become their text, so nothing is silently changed.
nlohmann::json to_json(const Node& node);

/// A node tree for a decoded JSON value (API objects have no source positions: all 0).
Node from_json(const nlohmann::json& value);

}  // namespace kpt::yaml
