#pragma once

#include "schema/cel/builtins.hpp"
#include "schema/cel/value.hpp"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace kpt::cel {

namespace regex {
class PatternCache;
class Regex;
}  // namespace regex

using NodeId = std::uint32_t;

enum class NodeKind : std::uint8_t {
  literal,        ///< `literal`
  ident,          ///< `name`; the checker sets `slot`
  select,         ///< args[0].name
  has,            ///< has(args[0].name)
  index,          ///< args[0][args[1]]
  call,           ///< name(args...), or args[0].name(args[1]...) when `member`
  list,           ///< [args...]
  map,            ///< {args[0]: args[1], args[2]: args[3], ...}
  conditional,    ///< args[0] ? args[1] : args[2]
  unary,          ///< op args[0]: `!` or `-`
  binary,         ///< args[0] op args[1]
  comprehension,  ///< a macro over args[0] with the variable `name`: body args[1] (and args[2])
};

enum class Op : std::uint8_t {
  none,
  logical_not,
  negate,
  logical_and,
  logical_or,
  add,
  sub,
  mul,
  div,
  mod,
  eq,
  ne,
  lt,
  le,
  gt,
  ge,
  in,
};

/// The macros, each expanded to one comprehension node.
enum class Macro : std::uint8_t {
  all,         ///< r.all(x, p)
  exists,      ///< r.exists(x, p)
  exists_one,  ///< r.exists_one(x, p)
  map,         ///< r.map(x, t): args[1] = t
  map_filter,  ///< r.map(x, p, t): args[1] = p, args[2] = t
  filter,      ///< r.filter(x, p)
};

/// The CEL operator name ("_+_", "!_", "@in"), as overload errors show it.
const char* op_name(Op op);
const char* macro_name(Macro macro);

struct Node {
  NodeKind kind = NodeKind::literal;
  Op op = Op::none;
  Macro macro = Macro::all;
  bool member = false;         ///< call: receiver style
  Builtin fn = Builtin::none;  ///< call: set by the checker
  std::uint16_t slot = 0;      ///< ident: variable slot; comprehension: its variable's slot
  std::uint32_t offset = 0;    ///< byte offset in the rule, for messages
  std::uint32_t depth = 1;     ///< height of this subtree
  std::string name;
  Value literal;
  std::vector<NodeId> args;
  std::shared_ptr<const regex::Regex> regex;      ///< matches() with a literal pattern, compiled once
  std::shared_ptr<regex::PatternCache> patterns;  ///< matches() with a pattern built at runtime
};

struct Ast {
  std::vector<Node> nodes;
  NodeId root = 0;

  [[nodiscard]] const Node& at(NodeId id) const { return nodes[id]; }
};

}  // namespace kpt::cel
