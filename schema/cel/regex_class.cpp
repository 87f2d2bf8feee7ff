#include "schema/cel/regex_syntax.hpp"
#include "schema/cel/utf8.hpp"

#include <algorithm>

namespace kpt::cel::regex {
namespace {

bool is_alnum(char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }

int hex_digit_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

/// \xHH or \x{H...} after the backslash at `start`. On an error the fragment ends with the
/// character that broke the escape, as Go reports it.
std::optional<char32_t> hex_escape(Cursor& in, std::size_t start) {
  const bool braced = in.accept('{');
  char32_t value = 0;
  std::size_t count = 0;
  bool bad = false;
  while (!in.at_end() && (braced || count < 2)) {
    const int digit = hex_digit_value(in.peek());
    if (digit < 0) {
      bad = !braced || in.peek() != '}' || count == 0;
      if (bad) ++in.pos;
      break;
    }
    ++in.pos;
    value = value * 16 + static_cast<char32_t>(digit);
    ++count;
    if (value > utf8::k_max_code_point) {
      bad = true;
      break;
    }
  }
  if (!bad && braced && !in.accept('}')) bad = true;
  if (bad || count == 0 || (!braced && count != 2)) {
    in.fail("invalid escape sequence", in.src.substr(start, in.pos - start));
    return std::nullopt;
  }
  return value;
}

std::optional<char32_t> octal_escape(Cursor& in, std::size_t start) {
  char32_t value = 0;
  for (int i = 0; i < 3 && in.peek() >= '0' && in.peek() <= '7'; ++i)
    value = value * 8 + (in.src[in.pos++] - '0');
  if (in.pos - start < 2) in.fail("invalid escape sequence", in.src.substr(start, in.pos - start));
  return value;
}

/// One escaped character after the backslash at `start` (inside or outside a class).
std::optional<char32_t> escaped_char(Cursor& in, std::size_t start) {
  const char c = in.src[in.pos++];
  switch (c) {
    case 'a':
      return '\a';
    case 'f':
      return '\f';
    case 't':
      return '\t';
    case 'n':
      return '\n';
    case 'r':
      return '\r';
    case 'v':
      return '\v';
    case 'x':
      return hex_escape(in, start);
    case '0':
      --in.pos;
      return octal_escape(in, start);
    default:
      break;
  }
  // \1-\7 followed by octal digits is an octal code; alone it would be a backreference (Go).
  if (c >= '1' && c <= '7' && in.peek() >= '0' && in.peek() <= '7') {
    --in.pos;
    return octal_escape(in, start);
  }
  if (static_cast<unsigned char>(c) < 0x80 && !is_alnum(c)) return static_cast<char32_t>(c);
  if (c == 'p' || c == 'P') {
    in.unsupported("Unicode character classes (\\p)");
  } else if (c == 'C') {
    in.unsupported("\\C");
  } else {
    in.fail("invalid escape sequence", in.src.substr(start, in.pos - start));
  }
  return std::nullopt;
}

/// [:alpha:] and the other POSIX classes; false when the cursor is not at one.
bool posix_item(Cursor& in, std::vector<Range>& ranges) {
  if (in.peek() != '[' || in.peek(1) != ':') return false;
  const std::size_t end = in.src.find(":]", in.pos + 2);
  if (end == std::string_view::npos) return false;
  const auto posix = posix_class(in.src.substr(in.pos + 2, end - in.pos - 2));
  if (!posix) {
    in.fail("invalid character class range", in.src.substr(in.pos, end + 2 - in.pos));
  } else {
    ranges.insert(ranges.end(), posix->begin(), posix->end());
  }
  in.pos = end + 2;
  return true;
}

/// A character of a class; a class escape (\d) is appended to `ranges` and sets `was_class`.
std::optional<char32_t> class_char(Cursor& in, std::vector<Range>& ranges, bool& was_class) {
  if (in.peek() != '\\') return utf8::decode(in.src, in.pos);
  const std::size_t start = in.pos++;
  if (in.at_end()) {
    in.fail("trailing backslash at end of expression", "");
    return std::nullopt;
  }
  if (auto cls = perl_class(in.peek()); cls) {
    ++in.pos;
    ranges.insert(ranges.end(), cls->begin(), cls->end());
    was_class = true;
    return std::nullopt;
  }
  return escaped_char(in, start);
}

/// One item of a bracketed class, appended to `ranges`: a character, a range, \d, [:alpha:].
/// A '-' is a literal where it cannot form a range (Go's Perl mode).
bool class_item(Cursor& in, std::vector<Range>& ranges) {
  const std::size_t start = in.pos;
  if (posix_item(in, ranges)) return !in.error;
  bool was_class = false;
  const auto lo = class_char(in, ranges, was_class);
  if (in.error || was_class) return !in.error;
  char32_t hi = *lo;
  if (in.peek() == '-' && in.peek(1) != ']' && in.pos + 1 < in.src.size()) {
    ++in.pos;
    bool hi_class = false;
    const auto upper = class_char(in, ranges, hi_class);
    if (in.error) return false;
    if (hi_class) {  // Go parses the end of a range as one character: \d there is a bad escape
      in.fail("invalid escape sequence", in.src.substr(in.pos - 2, 2));
      return false;
    }
    if (*upper < *lo) {
      in.fail("invalid character class range", in.src.substr(start, in.pos - start));
      return false;
    }
    hi = *upper;
  }
  ranges.push_back({*lo, hi});
  return true;
}

/// \Q...\E: everything up to \E (or the end) taken literally.
std::optional<SyntaxNode> quoted_literal(Cursor& in, const Flags& flags) {
  ++in.pos;  // 'Q'
  SyntaxNode seq;
  seq.kind = SyntaxKind::concat;
  while (!in.at_end() && !(in.peek() == '\\' && in.peek(1) == 'E')) {
    const char32_t c = utf8::decode(in.src, in.pos);
    auto node = folded(in, {{c, c}}, flags, false);
    if (!node) return std::nullopt;
    seq.children.push_back(std::move(*node));
  }
  if (!in.at_end()) in.pos += 2;
  return seq;
}

}  // namespace

std::optional<SyntaxNode> parse_class(Cursor& in, const Flags& flags) {
  const std::size_t start = in.pos++;
  const bool negate = in.accept('^');
  std::vector<Range> ranges;
  bool first = true;
  while (!in.error) {
    if (in.at_end()) {
      in.fail("missing closing ]", in.src.substr(start));
      return std::nullopt;
    }
    if (in.peek() == ']' && !first) break;
    if (in.peek() == ']') {
      ++in.pos;
      ranges.push_back({']', ']'});  // a leading ] is a literal, as in Go
    } else if (!class_item(in, ranges)) {
      return std::nullopt;
    }
    first = false;
  }
  if (in.error) return std::nullopt;
  ++in.pos;  // ']'
  return folded(in, std::move(ranges), flags, negate);
}

std::optional<SyntaxNode> parse_escape(Cursor& in, const Flags& flags) {
  const std::size_t start = in.pos++;
  if (in.at_end()) {
    in.fail("trailing backslash at end of expression", "");
    return std::nullopt;
  }
  const char c = in.peek();
  const auto assertion = [&](Assertion a) {
    ++in.pos;
    SyntaxNode node;
    node.kind = SyntaxKind::assertion;
    node.assertion = a;
    return node;
  };
  if (c == 'A') return assertion(Assertion::begin_text);
  if (c == 'z') return assertion(Assertion::end_text);
  if (c == 'b') return assertion(Assertion::word_boundary);
  if (c == 'B') return assertion(Assertion::not_word_boundary);
  if (auto cls = perl_class(c); cls) {
    ++in.pos;
    return chars_node(std::move(*cls));
  }
  if (c == 'Q') return quoted_literal(in, flags);
  const auto ch = escaped_char(in, start);
  if (!ch) return std::nullopt;
  return folded(in, {{*ch, *ch}}, flags, false);
}

std::optional<SyntaxNode> parse_literal(Cursor& in, const Flags& flags) {
  const std::size_t start = in.pos;
  const char32_t c = utf8::decode(in.src, in.pos);
  if (c == utf8::k_replacement && in.src.substr(start, in.pos - start) != "\xEF\xBF\xBD") {
    in.fail("invalid UTF-8", in.src.substr(start));
    return std::nullopt;
  }
  return folded(in, {{c, c}}, flags, false);
}

}  // namespace kpt::cel::regex
