#include "schema/cel/ast_builder.hpp"

#include <algorithm>
#include <iterator>
#include <utility>

namespace kpt::cel {

NodeId AstBuilder::add(Node node) {
  if (m_error) return k_bad;
  for (NodeId arg : node.args) {
    if (arg == k_bad) return k_bad;
    node.depth = std::max(node.depth, m_nodes[arg].depth + 1);
  }
  if (node.depth > m_limits.max_depth) return nesting_error(node.offset);
  if (m_nodes.size() >= m_limits.max_nodes) {
    return fail(node.offset, "expression has more than " + std::to_string(m_limits.max_nodes) + " nodes",
                CompileErrorKind::limit);
  }
  m_nodes.push_back(std::move(node));
  return static_cast<NodeId>(m_nodes.size() - 1);
}

NodeId AstBuilder::make(NodeKind kind, std::uint32_t offset, std::vector<NodeId> args, Op op) {
  Node node;
  node.kind = kind;
  node.offset = offset;
  node.op = op;
  node.args = std::move(args);
  return add(std::move(node));
}

NodeId AstBuilder::literal(std::uint32_t offset, Value value) {
  Node node;
  node.offset = offset;
  node.literal = std::move(value);
  return add(std::move(node));
}

NodeId AstBuilder::fail(std::uint32_t offset, std::string message, CompileErrorKind kind) {
  if (!m_error) m_error = CompileError{kind, offset, std::move(message)};
  return k_bad;
}

NodeId AstBuilder::nesting_error(std::uint32_t offset) {
  return fail(offset, "expression nesting exceeds " + std::to_string(m_limits.max_depth) + " levels",
              CompileErrorKind::limit);
}

NodeId expand_has(AstBuilder& b, std::uint32_t offset, const std::vector<NodeId>& args) {
  if (args.size() != 1 || b.node(args[0]).kind != NodeKind::select) {
    return b.fail(offset, "invalid argument to has() macro");
  }
  Node node = b.node(args[0]);
  node.kind = NodeKind::has;
  node.offset = offset;
  return b.add(std::move(node));
}

NodeId expand_macro(AstBuilder& b, const std::string& name, std::uint32_t offset,
                    const std::vector<NodeId>& args) {
  static constexpr std::pair<std::string_view, Macro> k_macros[] = {{"all", Macro::all},
                                                                    {"exists", Macro::exists},
                                                                    {"exists_one", Macro::exists_one},
                                                                    {"map", Macro::map},
                                                                    {"filter", Macro::filter}};
  const auto* it =
      std::find_if(std::begin(k_macros), std::end(k_macros), [&](const auto& m) { return m.first == name; });
  if (it == std::end(k_macros)) return k_bad;
  const std::size_t n = args.size() - 1;
  const bool fits = n == 2 || (n == 3 && it->second == Macro::map);
  if (!fits) {
    // Two-variable forms such as all(k, v, p) are a newer cel-go extension.
    return b.fail(offset, "macro '" + name + "' with " + std::to_string(n) + " arguments",
                  CompileErrorKind::unsupported);
  }
  if (b.node(args[1]).kind != NodeKind::ident)
    return b.fail(b.node(args[1]).offset, "argument must be a simple name");
  Node node;
  node.kind = NodeKind::comprehension;
  node.macro = n == 3 ? Macro::map_filter : it->second;
  node.offset = offset;
  node.name = b.node(args[1]).name;
  node.args = {args[0], args[2]};
  if (n == 3) node.args.push_back(args[3]);
  return b.add(std::move(node));
}

}  // namespace kpt::cel
