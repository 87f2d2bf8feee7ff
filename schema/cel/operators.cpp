#include "schema/cel/operators.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <string>

namespace kpt::cel {
namespace {

constexpr auto k_int_min = std::numeric_limits<std::int64_t>::min();

Value int_overflow() { return Value::error("integer overflow"); }
Value uint_overflow() { return Value::error("unsigned integer overflow"); }

Value int_arithmetic(Op op, std::int64_t a, std::int64_t b) {
  std::int64_t out = 0;
  switch (op) {
    case Op::add:
      return __builtin_add_overflow(a, b, &out) ? int_overflow() : Value::int64(out);
    case Op::sub:
      return __builtin_sub_overflow(a, b, &out) ? int_overflow() : Value::int64(out);
    case Op::mul:
      return __builtin_mul_overflow(a, b, &out) ? int_overflow() : Value::int64(out);
    case Op::div:
      if (b == 0) return Value::error("division by zero");
      return a == k_int_min && b == -1 ? int_overflow() : Value::int64(a / b);
    case Op::mod:
      if (b == 0) return Value::error("modulus by zero");
      return a == k_int_min && b == -1 ? int_overflow() : Value::int64(a % b);
    default:
      return Value::error("internal: not an arithmetic operator");
  }
}

Value uint_arithmetic(Op op, std::uint64_t a, std::uint64_t b) {
  std::uint64_t out = 0;
  switch (op) {
    case Op::add:
      return __builtin_add_overflow(a, b, &out) ? uint_overflow() : Value::uint64(out);
    case Op::sub:
      return __builtin_sub_overflow(a, b, &out) ? uint_overflow() : Value::uint64(out);
    case Op::mul:
      return __builtin_mul_overflow(a, b, &out) ? uint_overflow() : Value::uint64(out);
    case Op::div:
      return b == 0 ? Value::error("division by zero") : Value::uint64(a / b);
    case Op::mod:
      return b == 0 ? Value::error("modulus by zero") : Value::uint64(a % b);
    default:
      return Value::error("internal: not an arithmetic operator");
  }
}

std::optional<Value> double_arithmetic(Op op, double a, double b) {
  switch (op) {
    case Op::add:
      return Value::from_double(a + b);
    case Op::sub:
      return Value::from_double(a - b);
    case Op::mul:
      return Value::from_double(a * b);
    case Op::div:
      return Value::from_double(a / b);  // IEEE 754: x / 0.0 is an infinity, not an error
    default:
      return std::nullopt;  // CEL has no % on doubles
  }
}

/// + on strings and lists, charging for the bytes or elements of the result.
std::optional<Value> concatenate(const Value& a, const Value& b, CostMeter& cost) {
  if (a.kind() == Kind::string) {
    if (!cost.charge(CostMeter::for_bytes(a.as_string().size() + b.as_string().size()))) return Value();
    std::string out;
    out.reserve(a.as_string().size() + b.as_string().size());
    out.append(a.as_string()).append(b.as_string());
    return Value::string(std::move(out));
  }
  if (a.kind() == Kind::list) {
    const auto& x = a.as_list();
    const auto& y = b.as_list();
    if (!cost.charge(x.size() + y.size())) return Value();
    std::vector<Value> out;
    out.reserve(x.size() + y.size());
    out.insert(out.end(), x.begin(), x.end());
    out.insert(out.end(), y.begin(), y.end());
    return Value::list(std::move(out));
  }
  return std::nullopt;
}

bool is_number(const Value& v) {
  return v.kind() == Kind::int64 || v.kind() == Kind::uint64 || v.kind() == Kind::double_;
}

const Value* find_field(const Map& map, std::string_view field) {
  if (!map.is_object() || field.find("__") == std::string_view::npos) return map.find(field);
  const auto property = unescape_property(field);
  return property ? map.find(*property) : nullptr;
}

}  // namespace

std::optional<std::string> unescape_property(std::string_view name) {
  static constexpr std::array<std::string_view, 21> k_keywords = {
      "true",     "false",   "null",      "in",       "as",  "break",  "const",
      "continue", "else",    "for",       "function", "if",  "import", "let",
      "loop",     "package", "namespace", "return",   "var", "void",   "while"};
  std::string out;
  std::size_t pos = 0;
  while (pos < name.size()) {
    const std::size_t open = name.find("__", pos);
    const std::size_t close = open == std::string_view::npos ? open : name.find("__", open + 2);
    if (close == std::string_view::npos || close == open + 2) {
      out.append(name.substr(pos));
      break;
    }
    const std::string_view inner = name.substr(open + 2, close - open - 2);
    out.append(name.substr(pos, open - pos));
    if (inner == "dash")
      out += '-';
    else if (inner == "dot")
      out += '.';
    else if (inner == "slash")
      out += '/';
    else if (inner == "underscores")
      out += "__";
    else if (std::find(k_keywords.begin(), k_keywords.end(), inner) != k_keywords.end() &&
             inner.size() + 4 == name.size())
      out += inner;
    else
      return std::nullopt;
    pos = close + 2;
  }
  return out;
}

std::optional<Value> opaque_operand(std::initializer_list<const Value*> args) {
  for (const Value* v : args) {
    if (v->kind() == Kind::opaque)
      return Value::error(std::string(v->type_name()) + " values", ErrorKind::unsupported);
  }
  return std::nullopt;
}

std::optional<Value> opaque_within(const Value& v) {
  if (v.kind() == Kind::opaque) return opaque_operand({&v});
  for (const auto& item : v.as_list()) {
    if (auto found = opaque_within(item)) return found;
  }
  for (const auto& entry : v.as_map().entries()) {
    if (auto found = opaque_within(entry.second)) return found;
  }
  return std::nullopt;
}

Value no_overload(std::string_view fn, std::initializer_list<const Value*> args) {
  return no_overload(fn, std::vector<const Value*>(args));
}

Value no_overload(std::string_view fn, const std::vector<Value>& args) {
  std::vector<const Value*> pointers;
  for (const Value& v : args) pointers.push_back(&v);
  return no_overload(fn, pointers);
}

Value no_overload(std::string_view fn, const std::vector<const Value*>& args) {
  std::string types;
  for (const Value* v : args) {
    if (auto opaque = opaque_operand({v})) return *opaque;
    types += (types.empty() ? "" : ", ") + std::string(v->type_name());
  }
  return Value::error("no matching overload for '" + std::string(fn) + "' applied to '(" + types + ")'");
}

Value arithmetic(Op op, const Value& a, const Value& b, CostMeter& cost) {
  if (a.kind() == b.kind()) {
    switch (a.kind()) {
      case Kind::int64:
        return int_arithmetic(op, a.as_int(), b.as_int());
      case Kind::uint64:
        return uint_arithmetic(op, a.as_uint(), b.as_uint());
      case Kind::double_:
        if (auto v = double_arithmetic(op, a.as_double(), b.as_double())) return *v;
        break;
      case Kind::string:
      case Kind::list:
        if (op != Op::add) break;
        if (auto v = concatenate(a, b, cost)) return *v;
        break;
      default:
        break;
    }
  }
  return no_overload(op_name(op), {&a, &b});
}

Value relation(Op op, const Value& a, const Value& b, CostMeter& cost) {
  if (op == Op::eq || op == Op::ne) {
    std::uint64_t steps = 0;
    const auto same = equals(a, b, steps);
    cost.charge(steps);
    if (!same) return opaque_within(a).value_or(opaque_within(b).value_or(Value()));
    return Value::boolean(*same == (op == Op::eq));
  }
  const auto order = compare(a, b);
  if (!order) {
    const bool nan = is_number(a) && is_number(b);  // numbers are unordered only through NaN
    return nan ? Value::error("NaN values cannot be ordered") : no_overload(op_name(op), {&a, &b});
  }
  if (a.kind() == Kind::string)
    cost.charge(CostMeter::for_bytes(std::min(a.as_string().size(), b.as_string().size())));
  switch (op) {
    case Op::lt:
      return Value::boolean(*order < 0);
    case Op::le:
      return Value::boolean(*order <= 0);
    case Op::gt:
      return Value::boolean(*order > 0);
    default:
      return Value::boolean(*order >= 0);
  }
}

Value membership(const Value& a, const Value& b, CostMeter& cost) {
  if (b.kind() == Kind::map) return Value::boolean(b.as_map().find(a) != nullptr);
  if (b.kind() != Kind::list) return no_overload("@in", {&a, &b});
  std::uint64_t steps = 0;
  for (const auto& item : b.as_list()) {
    const auto same = equals(a, item, steps);
    if (!same) return opaque_within(a).value_or(opaque_within(item).value_or(Value()));
    if (*same) return cost.charge(steps), Value::boolean(true);
  }
  cost.charge(steps);
  return Value::boolean(false);
}

Value negate(const Value& a) {
  if (a.kind() == Kind::int64) return a.as_int() == k_int_min ? int_overflow() : Value::int64(-a.as_int());
  if (a.kind() == Kind::double_) return Value::from_double(-a.as_double());
  return no_overload("-_", {&a});
}

Value logical_not(const Value& a) {
  if (a.kind() == Kind::boolean) return Value::boolean(!a.as_bool());
  return no_overload("!_", {&a});
}

Value select_field(const Value& target, std::string_view field) {
  if (target.kind() != Kind::map) return has_field(target, field);
  const Value* v = find_field(target.as_map(), field);
  return v != nullptr ? *v : Value::error("no such key: " + std::string(field));
}

Value has_field(const Value& target, std::string_view field) {
  if (target.kind() == Kind::map) return Value::boolean(find_field(target.as_map(), field) != nullptr);
  if (auto opaque = opaque_operand({&target})) return *opaque;
  return Value::error("type '" + std::string(target.type_name()) + "' does not support field selection");
}

Value index_value(const Value& target, const Value& index) {
  if (target.kind() == Kind::map) {
    const Value* v = target.as_map().find(index);
    if (v != nullptr) return *v;
    if (!is_key_kind(index.kind()) && index.kind() != Kind::double_)
      return no_overload("_[_]", {&target, &index});
    return Value::error("no such key: " + display(index));
  }
  if (target.kind() != Kind::list) return no_overload("_[_]", {&target, &index});
  const auto& items = target.as_list();
  std::int64_t i = 0;
  if (index.kind() == Kind::int64) {
    i = index.as_int();
  } else if (index.kind() == Kind::uint64 && index.as_uint() <= static_cast<std::uint64_t>(INT64_MAX)) {
    i = static_cast<std::int64_t>(index.as_uint());
  } else if (index.kind() == Kind::double_ && std::trunc(index.as_double()) == index.as_double() &&
             std::fabs(index.as_double()) < 9.2e18) {
    i = static_cast<std::int64_t>(index.as_double());
  } else if (index.kind() == Kind::uint64 || index.kind() == Kind::double_) {
    return Value::error("unsupported index value " + display(index) + " in list");
  } else {
    return no_overload("_[_]", {&target, &index});
  }
  if (i < 0 || static_cast<std::uint64_t>(i) >= items.size()) {
    return Value::error("index '" + std::to_string(i) + "' out of range in list size '" +
                        std::to_string(items.size()) + "'");
  }
  return items[static_cast<std::size_t>(i)];
}

}  // namespace kpt::cel
