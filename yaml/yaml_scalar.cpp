#include "yaml/yaml_scalar.hpp"

#include <array>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <system_error>

namespace kpt::yaml {
namespace {

constexpr std::string_view k_tag_prefix = "tag:yaml.org,2002:";

struct Fixed {
  std::string_view text;
  NodeKind kind;
  bool boolean;
  double number;
};

constexpr double k_inf = std::numeric_limits<double>::infinity();
constexpr double k_nan = std::numeric_limits<double>::quiet_NaN();

// go-yaml v2 resolve.go: the spellings it resolves by table lookup.
constexpr std::array<Fixed, 40> k_fixed{{
    {"", NodeKind::null, false, 0},
    {"~", NodeKind::null, false, 0},
    {"null", NodeKind::null, false, 0},
    {"Null", NodeKind::null, false, 0},
    {"NULL", NodeKind::null, false, 0},
    {"y", NodeKind::boolean, true, 0},
    {"Y", NodeKind::boolean, true, 0},
    {"yes", NodeKind::boolean, true, 0},
    {"Yes", NodeKind::boolean, true, 0},
    {"YES", NodeKind::boolean, true, 0},
    {"true", NodeKind::boolean, true, 0},
    {"True", NodeKind::boolean, true, 0},
    {"TRUE", NodeKind::boolean, true, 0},
    {"on", NodeKind::boolean, true, 0},
    {"On", NodeKind::boolean, true, 0},
    {"ON", NodeKind::boolean, true, 0},
    {"n", NodeKind::boolean, false, 0},
    {"N", NodeKind::boolean, false, 0},
    {"no", NodeKind::boolean, false, 0},
    {"No", NodeKind::boolean, false, 0},
    {"NO", NodeKind::boolean, false, 0},
    {"false", NodeKind::boolean, false, 0},
    {"False", NodeKind::boolean, false, 0},
    {"FALSE", NodeKind::boolean, false, 0},
    {"off", NodeKind::boolean, false, 0},
    {"Off", NodeKind::boolean, false, 0},
    {"OFF", NodeKind::boolean, false, 0},
    {".nan", NodeKind::number, false, k_nan},
    {".NaN", NodeKind::number, false, k_nan},
    {".NAN", NodeKind::number, false, k_nan},
    {".inf", NodeKind::number, false, k_inf},
    {".Inf", NodeKind::number, false, k_inf},
    {".INF", NodeKind::number, false, k_inf},
    {"+.inf", NodeKind::number, false, k_inf},
    {"+.Inf", NodeKind::number, false, k_inf},
    {"+.INF", NodeKind::number, false, k_inf},
    {"-.inf", NodeKind::number, false, -k_inf},
    {"-.Inf", NodeKind::number, false, -k_inf},
    {"-.INF", NodeKind::number, false, -k_inf},
    {"<<", NodeKind::string, false, 0},
}};

// The longest spelling in k_fixed: longer text needs no table lookup (most keys and values).
constexpr std::size_t k_longest_fixed = [] {
  std::size_t n = 0;
  for (const auto& f : k_fixed) n = f.text.size() > n ? f.text.size() : n;
  return n;
}();

bool is_digit(char c) { return c >= '0' && c <= '9'; }

int digit_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return 99;
}

enum class IntResult { ok, overflow, invalid };

// strconv.ParseInt(s, 0, 64) with ParseUint's wider range folded into `overflow`.
IntResult parse_int(std::string_view s, std::int64_t& out) {
  bool negative = false;
  if (!s.empty() && (s.front() == '+' || s.front() == '-')) {
    negative = s.front() == '-';
    s.remove_prefix(1);
  }
  int base = 10;
  if (s.size() >= 2 && s[0] == '0') {
    const char p = s[1];
    if (p == 'x' || p == 'X')
      base = 16, s.remove_prefix(2);
    else if (p == 'o' || p == 'O')
      base = 8, s.remove_prefix(2);
    else if (p == 'b' || p == 'B')
      base = 2, s.remove_prefix(2);
    else
      base = 8, s.remove_prefix(1);
  }
  if (s.empty()) return IntResult::invalid;
  std::uint64_t value = 0;
  bool overflow = false;
  for (const char c : s) {
    const int d = digit_value(c);
    if (d >= base) return IntResult::invalid;
    const auto ubase = static_cast<std::uint64_t>(base);
    if (value > (std::numeric_limits<std::uint64_t>::max() - static_cast<std::uint64_t>(d)) / ubase) {
      overflow = true;
    } else {
      value = value * ubase + static_cast<std::uint64_t>(d);
    }
  }
  constexpr auto k_max = static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max());
  if (overflow || value > k_max + (negative ? 1 : 0)) return IntResult::overflow;
  out = negative ? static_cast<std::int64_t>(0 - value) : static_cast<std::int64_t>(value);
  return IntResult::ok;
}

// go-yaml v2's yamlStyleFloat: ^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$
bool is_yaml_float(std::string_view s) {
  std::size_t i = 0;
  if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
  if (i < s.size() && s[i] == '.') {
    ++i;
    const auto start = i;
    while (i < s.size() && is_digit(s[i])) ++i;
    if (i == start) return false;
  } else {
    const auto start = i;
    while (i < s.size() && is_digit(s[i])) ++i;
    if (i == start) return false;
    if (i < s.size() && s[i] == '.') {
      ++i;
      while (i < s.size() && is_digit(s[i])) ++i;
    }
  }
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
    const auto start = i;
    while (i < s.size() && is_digit(s[i])) ++i;
    if (i == start) return false;
  }
  return i == s.size();
}

bool parse_float(std::string_view s, double& out) {
  if (!s.empty() && s.front() == '+') s.remove_prefix(1);
  const auto* end = s.data() + s.size();
  const auto [ptr, ec] = std::from_chars(s.data(), end, out);
  // Out of range is an error to strconv.ParseFloat, so go-yaml keeps such text a string.
  return ec == std::errc{} && ptr == end;
}

void resolve_plain(Node& node) {
  const std::string_view in = node.text;
  const char first = in.empty() ? '\0' : in.front();
  const bool maybe_fixed = in.empty() || first == '~' || first == '.' || first == '+' || first == '-' ||
                           first == '<' ||
                           std::string_view("yYnNtTfFoO").find(first) != std::string_view::npos;
  if (maybe_fixed && in.size() <= k_longest_fixed) {
    for (const auto& f : k_fixed) {
      if (f.text != in) continue;
      node.kind = f.kind;
      node.boolean = f.boolean;
      node.number = f.number;
      return;
    }
  }
  node.kind = NodeKind::string;
  if (first == '.') {
    double v = 0;
    if (is_yaml_float(in) && parse_float(in, v)) node.kind = NodeKind::number, node.number = v;
    return;
  }
  if (!is_digit(first) && first != '+' && first != '-') return;

  std::string plain;
  std::string_view digits = in;
  if (in.find('_') != std::string_view::npos) {
    plain.reserve(in.size());
    for (const char c : in) {
      if (c != '_') plain.push_back(c);
    }
    digits = plain;
  }
  std::int64_t iv = 0;
  switch (parse_int(digits, iv)) {
    case IntResult::ok:
      node.kind = NodeKind::integer;
      node.integer = iv;
      node.number = static_cast<double>(iv);
      return;
    case IntResult::overflow:
      node.kind = NodeKind::integer;
      node.int_overflow = true;
      if (is_yaml_float(digits)) (void)parse_float(digits, node.number);
      return;
    case IntResult::invalid:
      break;
  }
  double v = 0;
  if (is_yaml_float(digits) && parse_float(digits, v)) node.kind = NodeKind::number, node.number = v;
}

}  // namespace

std::string short_tag(std::string_view tag) {
  if (tag.substr(0, k_tag_prefix.size()) == k_tag_prefix)
    return "!!" + std::string(tag.substr(k_tag_prefix.size()));
  return std::string(tag);
}

ScalarProblem resolve_scalar(Node& node, const ScalarStyle& style) {
  node.quoted = style.quoted;
  if (style.tag.empty()) {
    if (style.quoted)
      node.kind = NodeKind::string;
    else
      resolve_plain(node);
    return ScalarProblem::none;
  }
  if (style.tag.substr(0, k_tag_prefix.size()) != k_tag_prefix) {
    node.kind = NodeKind::string;  // "!" and local tags: go-yaml keeps the text
    return ScalarProblem::none;
  }
  const auto name = style.tag.substr(k_tag_prefix.size());
  if (name == "null") {
    node.kind = NodeKind::null;
    return ScalarProblem::none;
  }
  if (name != "bool" && name != "int" && name != "float") {
    node.kind = NodeKind::string;  // !!str, !!binary, !!timestamp (a string to Kubernetes), others
    return ScalarProblem::none;
  }
  resolve_plain(node);
  if (name == "bool" && node.kind == NodeKind::boolean) return ScalarProblem::none;
  if (name == "int" && node.kind == NodeKind::integer) return ScalarProblem::none;
  if (name == "float" && node.kind == NodeKind::number) return ScalarProblem::none;
  if (name == "float" && node.kind == NodeKind::integer && !node.int_overflow) {
    node.kind = NodeKind::number;
    return ScalarProblem::none;
  }
  node.kind = NodeKind::string;
  node.int_overflow = false;
  node.boolean = false;
  node.integer = 0;
  node.number = 0;
  return ScalarProblem::tag_mismatch;
}

}  // namespace kpt::yaml
