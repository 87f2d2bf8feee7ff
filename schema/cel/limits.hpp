#pragma once

#include <cstddef>
#include <cstdint>

namespace kpt::cel {

/// Bounds on what a rule may make the evaluator do. The defaults are generous for Kubernetes
/// rules (the longest in the Trainer v2.3.0 and Training Operator v1.9.4 CRDs is ~140 bytes,
/// 6 levels deep) and keep hostile rules cheap to refuse.
struct Limits {
  /// Rule text: 10 KiB. cel-go's own default code point limit is far larger, but CRD rules are
  /// short and every other bound scales with this one.
  std::size_t max_source_bytes = 10 * 1024;
  /// AST depth, and parser recursion (parentheses, lists, calls): 100, within cel-go's default
  /// parser recursion limit of 250. It also bounds the evaluator's recursion.
  std::uint32_t max_depth = 100;
  /// AST nodes: a 10 KiB rule of `1+1+...` would need 10,240; real rules have tens.
  std::size_t max_nodes = 5000;
  /// Runtime cost of one evaluation, in the API server's units: its per-call limit
  /// (k8s.io/apiserver/pkg/apis/cel PerCallLimit = 1,000,000).
  std::uint64_t cost_limit = 1'000'000;
};

}  // namespace kpt::cel
