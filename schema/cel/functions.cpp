#include "schema/cel/functions.hpp"

#include "schema/cel/ast.hpp"
#include "schema/cel/operators.hpp"
#include "schema/cel/regex.hpp"
#include "schema/cel/utf8.hpp"

#include <string>

namespace kpt::cel {
namespace {

Value size_of(const Value& v, CostMeter& cost) {
  switch (v.kind()) {
    case Kind::string:
      cost.charge(CostMeter::for_bytes(v.as_string().size()));
      return Value::int64(static_cast<std::int64_t>(utf8::length(v.as_string())));
    case Kind::list:
      return Value::int64(static_cast<std::int64_t>(v.as_list().size()));
    case Kind::map:
      return Value::int64(static_cast<std::int64_t>(v.as_map().size()));
    default:
      return no_overload("size", {&v});
  }
}

std::uint64_t ceil_div(std::uint64_t a, std::uint64_t b) { return (a + b - 1) / b; }

Value matches(const std::vector<Value>& args, const regex::Regex* literal, regex::PatternCache* runtime,
              CostMeter& cost) {
  if (!kinds_are(args, {Kind::string, Kind::string})) return no_overload("matches", args);
  std::shared_ptr<const regex::Regex> compiled;
  if (literal == nullptr) {
    // Charged whether or not the rule's cache holds it, so the cost does not depend on history.
    if (!cost.charge(ceil_div(args[1].as_string().size(), 4))) return Value();
    auto result = runtime != nullptr ? runtime->compile(args[1].as_string())
                                     : regex::Regex::compile(args[1].as_string());
    if (auto* error = std::get_if<regex::RegexError>(&result)) {
      return Value::error(error->message, error->unsupported ? ErrorKind::unsupported : ErrorKind::eval);
    }
    compiled = std::get<std::shared_ptr<const regex::Regex>>(std::move(result));
    literal = compiled.get();
  }
  const std::uint64_t text = CostMeter::for_bytes(1 + args[0].as_string().size());
  if (!cost.charge(text * ceil_div(literal->size(), 4))) return Value();
  return Value::boolean(literal->search(args[0].as_string()));
}

Value affix(Builtin fn, const std::vector<Value>& args, CostMeter& cost) {
  if (!kinds_are(args, {Kind::string, Kind::string})) return no_overload(builtin_name(fn), args);
  const std::string_view s = args[0].as_string();
  const std::string_view t = args[1].as_string();
  if (!cost.charge(CostMeter::for_bytes(s.size() + t.size()))) return Value();
  if (fn == Builtin::starts_with) return Value::boolean(s.substr(0, t.size()) == t);
  if (fn == Builtin::ends_with)
    return Value::boolean(s.size() >= t.size() && s.substr(s.size() - t.size()) == t);
  return Value::boolean(s.find(t) != std::string_view::npos);
}

/// isSorted, min and max: the order of adjacent elements (numbers across kinds, strings, bools).
Value ordered_scan(Builtin fn, const std::vector<Value>& items, CostMeter& cost) {
  if (!cost.charge(items.size())) return Value();
  if (items.empty() && fn != Builtin::is_sorted) {
    return Value::error(std::string(builtin_name(fn)) + " called on empty list");
  }
  std::size_t best = 0;
  for (std::size_t i = 1; i < items.size(); ++i) {
    const auto order = compare(items[fn == Builtin::is_sorted ? i - 1 : best], items[i]);
    if (!order) return no_overload(builtin_name(fn), {&items[i - 1], &items[i]});
    if (fn == Builtin::is_sorted && *order > 0) return Value::boolean(false);
    if ((fn == Builtin::min && *order > 0) || (fn == Builtin::max && *order < 0)) best = i;
  }
  return fn == Builtin::is_sorted ? Value::boolean(true) : items[best];
}

Value sum(const std::vector<Value>& items, CostMeter& cost) {
  if (!cost.charge(items.size())) return Value();
  if (items.empty()) return Value::int64(0);
  Value total = items.front();
  if (total.kind() != Kind::int64 && total.kind() != Kind::uint64 && total.kind() != Kind::double_) {
    return no_overload("sum", {&total});
  }
  for (std::size_t i = 1; i < items.size() && !total.is_error(); ++i)
    total = arithmetic(Op::add, total, items[i], cost);
  return total;
}

Value list_index(Builtin fn, const std::vector<Value>& args, CostMeter& cost) {
  const auto& items = args[0].as_list();
  std::uint64_t steps = 0;
  const auto n = static_cast<std::int64_t>(items.size());
  for (std::int64_t k = 0; k < n; ++k) {
    const std::int64_t i = fn == Builtin::index_of ? k : n - 1 - k;
    const auto same = equals(items[static_cast<std::size_t>(i)], args[1], steps);
    if (!same)
      return opaque_within(args[1]).value_or(
          opaque_within(items[static_cast<std::size_t>(i)]).value_or(Value()));
    if (*same) return cost.charge(steps), Value::int64(i);
  }
  cost.charge(steps);
  return Value::int64(-1);
}

Value list_function(Builtin fn, const std::vector<Value>& args, CostMeter& cost) {
  if (args[0].kind() != Kind::list) return no_overload(builtin_name(fn), args);
  switch (fn) {
    case Builtin::sum:
      return sum(args[0].as_list(), cost);
    case Builtin::index_of:
    case Builtin::last_index_of:
      if (args.size() != 2) return no_overload(builtin_name(fn), args);
      return list_index(fn, args, cost);
    default:
      return ordered_scan(fn, args[0].as_list(), cost);
  }
}

}  // namespace

bool kinds_are(const std::vector<Value>& args, std::initializer_list<Kind> kinds) {
  if (args.size() != kinds.size()) return false;
  std::size_t i = 0;
  for (Kind k : kinds) {
    if (args[i++].kind() != k) return false;
  }
  return true;
}

Value call_builtin(Builtin fn, const std::vector<Value>& args, const regex::Regex* literal_regex,
                   regex::PatternCache* runtime_patterns, CostMeter& cost) {
  switch (fn) {
    case Builtin::size:
      return size_of(args[0], cost);
    case Builtin::matches:
      return matches(args, literal_regex, runtime_patterns, cost);
    case Builtin::starts_with:
    case Builtin::ends_with:
    case Builtin::contains:
      return affix(fn, args, cost);
    case Builtin::to_int:
    case Builtin::to_uint:
    case Builtin::to_double:
    case Builtin::to_string:
    case Builtin::to_bool:
      return convert(fn, args[0], cost);
    case Builtin::type_of:
      return Value::type(args[0].type_name());
    case Builtin::dyn:
      return args[0];
    case Builtin::is_sorted:
    case Builtin::sum:
    case Builtin::min:
    case Builtin::max:
      return list_function(fn, args, cost);
    case Builtin::index_of:
    case Builtin::last_index_of:
      if (args[0].kind() == Kind::list) return list_function(fn, args, cost);
      return call_string_function(fn, args, cost);
    case Builtin::join:
    case Builtin::char_at:
    case Builtin::lower_ascii:
    case Builtin::upper_ascii:
    case Builtin::replace:
    case Builtin::split:
    case Builtin::substring:
    case Builtin::trim:
      return call_string_function(fn, args, cost);
    case Builtin::none:
      break;
  }
  return Value::error("internal: unresolved function");
}

}  // namespace kpt::cel
