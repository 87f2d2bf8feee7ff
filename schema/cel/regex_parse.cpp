#include "schema/cel/regex_syntax.hpp"
#include "schema/cel/utf8.hpp"

#include <algorithm>
#include <string>

namespace kpt::cel::regex {
namespace {

bool is_decimal_digit(char c) { return c >= '0' && c <= '9'; }

SyntaxNode assertion_node(Assertion a) {
  SyntaxNode node;
  node.kind = SyntaxKind::assertion;
  node.assertion = a;
  return node;
}

/// Alternation, concatenation, repetition and groups; classes and escapes are in regex_class.cpp.
class SyntaxParser {
 public:
  SyntaxParser(std::string_view pattern, const RegexLimits& limits) : m_limits(limits) { m_in.src = pattern; }

  SyntaxResult run() {
    SyntaxResult out;
    Flags flags;
    out.root = alternation(flags, 0);
    if (!m_in.error && !m_in.at_end()) m_in.fail("unexpected )", m_in.src);  // only ')' stops the top level
    out.error = std::move(m_in.error);
    return out;
  }

 private:
  SyntaxNode alternation(Flags& flags, std::size_t depth) {
    SyntaxNode alt;
    alt.kind = SyntaxKind::alternate;
    alt.children.push_back(concat(flags, depth));
    while (!m_in.error && m_in.accept('|')) alt.children.push_back(concat(flags, depth));
    if (alt.children.size() == 1) return std::move(alt.children.front());
    return alt;
  }

  SyntaxNode concat(Flags& flags, std::size_t depth) {
    SyntaxNode seq;
    seq.kind = SyntaxKind::concat;
    while (!m_in.error && !m_in.at_end() && m_in.peek() != '|' && m_in.peek() != ')') {
      std::optional<SyntaxNode> item = atom(flags, depth);
      if (!item) continue;  // a flag group such as (?i), or an error
      repetitions(*item);
      seq.children.push_back(std::move(*item));
    }
    if (seq.children.size() == 1) return std::move(seq.children.front());
    return seq;
  }

  /// Applies the quantifier after an atom; a second one is Go's "invalid nested repetition",
  /// reported with both operators as Go does (`**`).
  void repetitions(SyntaxNode& item) {
    std::optional<std::size_t> first_op;
    while (!m_in.error && !m_in.at_end()) {
      const std::size_t op_start = m_in.pos;
      int min = 0;
      int max = -1;
      if (!quantifier(min, max)) return;
      m_in.accept('?');  // lazy: the same language, so the same yes/no answer
      if (first_op)
        return m_in.fail("invalid nested repetition operator",
                         m_in.src.substr(*first_op, m_in.pos - *first_op));
      first_op = op_start;
      SyntaxNode rep;
      rep.kind = SyntaxKind::repeat;
      rep.min = min;
      rep.max = max;
      rep.children.push_back(std::move(item));
      item = std::move(rep);
    }
  }

  bool quantifier(int& min, int& max) {
    const char c = m_in.peek();
    if (c == '*' || c == '+' || c == '?') {
      ++m_in.pos;
      min = c == '+' ? 1 : 0;
      max = c == '?' ? 1 : -1;
      return true;
    }
    return c == '{' && repeat_count(min, max);
  }

  /// {n}, {n,}, {n,m}; anything else leaves `{` a literal, as Go does. Counts above 1000 are
  /// errors in Go and RE2.
  bool repeat_count(int& min, int& max) {
    std::size_t p = m_in.pos + 1;
    const auto number = [&](int& out) {
      const std::size_t begin = p;
      out = 0;
      while (p < m_in.src.size() && is_decimal_digit(m_in.src[p]) && p - begin < 8)
        out = out * 10 + (m_in.src[p++] - '0');
      return p > begin;
    };
    if (!number(min)) return false;
    max = min;
    if (p < m_in.src.size() && m_in.src[p] == ',') {
      ++p;
      max = -1;
      if (p < m_in.src.size() && m_in.src[p] != '}' && !number(max)) return false;
    }
    if (p >= m_in.src.size() || m_in.src[p] != '}') return false;
    const std::string_view text = m_in.src.substr(m_in.pos, p + 1 - m_in.pos);
    m_in.pos = p + 1;
    if (min > 1000 || max > 1000 || (max >= 0 && max < min)) m_in.fail("invalid repeat count", text);
    return true;
  }

  std::optional<SyntaxNode> atom(Flags& flags, std::size_t depth) {
    const char c = m_in.peek();
    switch (c) {
      case '(':
        return group(flags, depth);
      case '[':
        return parse_class(m_in, flags);
      case '\\':
        return parse_escape(m_in, flags);
      case '.':
        ++m_in.pos;
        if (flags.dot_nl) return chars_node({{0, utf8::k_max_code_point}});
        return chars_node({{0, '\n' - 1}, {'\n' + 1, utf8::k_max_code_point}});
      case '^':
        ++m_in.pos;
        return assertion_node(flags.multiline ? Assertion::begin_line : Assertion::begin_text);
      case '$':
        ++m_in.pos;
        return assertion_node(flags.multiline ? Assertion::end_line : Assertion::end_text);
      case '*':
      case '+':
      case '?':
        m_in.fail("missing argument to repetition operator", m_in.src.substr(m_in.pos, 1));
        return std::nullopt;
      default:
        break;
    }
    const std::size_t start = m_in.pos;
    int min = 0;
    int max = 0;
    if (c == '{' && repeat_count(min, max)) {
      m_in.fail("missing argument to repetition operator", m_in.src.substr(start, m_in.pos - start));
      return std::nullopt;
    }
    return parse_literal(m_in, flags);
  }

  std::optional<SyntaxNode> group(Flags& flags, std::size_t depth) {
    const std::size_t start = m_in.pos++;
    if (depth + 1 > m_limits.max_nesting) {
      m_in.unsupported("regular expression nests deeper than " + std::to_string(m_limits.max_nesting) +
                       " groups");
      return std::nullopt;
    }
    Flags inner = flags;
    if (m_in.accept('?')) {
      if (!group_prefix(flags, inner, start)) return std::nullopt;  // (?i) sets flags and ends here
    }
    SyntaxNode body = alternation(inner, depth + 1);
    if (m_in.error) return std::nullopt;
    if (!m_in.accept(')')) {
      m_in.fail("missing closing )", m_in.src);
      return std::nullopt;
    }
    return body;
  }

  /// After "(?": a name (?P<n>, (?<n>, or flags (?i-s: / (?i). Returns false when nothing
  /// follows (the flags apply to the rest of the enclosing group) or on error.
  bool group_prefix(Flags& outer, Flags& inner, std::size_t start) {
    if (m_in.peek() == 'P' || m_in.peek() == '<') return group_name(start);
    Flags set = outer;
    bool negated = false;
    bool any = false;
    while (!m_in.at_end()) {
      const char c = m_in.src[m_in.pos++];
      if (c == ':' || c == ')') {
        if ((!any && c == ')') || (negated && !any)) break;
        if (c == ')') outer = set;
        inner = set;
        return c == ':';
      }
      if (c == '-' && !negated) {
        negated = true;
        any = false;
        continue;
      }
      bool* flag = c == 'i' ? &set.fold : (c == 'm' ? &set.multiline : (c == 's' ? &set.dot_nl : nullptr));
      if (flag == nullptr && c != 'U') break;
      if (flag != nullptr) *flag = !negated;
      any = true;
    }
    m_in.fail("invalid or unsupported Perl syntax", m_in.src.substr(start, m_in.pos - start));
    return false;
  }

  /// (?P<name> or (?<name>: Go wants a '>' somewhere after it and a word-character name.
  bool group_name(std::size_t start) {
    if (m_in.peek() == 'P') ++m_in.pos;
    if (!m_in.accept('<')) {
      m_in.fail("invalid or unsupported Perl syntax", m_in.src.substr(start, m_in.pos - start));
      return false;
    }
    const std::size_t end = m_in.src.find('>', m_in.pos);
    if (end == std::string_view::npos) {
      m_in.fail("invalid named capture", m_in.src.substr(start));
      return false;
    }
    const std::string_view name = m_in.src.substr(m_in.pos, end - m_in.pos);
    const auto word = [](char c) {
      return is_decimal_digit(c) || c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
    };
    m_in.pos = end + 1;
    if (name.empty() || !std::all_of(name.begin(), name.end(), word)) {
      m_in.fail("invalid named capture", m_in.src.substr(start, m_in.pos - start));
      return false;
    }
    return true;
  }

  const RegexLimits& m_limits;
  Cursor m_in;
};

}  // namespace

SyntaxNode chars_node(std::vector<Range> ranges) {
  SyntaxNode node;
  node.kind = SyntaxKind::chars;
  node.ranges = std::move(ranges);
  return node;
}

SyntaxResult parse_syntax(std::string_view pattern, const RegexLimits& limits) {
  return SyntaxParser(pattern, limits).run();
}

}  // namespace kpt::cel::regex
