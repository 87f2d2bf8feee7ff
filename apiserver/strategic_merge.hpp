#pragma once

#include "util/expected.hpp"

#include <nlohmann/json.hpp>

#include <map>
#include <string>

namespace kpt::apiserver {

/// How a strategic merge patch treats one list of a kind (the Go types' patchStrategy and
/// patchMergeKey tags). Lists without an entry are replaced whole.
struct ListStrategy {
  std::string merge_key;     ///< items are maps merged by this field; empty: a list of primitives
  bool merge = false;        ///< patchStrategy "merge": items are merged, not the list replaced
  bool retain_keys = false;  ///< patchStrategy "retainKeys": $retainKeys prunes the item's fields
};

/// The strategies of one kind's lists, by dotted field path with list items transparent
/// ("spec.containers.env").
using PatchStrategies = std::map<std::string, ListStrategy, std::less<>>;

/// The strategies of a built-in kind ("v1", "Pod"), from the table generated with its schema, or
/// nullptr for a kind that has none.
const PatchStrategies* builtin_patch_strategies(const std::string& api_version, const std::string& kind);

/// Applies a strategic merge patch as apimachinery's strategicpatch does for the directives kubectl
/// and client libraries send: null deletes a field, maps merge, lists with a merge key merge item
/// by item (`$patch: delete` removes one, `$patch: replace` replaces the list or map),
/// primitive lists with strategy merge take the union, `$setElementOrder/<list>` orders the
/// result, `$deleteFromPrimitiveList/<list>` and `$retainKeys` prune. A list item without its
/// merge key is a 422, as the real server refuses it.
Expected<nlohmann::json> strategic_merge(const nlohmann::json& original, const nlohmann::json& patch,
                                         const PatchStrategies& strategies);

}  // namespace kpt::apiserver
