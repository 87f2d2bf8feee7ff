#pragma once

#include "util/expected.hpp"

#include <nlohmann/json.hpp>

#include <map>
#include <string>

namespace kpt::model::k8s {

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

/// Where the two kinds of strategic merge patch differ. A patch a client sends (kubectl's) carries
/// directives and is checked; a patch Trainer marshals from a Go struct (runtimePatches, overrides)
/// never carries directives, loses its empty lists to `omitempty`, and is merged without checks.
struct MergeOptions {
  /// `$patch`, `$retainKeys`, `$setElementOrder/<list>` and `$deleteFromPrimitiveList/<list>` act;
  /// otherwise every `$` field is dropped unread.
  bool directives = true;
  /// An empty list in the patch is dropped before merging, so it leaves the original list alone.
  bool omit_empty_lists = false;
  /// A merged list's item without its merge key is refused; otherwise it is appended.
  bool require_merge_key = true;
  /// A merged list whose original value is not a list (null) merges into an empty list; otherwise
  /// the patch's list replaces it.
  bool merge_into_non_list = false;
};

/// A patch a client sends to the API server.
inline constexpr MergeOptions k_request_patch{};
/// A patch Trainer builds from a Go struct and json.Marshal writes.
inline constexpr MergeOptions k_typed_patch{false, true, false, true};

/// apimachinery's strategicpatch.StrategicMergePatch: null deletes a field, maps merge, lists with
/// strategy merge and a merge key merge item by item (new items appended in patch order), primitive
/// lists with strategy merge take the union, other lists are replaced. With directives,
/// `$patch: delete` removes a map or item, `$patch: replace` replaces it, `$setElementOrder/<list>`
/// orders the result, `$deleteFromPrimitiveList/<list>` and `$retainKeys` prune.
///
/// Iterative over nested maps, so a patch as deep as any parser accepts merges on a small stack;
/// lists recurse into their items only where a strategy names the list, a few levels at most.
/// Errors (ErrorCode::invalid, apimachinery's words): an item without its merge key when that is
/// required, a field outside its map's `$retainKeys`. A patch that is not a map changes nothing.
/// `original` is taken by value: a caller that moves it in pays for no copy.
Expected<nlohmann::json> strategic_merge(nlohmann::json original, const nlohmann::json& patch,
                                         const PatchStrategies& strategies, const MergeOptions& options);

}  // namespace kpt::model::k8s
