#pragma once

#include <cstddef>
#include <string_view>
#include <vector>

namespace kpt::yaml {

/// 0-based numbers of the documents in `text` whose node count, with every alias expanded,
/// exceeds `max_nodes`. A cheap pass over parser events that copies nothing, so the tree
/// builder can refuse an alias bomb without first expanding it up to the limit.
/// Stops quietly at a syntax error or past `max_depth` (the building pass reports both).
std::vector<std::size_t> documents_over_node_limit(std::string_view text, std::size_t max_nodes,
                                                   std::size_t max_depth);

/// True when `text` could hold aliases at all (an '&' anchor and a '*'); most manifests do not.
bool may_contain_aliases(std::string_view text);

}  // namespace kpt::yaml
