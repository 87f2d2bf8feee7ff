#include "schema/cel/regex_syntax.hpp"
#include "schema/cel/utf8.hpp"

#include <algorithm>

// Character sets: the named classes, case folding and normalisation.

namespace kpt::cel::regex {
namespace {

constexpr char32_t k_kelvin = 0x212A;
constexpr char32_t k_long_s = 0x17F;

/// Adds the other case of the ASCII letters in `r`, and the non-ASCII letters Go folds with
/// k and s.
void add_case_partners(std::vector<Range>& out, Range r) {
  const auto shifted = [&](char32_t lo, char32_t hi, std::int32_t shift) {
    const char32_t a = std::max(lo, r.lo);
    const char32_t b = std::min(hi, r.hi);
    if (a <= b) out.push_back({static_cast<char32_t>(a + shift), static_cast<char32_t>(b + shift)});
  };
  shifted('a', 'z', 'A' - 'a');
  shifted('A', 'Z', 'a' - 'A');
  const auto has = [&](char32_t c) { return r.lo <= c && c <= r.hi; };
  if (has('k') || has('K') || has(k_kelvin))
    out.insert(out.end(), {{'K', 'K'}, {'k', 'k'}, {k_kelvin, k_kelvin}});
  if (has('s') || has('S') || has(k_long_s))
    out.insert(out.end(), {{'S', 'S'}, {'s', 's'}, {k_long_s, k_long_s}});
}

}  // namespace

std::optional<std::vector<Range>> perl_class(char c) {
  std::vector<Range> ranges;
  switch (c | 0x20) {
    case 'd':
      ranges = {{'0', '9'}};
      break;
    case 's':
      ranges = {{'\t', '\n'}, {'\f', '\r'}, {' ', ' '}};
      break;
    case 'w':
      ranges = {{'0', '9'}, {'A', 'Z'}, {'_', '_'}, {'a', 'z'}};
      break;
    default:
      return std::nullopt;
  }
  return normalize_ranges(std::move(ranges), c >= 'A' && c <= 'Z');
}

/// The ASCII classes of Go's regexp/syntax ([[:alpha:]] and friends).
std::optional<std::vector<Range>> posix_class(std::string_view name) {
  struct Entry {
    std::string_view name;
    std::vector<Range> ranges;
  };
  static const std::vector<Entry> k_classes = {
      {"alnum", {{'0', '9'}, {'A', 'Z'}, {'a', 'z'}}},
      {"alpha", {{'A', 'Z'}, {'a', 'z'}}},
      {"ascii", {{0, 0x7F}}},
      {"blank", {{'\t', '\t'}, {' ', ' '}}},
      {"cntrl", {{0, 0x1F}, {0x7F, 0x7F}}},
      {"digit", {{'0', '9'}}},
      {"graph", {{'!', '~'}}},
      {"lower", {{'a', 'z'}}},
      {"print", {{' ', '~'}}},
      {"punct", {{'!', '/'}, {':', '@'}, {'[', '`'}, {'{', '~'}}},
      {"space", {{'\t', '\r'}, {' ', ' '}}},
      {"upper", {{'A', 'Z'}}},
      {"word", {{'0', '9'}, {'A', 'Z'}, {'_', '_'}, {'a', 'z'}}},
      {"xdigit", {{'0', '9'}, {'A', 'F'}, {'a', 'f'}}},
  };
  const bool negate = !name.empty() && name.front() == '^';
  if (negate) name.remove_prefix(1);
  for (const auto& entry : k_classes) {
    if (entry.name == name) return normalize_ranges(entry.ranges, negate);
  }
  return std::nullopt;
}

/// A character set under the current flags: with (?i), ASCII letters match both cases (and k, s
/// also U+212A KELVIN SIGN and U+017F LONG S, as Go's simple case folding does). Folding other
/// non-ASCII letters needs Unicode tables this matcher does not carry.
std::optional<SyntaxNode> folded(Cursor& in, std::vector<Range> ranges, const Flags& flags, bool negate) {
  if (flags.fold) {
    const std::size_t n = ranges.size();
    for (std::size_t i = 0; i < n; ++i) {
      const Range r = ranges[i];
      const bool special = r.lo == r.hi && (r.lo == k_kelvin || r.lo == k_long_s);
      if (r.hi >= 0x80 && !special) {
        in.unsupported("case-insensitive matching of non-ASCII characters");
        return std::nullopt;
      }
      add_case_partners(ranges, r);
    }
  }
  return chars_node(normalize_ranges(std::move(ranges), negate));
}

std::vector<Range> normalize_ranges(std::vector<Range> ranges, bool negate) {
  std::sort(ranges.begin(), ranges.end(), [](Range a, Range b) { return a.lo < b.lo; });
  std::vector<Range> merged;
  for (const Range r : ranges) {
    if (!merged.empty() && r.lo <= merged.back().hi + 1) {
      merged.back().hi = std::max(merged.back().hi, r.hi);
    } else {
      merged.push_back(r);
    }
  }
  if (!negate) return merged;
  std::vector<Range> out;
  char32_t next = 0;
  for (const Range r : merged) {
    if (r.lo > next) out.push_back({next, r.lo - 1});
    next = r.hi + 1;
  }
  if (next <= utf8::k_max_code_point) out.push_back({next, utf8::k_max_code_point});
  return out;
}

}  // namespace kpt::cel::regex
