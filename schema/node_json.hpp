#pragma once

#include <nlohmann/json_fwd.hpp>

#include "schema/node.hpp"

namespace kpt::schema {

/// The node as the API server would decode it (positions dropped). Integers that
/// overflow int64 become their text, so nothing is silently changed.
nlohmann::json to_json(const Node& node);

}  // namespace kpt::schema
