#include "schema/cel/checker.hpp"

#include "schema/cel/operators.hpp"
#include "schema/cel/regex.hpp"

#include <algorithm>
#include <array>
#include <string>
#include <utility>
#include <vector>

namespace kpt::cel {
namespace {

bool is_type_name(std::string_view name) {
  static constexpr std::array<std::string_view, 10> k_types = {"bool",  "int",  "uint", "double",    "string",
                                                               "bytes", "list", "map",  "null_type", "type"};
  return std::find(k_types.begin(), k_types.end(), name) != k_types.end();
}

class Checker {
 public:
  explicit Checker(Ast& ast) : m_ast(ast) {}

  CheckResult run() {
    visit(m_ast.root);
    return std::move(m_result);
  }

 private:
  void fail(const Node& node, CompileErrorKind kind, std::string message) {
    if (!m_result.error) m_result.error = CompileError{kind, node.offset, std::move(message)};
  }

  void visit(NodeId id) {
    if (m_result.error) return;
    Node& node = m_ast.nodes[id];
    if (node.kind == NodeKind::ident) return resolve_ident(node, false);
    if (node.kind == NodeKind::comprehension) return visit_comprehension(id);
    if ((node.kind == NodeKind::select || node.kind == NodeKind::has) && is_self(node.args[0])) {
      record_self_field(node.name);
      return resolve_ident(m_ast.nodes[node.args[0]], true);
    }
    // Problems are reported in source order: a method's receiver comes before its name.
    const std::vector<NodeId> args = node.args;
    const bool member = node.kind == NodeKind::call && node.member;
    if (member) visit(args[0]);
    if (node.kind == NodeKind::call && !m_result.error) resolve_call(m_ast.nodes[id]);
    for (std::size_t i = member ? 1 : 0; i < args.size(); ++i) visit(args[i]);
  }

  /// `self` itself, not a macro variable that shadows it.
  [[nodiscard]] bool is_self(NodeId id) const {
    const Node& node = m_ast.nodes[id];
    if (node.kind != NodeKind::ident || node.name != "self") return false;
    return std::none_of(m_scope.begin(), m_scope.end(), [](const auto& var) { return var.first == "self"; });
  }

  void record_self_field(const std::string& name) {
    m_result.self_fields.push_back(name);
    if (auto property = unescape_property(name); property && *property != name)
      m_result.self_fields.push_back(*property);
  }

  /// Resolves an identifier; `via_field` when it is `self` under a field selection.
  void resolve_ident(Node& node, bool via_field) {
    for (auto it = m_scope.rbegin(); it != m_scope.rend(); ++it) {
      if (it->first == node.name) {
        node.slot = it->second;
        return;
      }
    }
    if (node.name == "self") {
      node.slot = k_self_slot;
      m_result.self_whole = m_result.self_whole || !via_field;
    } else if (node.name == "oldSelf") {
      node.slot = k_old_self_slot;
      m_result.uses_old_self = true;
    } else if (is_type_name(node.name)) {
      node.kind = NodeKind::literal;
      node.literal = Value::type(node.name);
    } else {
      fail(node, CompileErrorKind::undeclared, "undeclared reference to '" + node.name + "'");
    }
  }

  void resolve_call(Node& node) {
    const std::size_t args = node.args.size() - (node.member ? 1 : 0);
    const auto fn = resolve_builtin(node.name, node.member, args);
    if (!fn) {
      std::string what = "function '" + node.name + "'";
      if (is_builtin_name(node.name)) {
        what += std::string(node.member ? " as a method" : "") + " with " + std::to_string(args) +
                " argument" + (args == 1 ? "" : "s");
      }
      return fail(node, CompileErrorKind::unsupported, std::move(what));
    }
    node.fn = *fn;
    if (node.fn == Builtin::matches) compile_literal_pattern(node);
  }

  void compile_literal_pattern(Node& node) {
    const Node& pattern = m_ast.nodes[node.args[1]];
    if (pattern.kind != NodeKind::literal || pattern.literal.kind() != Kind::string) {
      node.patterns = std::make_shared<regex::PatternCache>();
      return;
    }
    auto compiled = regex::Regex::compile(pattern.literal.as_string());
    if (auto* error = std::get_if<regex::RegexError>(&compiled)) {
      if (error->unsupported) return fail(pattern, CompileErrorKind::unsupported, error->message);
      return fail(pattern, CompileErrorKind::syntax, error->message);
    }
    node.regex = std::get<std::shared_ptr<const regex::Regex>>(std::move(compiled));
  }

  void visit_comprehension(NodeId id) {
    const NodeId range = m_ast.nodes[id].args[0];
    visit(range);
    Node& node = m_ast.nodes[id];
    const auto slot = static_cast<std::uint16_t>(k_first_macro_slot + m_scope.size());
    node.slot = slot;
    m_result.slots = std::max<std::uint16_t>(m_result.slots, slot + 1);
    m_scope.emplace_back(node.name, slot);
    const std::vector<NodeId> bodies(node.args.begin() + 1, node.args.end());
    for (NodeId body : bodies) visit(body);
    m_scope.pop_back();
  }

  Ast& m_ast;
  CheckResult m_result;
  std::vector<std::pair<std::string, std::uint16_t>> m_scope;
};

}  // namespace

CheckResult check(Ast& ast) { return Checker(ast).run(); }

}  // namespace kpt::cel
