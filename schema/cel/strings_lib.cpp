// The Kubernetes string library as cel-go ext/strings.go defines it. Indexes count code points;
// strings are valid UTF-8 (the YAML reader and the lexer see to it), so byte searches that start
// at code point boundaries find the same matches as cel-go's rune loops.

#include "schema/cel/functions.hpp"
#include "schema/cel/operators.hpp"
#include "schema/cel/utf8.hpp"

#include <algorithm>
#include <limits>
#include <string>

namespace kpt::cel {
namespace {

Value out_of_range(std::int64_t index) {
  return Value::error("index out of range: " + std::to_string(index));
}

/// Byte offsets of each code point of `s`, then s.size().
std::vector<std::size_t> code_point_offsets(std::string_view s) {
  std::vector<std::size_t> out;
  for (std::size_t pos = 0; pos < s.size();) {
    out.push_back(pos);
    utf8::decode(s, pos);
  }
  out.push_back(s.size());
  return out;
}

std::int64_t rune_index(const std::vector<std::size_t>& offsets, std::size_t byte) {
  return static_cast<std::int64_t>(std::lower_bound(offsets.begin(), offsets.end(), byte) - offsets.begin());
}

bool is_space(char32_t c) {
  // Go's unicode.IsSpace, which strings.TrimSpace uses.
  return c == ' ' || (c >= '\t' && c <= '\r') || c == 0x85 || c == 0xA0 || c == 0x1680 ||
         (c >= 0x2000 && c <= 0x200A) || c == 0x2028 || c == 0x2029 || c == 0x202F || c == 0x205F ||
         c == 0x3000;
}

Value char_at(std::string_view s, std::int64_t i) {
  const auto offsets = code_point_offsets(s);
  const auto len = static_cast<std::int64_t>(offsets.size() - 1);
  if (i < 0 || i > len) return out_of_range(i);
  if (i == len) return Value::string("");
  const auto at = static_cast<std::size_t>(i);
  return Value::string(std::string(s.substr(offsets[at], offsets[at + 1] - offsets[at])));
}

Value index_of(std::string_view s, std::string_view sub, std::int64_t from) {
  if (from < 0) return out_of_range(from);
  const auto offsets = code_point_offsets(s);
  const auto len = static_cast<std::int64_t>(offsets.size() - 1);
  if (sub.empty()) return Value::int64(std::min(from, len));
  if (from >= len) return Value::int64(-1);
  const std::size_t found = s.find(sub, offsets[static_cast<std::size_t>(from)]);
  return Value::int64(found == std::string_view::npos ? -1 : rune_index(offsets, found));
}

Value last_index_of(std::string_view s, std::string_view sub, std::optional<std::int64_t> from) {
  const auto offsets = code_point_offsets(s);
  const auto len = static_cast<std::int64_t>(offsets.size() - 1);
  if (!from) {
    if (sub.empty()) return Value::int64(len);
    if (s.size() < sub.size()) return Value::int64(-1);
    from = len - 1;
  }
  if (*from < 0) return out_of_range(*from);
  if (sub.empty()) return Value::int64(std::min(*from, len));
  if (*from >= len) return Value::int64(-1);
  const auto sub_len = static_cast<std::int64_t>(utf8::length(sub));
  const std::int64_t start = std::min(*from, len - sub_len);
  if (start < 0) return Value::int64(-1);
  const std::size_t found = s.rfind(sub, offsets[static_cast<std::size_t>(start)]);
  return Value::int64(found == std::string_view::npos ? -1 : rune_index(offsets, found));
}

Value change_case(std::string_view s, bool upper) {
  std::string out(s);
  for (char& c : out) {
    if (!upper && c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    if (upper && c >= 'a' && c <= 'z') c = static_cast<char>(c - 'a' + 'A');
  }
  return Value::string(std::move(out));
}

/// Go's strings.Replace: at most `n` replacements (all when n < 0); an empty `from` matches
/// before each code point and at the end. The result's size is charged before it is built.
Value replace(std::string_view s, std::string_view from, std::string_view to, std::int64_t n,
              CostMeter& cost) {
  const auto limit = n < 0 ? std::numeric_limits<std::uint64_t>::max() : static_cast<std::uint64_t>(n);
  std::vector<std::size_t> matches;
  if (from.empty()) {
    const auto offsets = code_point_offsets(s);
    for (std::size_t i = 0; i < offsets.size() && matches.size() < limit; ++i) matches.push_back(offsets[i]);
  } else {
    for (std::size_t at = s.find(from); at != std::string_view::npos && matches.size() < limit;
         at = s.find(from, at + from.size())) {
      matches.push_back(at);
    }
  }
  const std::uint64_t size = s.size() + matches.size() * to.size() - matches.size() * from.size();
  if (!cost.charge(CostMeter::for_bytes(size))) return Value();
  std::string out;
  out.reserve(size);
  std::size_t pos = 0;
  for (std::size_t at : matches) {
    out.append(s.substr(pos, at - pos)).append(to);
    pos = at + from.size();
  }
  out.append(s.substr(std::min(pos, s.size())));
  return Value::string(std::move(out));
}

/// Go's strings.SplitN: n == 0 gives no parts, n < 0 all of them; an empty separator splits
/// into code points.
Value split(std::string_view s, std::string_view sep, std::int64_t n, CostMeter& cost) {
  std::vector<Value> parts;
  const auto limit = n < 0 ? std::numeric_limits<std::uint64_t>::max() : static_cast<std::uint64_t>(n);
  std::size_t pos = 0;
  while (parts.size() + 1 < limit && pos <= s.size()) {
    std::size_t end = pos;
    if (sep.empty()) {
      if (pos >= s.size()) break;
      utf8::decode(s, end);
    } else {
      end = s.find(sep, pos);
      if (end == std::string_view::npos) break;
    }
    parts.push_back(Value::string(std::string(s.substr(pos, end - pos))));
    if (!cost.charge(1)) return Value();
    pos = end + sep.size();
  }
  if (limit > 0 && (pos < s.size() || !sep.empty()))
    parts.push_back(Value::string(std::string(s.substr(std::min(pos, s.size())))));
  return Value::list(std::move(parts));
}

Value substring(std::string_view s, std::int64_t start, std::optional<std::int64_t> end) {
  const auto offsets = code_point_offsets(s);
  const auto len = static_cast<std::int64_t>(offsets.size() - 1);
  const std::int64_t stop = end.value_or(len);
  if (end && start > stop) {
    return Value::error("invalid substring range. start: " + std::to_string(start) +
                        ", end: " + std::to_string(stop));
  }
  if (start < 0 || start > len) return out_of_range(start);
  if (stop < 0 || stop > len) return out_of_range(stop);
  const std::size_t a = offsets[static_cast<std::size_t>(start)];
  return Value::string(std::string(s.substr(a, offsets[static_cast<std::size_t>(stop)] - a)));
}

Value trim(std::string_view s) {
  std::size_t begin = 0;
  while (begin < s.size()) {
    std::size_t next = begin;
    if (!is_space(utf8::decode(s, next))) break;
    begin = next;
  }
  std::size_t end = s.size();
  while (end > begin) {
    std::size_t start = end - 1;
    while (start > begin && (static_cast<unsigned char>(s[start]) & 0xC0) == 0x80) --start;
    std::size_t probe = start;
    if (!is_space(utf8::decode(s, probe))) break;
    end = start;
  }
  return Value::string(std::string(s.substr(begin, end - begin)));
}

Value join(const std::vector<Value>& items, std::string_view sep, CostMeter& cost) {
  std::string out;
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (items[i].kind() != Kind::string) return Value::error("join: invalid input: " + display(items[i]));
    if (!cost.charge(CostMeter::for_bytes(items[i].as_string().size() + sep.size()) + 1)) return Value();
    if (i > 0) out.append(sep);
    out.append(items[i].as_string());
  }
  return Value::string(std::move(out));
}

std::optional<std::int64_t> int_arg(const std::vector<Value>& args, std::size_t i) {
  if (i >= args.size()) return std::nullopt;
  return args[i].as_int();
}

/// Whether the arguments fit `fn`: a string receiver, then strings, then an optional int.
bool fits(Builtin fn, const std::vector<Value>& args) {
  using K = Kind;
  switch (fn) {
    case Builtin::char_at:
      return kinds_are(args, {K::string, K::int64});
    case Builtin::index_of:
    case Builtin::last_index_of:
      return kinds_are(args, {K::string, K::string}) || kinds_are(args, {K::string, K::string, K::int64});
    case Builtin::replace:
      return kinds_are(args, {K::string, K::string, K::string}) ||
             kinds_are(args, {K::string, K::string, K::string, K::int64});
    case Builtin::split:
      return kinds_are(args, {K::string, K::string}) || kinds_are(args, {K::string, K::string, K::int64});
    case Builtin::substring:
      return kinds_are(args, {K::string, K::int64}) || kinds_are(args, {K::string, K::int64, K::int64});
    case Builtin::join:
      return kinds_are(args, {K::list}) || kinds_are(args, {K::list, K::string});
    default:
      return kinds_are(args, {K::string});
  }
}

}  // namespace

Value call_string_function(Builtin fn, const std::vector<Value>& args, CostMeter& cost) {
  if (!fits(fn, args)) return no_overload(builtin_name(fn), args);
  if (fn == Builtin::join) return join(args[0].as_list(), args.size() > 1 ? args[1].as_string() : "", cost);
  const std::string_view s = args[0].as_string();
  const std::string_view t = args.size() > 1 ? args[1].as_string() : std::string_view();
  if (!cost.charge(CostMeter::for_bytes(s.size() + t.size()))) return Value();
  switch (fn) {
    case Builtin::char_at:
      return char_at(s, args[1].as_int());
    case Builtin::index_of:
      return index_of(s, t, int_arg(args, 2).value_or(0));
    case Builtin::last_index_of:
      return last_index_of(s, t, int_arg(args, 2));
    case Builtin::lower_ascii:
      return change_case(s, false);
    case Builtin::upper_ascii:
      return change_case(s, true);
    case Builtin::replace:
      return replace(s, t, args[2].as_string(), int_arg(args, 3).value_or(-1), cost);
    case Builtin::split:
      return split(s, t, int_arg(args, 2).value_or(-1), cost);
    case Builtin::substring:
      return substring(s, args[1].as_int(), int_arg(args, 2));
    default:
      return trim(s);
  }
}

}  // namespace kpt::cel
