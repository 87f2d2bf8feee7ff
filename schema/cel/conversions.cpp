#include "schema/cel/functions.hpp"
#include "schema/cel/operators.hpp"

#include <charconv>
#include <cmath>
#include <string>

namespace kpt::cel {
namespace {

Value conversion_error(const Value& v, const char* to) {
  return Value::error("type conversion error from '" + std::string(v.type_name()) + "' to '" + to + "'");
}

/// Go's strconv.ParseInt/ParseUint in base 10: an optional sign, then digits only.
template <class T>
std::optional<T> parse_integer(std::string_view text) {
  if (!text.empty() && text.front() == '+') text.remove_prefix(1);
  if (text.empty() || text.front() == '+' || (std::is_unsigned_v<T> && text.front() == '-'))
    return std::nullopt;
  T out{};
  const auto res = std::from_chars(text.data(), text.data() + text.size(), out);
  if (res.ec != std::errc() || res.ptr != text.data() + text.size()) return std::nullopt;
  return out;
}

/// Go's strconv.ParseFloat: decimal forms, "inf"/"infinity"/"nan" in any case, with a sign.
std::optional<double> parse_double(std::string_view text) {
  const bool plus = !text.empty() && text.front() == '+';
  if (plus) text.remove_prefix(1);
  if (text.empty() || (plus && text.front() == '-')) return std::nullopt;
  double out = 0;
  const auto res = std::from_chars(text.data(), text.data() + text.size(), out);
  if (res.ec != std::errc() || res.ptr != text.data() + text.size()) return std::nullopt;
  return out;
}

/// Go's strconv.ParseBool.
std::optional<bool> parse_bool(std::string_view text) {
  for (std::string_view t : {"1", "t", "T", "TRUE", "true", "True"}) {
    if (text == t) return true;
  }
  for (std::string_view f : {"0", "f", "F", "FALSE", "false", "False"}) {
    if (text == f) return false;
  }
  return std::nullopt;
}

Value to_int(const Value& v) {
  switch (v.kind()) {
    case Kind::int64:
      return v;
    case Kind::uint64:
      if (v.as_uint() > static_cast<std::uint64_t>(INT64_MAX)) return Value::error("integer overflow");
      return Value::int64(static_cast<std::int64_t>(v.as_uint()));
    case Kind::double_: {
      // cel-go doubleToInt64Checked: the bounds themselves overflow too.
      const double d = v.as_double();
      if (!std::isfinite(d) || d <= -k_two_63 || d >= k_two_63) return Value::error("integer overflow");
      return Value::int64(static_cast<std::int64_t>(d));
    }
    case Kind::string: {
      const auto parsed = parse_integer<std::int64_t>(v.as_string());
      return parsed ? Value::int64(*parsed) : conversion_error(v, "int");
    }
    default:
      return no_overload("int", {&v});
  }
}

Value to_uint(const Value& v) {
  switch (v.kind()) {
    case Kind::uint64:
      return v;
    case Kind::int64:
      if (v.as_int() < 0) return Value::error("unsigned integer overflow");
      return Value::uint64(static_cast<std::uint64_t>(v.as_int()));
    case Kind::double_: {
      const double d = v.as_double();
      if (!std::isfinite(d) || d < 0 || d >= k_two_64) return Value::error("unsigned integer overflow");
      return Value::uint64(static_cast<std::uint64_t>(d));
    }
    case Kind::string: {
      const auto parsed = parse_integer<std::uint64_t>(v.as_string());
      return parsed ? Value::uint64(*parsed) : conversion_error(v, "uint");
    }
    default:
      return no_overload("uint", {&v});
  }
}

Value to_double(const Value& v) {
  switch (v.kind()) {
    case Kind::double_:
      return v;
    case Kind::int64:
      return Value::from_double(static_cast<double>(v.as_int()));
    case Kind::uint64:
      return Value::from_double(static_cast<double>(v.as_uint()));
    case Kind::string: {
      const auto parsed = parse_double(v.as_string());
      return parsed ? Value::from_double(*parsed) : conversion_error(v, "double");
    }
    default:
      return no_overload("double", {&v});
  }
}

Value to_string(const Value& v) {
  switch (v.kind()) {
    case Kind::string:
      return v;
    case Kind::int64:
      return Value::string(std::to_string(v.as_int()));
    case Kind::uint64:
      return Value::string(std::to_string(v.as_uint()));
    case Kind::double_:
      return Value::string(format_double(v.as_double()));
    case Kind::boolean:
      return Value::string(v.as_bool() ? "true" : "false");
    default:
      return no_overload("string", {&v});
  }
}

Value to_bool(const Value& v) {
  if (v.kind() == Kind::boolean) return v;
  if (v.kind() != Kind::string) return no_overload("bool", {&v});
  const auto parsed = parse_bool(v.as_string());
  return parsed ? Value::boolean(*parsed) : conversion_error(v, "bool");
}

}  // namespace

Value convert(Builtin fn, const Value& v, CostMeter& cost) {
  if (v.kind() == Kind::string && !cost.charge(CostMeter::for_bytes(v.as_string().size()))) return Value();
  switch (fn) {
    case Builtin::to_int:
      return to_int(v);
    case Builtin::to_uint:
      return to_uint(v);
    case Builtin::to_double:
      return to_double(v);
    case Builtin::to_string:
      return to_string(v);
    default:
      return to_bool(v);
  }
}

}  // namespace kpt::cel
