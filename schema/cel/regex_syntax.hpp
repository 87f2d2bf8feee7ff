#pragma once

// Internal to the regex matcher: the parsed form of a pattern, and the pieces of its parser.

#include "schema/cel/regex.hpp"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kpt::cel::regex {

enum class SyntaxKind : std::uint8_t { empty, chars, assertion, concat, alternate, repeat };

struct SyntaxNode {
  SyntaxKind kind = SyntaxKind::empty;
  Assertion assertion = Assertion::begin_text;
  std::vector<Range> ranges;         ///< chars: sorted, disjoint code point ranges
  std::vector<SyntaxNode> children;  ///< concat, alternate; repeat: exactly one
  int min = 0;
  int max = -1;  ///< repeat: -1 for no upper bound
};

struct SyntaxResult {
  SyntaxNode root;
  std::optional<RegexError> error;
};

/// Parses an RE2/Go regexp pattern. Errors use Go's regexp/syntax wording.
SyntaxResult parse_syntax(std::string_view pattern, const RegexLimits& limits);

/// Sorts and merges ranges; with `negate`, returns the complement over all code points.
std::vector<Range> normalize_ranges(std::vector<Range> ranges, bool negate);

/// The flags a pattern can set with (?flags) or (?flags:...).
struct Flags {
  bool fold = false;       ///< i: case-insensitive
  bool multiline = false;  ///< m: ^ and $ match at line breaks
  bool dot_nl = false;     ///< s: . matches \n
};

/// The parser's position in the pattern and its first error.
struct Cursor {
  std::string_view src;
  std::size_t pos = 0;
  std::optional<RegexError> error;

  [[nodiscard]] bool at_end() const { return pos >= src.size(); }
  [[nodiscard]] char peek(std::size_t ahead = 0) const {
    return pos + ahead < src.size() ? src[pos + ahead] : '\0';
  }
  bool accept(char c) {
    if (at_end() || src[pos] != c) return false;
    ++pos;
    return true;
  }
  /// Go's message: "error parsing regexp: <code>: `<fragment>`".
  void fail(std::string_view code, std::string_view fragment) {
    if (!error)
      error = RegexError{false,
                         "error parsing regexp: " + std::string(code) + ": `" + std::string(fragment) + "`"};
  }
  void unsupported(std::string what) {
    if (!error) error = RegexError{true, std::move(what)};
  }
};

SyntaxNode chars_node(std::vector<Range> ranges);

/// \d, \s, \w (ASCII, as Go defines them) for 'd', 's', 'w'; upper case negates; nothing for
/// other letters.
std::optional<std::vector<Range>> perl_class(char c);
/// [:alpha:] and the other ASCII classes by name ("^alpha" negated); nothing when unknown.
std::optional<std::vector<Range>> posix_class(std::string_view name);
/// A character set under the flags: with (?i), ASCII letters match both cases. Negated after
/// folding when `negate`.
std::optional<SyntaxNode> folded(Cursor& in, std::vector<Range> ranges, const Flags& flags, bool negate);

/// A bracketed class at '['.
std::optional<SyntaxNode> parse_class(Cursor& in, const Flags& flags);
/// An escape at '\\' outside a class: a character, a class (\d), an assertion (\b) or \Q..\E.
std::optional<SyntaxNode> parse_escape(Cursor& in, const Flags& flags);
/// One literal character at the cursor.
std::optional<SyntaxNode> parse_literal(Cursor& in, const Flags& flags);

}  // namespace kpt::cel::regex
