#include "schema/cel/value.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <string>

namespace kpt::cel {

const char* kind_name(Kind kind) {
  switch (kind) {
    case Kind::null:
      return "null_type";
    case Kind::boolean:
      return "bool";
    case Kind::int64:
      return "int";
    case Kind::uint64:
      return "uint";
    case Kind::double_:
      return "double";
    case Kind::string:
      return "string";
    case Kind::list:
      return "list";
    case Kind::map:
      return "map";
    case Kind::type:
      return "type";
    case Kind::opaque:
      return "opaque";
    case Kind::error:
      return "error";
  }
  return "unknown";
}

Value Value::boolean(bool v) {
  Value out;
  out.m_kind = Kind::boolean;
  out.m_scalar.b = v;
  return out;
}

Value Value::int64(std::int64_t v) {
  Value out;
  out.m_kind = Kind::int64;
  out.m_scalar.i = v;
  return out;
}

Value Value::uint64(std::uint64_t v) {
  Value out;
  out.m_kind = Kind::uint64;
  out.m_scalar.u = v;
  return out;
}

Value Value::from_double(double v) {
  Value out;
  out.m_kind = Kind::double_;
  out.m_scalar.d = v;
  return out;
}

Value Value::string(std::string v) {
  Value out;
  out.m_kind = Kind::string;
  out.m_heap = std::make_shared<const std::string>(std::move(v));
  return out;
}

Value Value::list(std::vector<Value> items) {
  Value out;
  out.m_kind = Kind::list;
  out.m_heap = std::make_shared<const std::vector<Value>>(std::move(items));
  return out;
}

Value Value::type(std::string_view name) {
  Value out = string(std::string(name));
  out.m_kind = Kind::type;
  return out;
}

Value Value::opaque(std::string_view type_name) {
  Value out = string(std::string(type_name));
  out.m_kind = Kind::opaque;
  return out;
}

Value Value::error(std::string message, ErrorKind kind) {
  Value out = string(std::move(message));
  out.m_kind = Kind::error;
  out.m_scalar.u = static_cast<std::uint64_t>(kind);
  return out;
}

std::string_view Value::as_string() const {
  const bool text_kind =
      m_kind == Kind::string || m_kind == Kind::type || m_kind == Kind::opaque || m_kind == Kind::error;
  const auto* text = static_cast<const std::string*>(m_heap.get());
  return text_kind && text != nullptr ? std::string_view(*text) : std::string_view();
}

const std::vector<Value>& Value::as_list() const {
  static const std::vector<Value> k_empty;
  const auto* items = static_cast<const std::vector<Value>*>(m_heap.get());
  return m_kind == Kind::list && items != nullptr ? *items : k_empty;
}

const Map& Value::as_map() const {
  static const Map k_empty;
  const auto* map = static_cast<const Map*>(m_heap.get());
  return m_kind == Kind::map && map != nullptr ? *map : k_empty;
}

std::string_view Value::type_name() const { return m_kind == Kind::opaque ? as_string() : kind_name(m_kind); }

namespace {

/// Appends `v` to `out`, stopping once `out` passes `max` bytes so that a message quoting a
/// huge list stays short.
void display_to(std::string& out, const Value& v, std::size_t max) {
  if (out.size() > max) return;
  switch (v.kind()) {
    case Kind::null:
      out += "null";
      return;
    case Kind::boolean:
      out += v.as_bool() ? "true" : "false";
      return;
    case Kind::int64:
      out += std::to_string(v.as_int());
      return;
    case Kind::uint64:
      out += std::to_string(v.as_uint());
      return;
    case Kind::double_:
      out += format_double(v.as_double());
      return;
    case Kind::list:
      out += '[';
      for (const auto& item : v.as_list()) {
        if (out.size() > max) break;
        if (out.back() != '[') out += ", ";
        display_to(out, item, max);
      }
      out += ']';
      return;
    case Kind::map:
      out += '{';
      for (const auto& [key, value] : v.as_map().entries()) {
        if (out.size() > max) break;
        if (out.back() != '{') out += ", ";
        display_to(out, key, max);
        out += ": ";
        display_to(out, value, max);
      }
      out += '}';
      return;
    default:
      out += v.as_string();
      return;
  }
}

}  // namespace

std::string display(const Value& v) {
  constexpr std::size_t k_max = 200;
  std::string out;
  display_to(out, v, k_max);
  if (out.size() > k_max) {
    out.resize(k_max);
    out += "...";
  }
  return out;
}

std::string format_double(double v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "+Inf" : "-Inf";
  if (v == 0) return std::signbit(v) ? "-0" : "0";
  char buf[40];
  const auto res = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::scientific);
  const std::string_view sci(buf, static_cast<std::size_t>(res.ptr - buf));
  const auto e = sci.find('e');
  const bool negative = sci.front() == '-';
  std::string digits;
  for (char c : sci.substr(0, e)) {
    if (c >= '0' && c <= '9') digits += c;
  }
  int exp = 0;
  std::from_chars(sci.data() + e + (sci[e + 1] == '+' ? 2 : 1), sci.data() + sci.size(), exp);
  std::string out = negative ? "-" : "";
  if (exp < -4 || exp >= 6) {
    out += digits.substr(0, 1);
    if (digits.size() > 1) out += "." + digits.substr(1);
    const int mag = exp < 0 ? -exp : exp;
    return out + (exp < 0 ? "e-" : "e+") + (mag < 10 ? "0" : "") + std::to_string(mag);
  }
  if (exp < 0) return out + "0." + std::string(static_cast<std::size_t>(-exp - 1), '0') + digits;
  const auto int_digits = static_cast<std::size_t>(exp + 1);
  if (digits.size() <= int_digits) return out + digits + std::string(int_digits - digits.size(), '0');
  return out + digits.substr(0, int_digits) + "." + digits.substr(int_digits);
}

}  // namespace kpt::cel
