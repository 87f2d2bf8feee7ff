#include "schema/cel/eval.hpp"

#include "schema/cel/functions.hpp"
#include "schema/cel/operators.hpp"

#include <optional>

namespace kpt::cel {
namespace {

bool is_bool(const Value& v) { return v.kind() == Kind::boolean; }

class Evaluator {
 public:
  Evaluator(const Ast& ast, std::vector<Value>& slots, CostMeter& cost)
      : m_ast(ast), m_slots(slots), m_cost(cost) {}

  Value eval(NodeId id) {
    if (!m_cost.charge(1)) return cost_error();
    Value v = dispatch(m_ast.at(id));
    return m_cost.exceeded() ? cost_error() : v;
  }

 private:
  static Value cost_error() { return Value::error(k_cost_limit_message); }

  Value dispatch(const Node& n) {
    switch (n.kind) {
      case NodeKind::literal:
        return n.literal;
      case NodeKind::ident:
        return m_slots[n.slot];
      case NodeKind::select:
      case NodeKind::has: {
        Value target = eval(n.args[0]);
        if (target.is_error()) return target;
        return n.kind == NodeKind::select ? select_field(target, n.name) : has_field(target, n.name);
      }
      case NodeKind::index: {
        std::vector<Value> v = eval_args(n);
        return v.size() == 1 ? v[0] : index_value(v[0], v[1]);
      }
      case NodeKind::call: {
        std::vector<Value> args = eval_args(n);
        if (args.size() == 1 && args[0].is_error()) return args[0];
        return call_builtin(n.fn, args, n.regex.get(), n.patterns.get(), m_cost);
      }
      case NodeKind::list:
        return eval_list(n);
      case NodeKind::map:
        return eval_map(n);
      case NodeKind::conditional:
        return eval_conditional(n);
      case NodeKind::unary: {
        Value v = eval(n.args[0]);
        if (v.is_error()) return v;
        return n.op == Op::negate ? negate(v) : logical_not(v);
      }
      case NodeKind::binary:
        return eval_binary(n);
      case NodeKind::comprehension:
        return eval_comprehension(n);
    }
    return Value::error("internal: unknown node");
  }

  /// The arguments in order; just the first error when one fails (CEL functions are strict).
  std::vector<Value> eval_args(const Node& n) {
    std::vector<Value> out;
    out.reserve(n.args.size());
    for (NodeId arg : n.args) {
      Value v = eval(arg);
      if (v.is_error()) return {std::move(v)};
      out.push_back(std::move(v));
    }
    return out;
  }

  Value eval_list(const Node& n) {
    if (!m_cost.charge(n.args.size())) return cost_error();
    std::vector<Value> items = eval_args(n);
    if (items.size() == 1 && items[0].is_error()) return items[0];
    return Value::list(std::move(items));
  }

  Value eval_map(const Node& n) {
    if (!m_cost.charge(n.args.size() / 2)) return cost_error();
    std::vector<Value> parts = eval_args(n);
    if (parts.size() == 1 && parts[0].is_error()) return parts[0];
    MapBuilder builder;
    builder.reserve(parts.size() / 2);
    for (std::size_t i = 0; i + 1 < parts.size(); i += 2)
      builder.add(std::move(parts[i]), std::move(parts[i + 1]));
    return std::move(builder).build();
  }

  Value eval_conditional(const Node& n) {
    Value cond = eval(n.args[0]);
    if (cond.is_error()) return cond;
    if (!is_bool(cond)) return no_overload("_?_:_", {&cond});
    return eval(n.args[cond.as_bool() ? 1 : 2]);
  }

  Value eval_binary(const Node& n) {
    if (n.op == Op::logical_and || n.op == Op::logical_or) return eval_logical(n);
    Value a = eval(n.args[0]);
    if (a.is_error()) return a;
    Value b = eval(n.args[1]);
    if (b.is_error()) return b;
    switch (n.op) {
      case Op::add:
      case Op::sub:
      case Op::mul:
      case Op::div:
      case Op::mod:
        return arithmetic(n.op, a, b, m_cost);
      case Op::in:
        return membership(a, b, m_cost);
      default:
        return relation(n.op, a, b, m_cost);
    }
  }

  /// && and || are commutative over errors: `false && <error>` is false and `true || <error>`
  /// is true whichever side the error is on; otherwise the left error wins.
  Value eval_logical(const Node& n) {
    const bool absorbing = n.op == Op::logical_or;  // the value that decides the result
    Value a = eval(n.args[0]);
    if (is_bool(a) && a.as_bool() == absorbing) return a;
    Value b = eval(n.args[1]);
    if (is_bool(b) && b.as_bool() == absorbing) return b;
    if (a.is_error()) return a;
    if (!is_bool(a)) return no_overload(op_name(n.op), {&a, &b});
    if (b.is_error()) return b;
    if (!is_bool(b)) return no_overload(op_name(n.op), {&a, &b});
    return b;
  }

  Value eval_comprehension(const Node& n) {
    Value range = eval(n.args[0]);
    if (range.is_error()) return range;
    std::vector<Value> keys;
    if (range.kind() == Kind::map) {
      keys.reserve(range.as_map().size());
      for (const auto& entry : range.as_map().entries()) keys.push_back(entry.first);
    } else if (range.kind() != Kind::list) {
      return no_overload(macro_name(n.macro), {&range});
    }
    const std::vector<Value>& items = range.kind() == Kind::map ? keys : range.as_list();
    switch (n.macro) {
      case Macro::all:
      case Macro::exists:
        return quantifier(n, items);
      case Macro::exists_one:
        return exists_one(n, items);
      default:
        return transform(n, items);
    }
  }

  /// The predicate for one element, or an error (a non-bool predicate has no overload).
  Value predicate(const Node& n, const Value& item, const char* op) {
    m_slots[n.slot] = item;
    Value p = eval(n.args[1]);
    if (p.is_error() || is_bool(p)) return p;
    return no_overload(op, {&p});
  }

  /// all and exists, with the error semantics of && and ||: a deciding element wins over an
  /// earlier error.
  Value quantifier(const Node& n, const std::vector<Value>& items) {
    const bool all = n.macro == Macro::all;
    std::optional<Value> error;
    for (const Value& item : items) {
      if (!m_cost.charge(1)) return cost_error();
      Value p = predicate(n, item, all ? "_&&_" : "_||_");
      if (m_cost.exceeded()) return cost_error();
      if (is_bool(p) && p.as_bool() != all) return p;
      if (p.is_error() && !error) error = std::move(p);
    }
    return error ? *error : Value::boolean(all);
  }

  Value exists_one(const Node& n, const std::vector<Value>& items) {
    std::size_t count = 0;
    for (const Value& item : items) {
      if (!m_cost.charge(1)) return cost_error();
      Value p = predicate(n, item, "_?_:_");
      if (p.is_error()) return p;
      count += p.as_bool() ? 1 : 0;
    }
    return Value::boolean(count == 1);
  }

  /// map, map with a filter, and filter.
  Value transform(const Node& n, const std::vector<Value>& items) {
    std::vector<Value> out;
    for (const Value& item : items) {
      if (!m_cost.charge(1)) return cost_error();
      if (n.macro != Macro::map) {
        Value p = predicate(n, item, "_?_:_");
        if (p.is_error()) return p;
        if (!p.as_bool()) continue;
      }
      if (n.macro == Macro::filter) {
        out.push_back(item);
        continue;
      }
      m_slots[n.slot] = item;
      Value v = eval(n.args[n.macro == Macro::map ? 1 : 2]);
      if (v.is_error()) return v;
      out.push_back(std::move(v));
    }
    return Value::list(std::move(out));
  }

  const Ast& m_ast;
  std::vector<Value>& m_slots;
  CostMeter& m_cost;
};

}  // namespace

Value evaluate_ast(const Ast& ast, std::vector<Value>& slots, CostMeter& cost) {
  return Evaluator(ast, slots, cost).eval(ast.root);
}

}  // namespace kpt::cel
