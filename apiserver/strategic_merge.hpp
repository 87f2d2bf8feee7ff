#pragma once

#include "model/k8s/strategic_merge.hpp"
#include "util/expected.hpp"

#include <nlohmann/json.hpp>

#include <string>

namespace kpt::apiserver {

using model::k8s::ListStrategy;
using model::k8s::PatchStrategies;

/// The strategies of a built-in kind ("v1", "Pod"), from the table generated with its schema, or
/// nullptr for a kind that has none.
const PatchStrategies* builtin_patch_strategies(const std::string& api_version, const std::string& kind);

/// Applies a strategic merge patch a client sent (model::k8s::strategic_merge with directives):
/// a list item without its merge key or a field outside `$retainKeys` is a 422, as the real server
/// refuses them.
Expected<nlohmann::json> strategic_merge(const nlohmann::json& original, const nlohmann::json& patch,
                                         const PatchStrategies& strategies);

}  // namespace kpt::apiserver
