#pragma once

// Internal to the parser: appends nodes to an AST under the limits, and keeps the first error.

#include "schema/cel/ast.hpp"
#include "schema/cel/compile_error.hpp"
#include "schema/cel/limits.hpp"

#include <limits>
#include <optional>
#include <string>
#include <vector>

namespace kpt::cel {

/// No node: returned once an error is recorded, and accepted as an argument (making the
/// result k_bad too), so that parse functions unwind without checking after every call.
constexpr NodeId k_bad = std::numeric_limits<NodeId>::max();

class AstBuilder {
 public:
  explicit AstBuilder(const Limits& limits) : m_limits(limits) {}

  /// Appends `node`, setting its depth; k_bad past the depth or node limit.
  NodeId add(Node node);
  NodeId make(NodeKind kind, std::uint32_t offset, std::vector<NodeId> args, Op op = Op::none);
  NodeId literal(std::uint32_t offset, Value value);
  /// Records the first error; returns k_bad.
  NodeId fail(std::uint32_t offset, std::string message, CompileErrorKind kind = CompileErrorKind::syntax);
  NodeId nesting_error(std::uint32_t offset);

  [[nodiscard]] bool failed() const { return m_error.has_value(); }
  [[nodiscard]] const Node& node(NodeId id) const { return m_nodes[id]; }
  [[nodiscard]] const Limits& limits() const { return m_limits; }
  std::vector<Node> take_nodes() { return std::move(m_nodes); }
  std::optional<CompileError> take_error() { return std::move(m_error); }

 private:
  const Limits& m_limits;
  std::vector<Node> m_nodes;
  std::optional<CompileError> m_error;
};

/// has(x.f): `args` are the arguments of a global call to has.
NodeId expand_has(AstBuilder& b, std::uint32_t offset, const std::vector<NodeId>& args);

/// target.all(x, p), exists, exists_one, map (2 or 3 arguments) and filter; `args` hold the
/// target first. k_bad with no error when `name` is no macro.
NodeId expand_macro(AstBuilder& b, const std::string& name, std::uint32_t offset,
                    const std::vector<NodeId>& args);

}  // namespace kpt::cel
