#include "schema/cel/regex.hpp"

#include "schema/cel/utf8.hpp"

#include <re2/re2.h>

#include <algorithm>
#include <utility>
#include <vector>

namespace kpt::cel::regex {

namespace {

/// Go's regexp/syntax ErrorCode text for each RE2 error code.
std::string_view go_error_words(RE2::ErrorCode code) {
  switch (code) {
    case RE2::ErrorBadEscape:
      return "invalid escape sequence";
    case RE2::ErrorBadCharClass:
      return "invalid character class";
    case RE2::ErrorBadCharRange:
      return "invalid character class range";
    case RE2::ErrorMissingBracket:
      return "missing closing ]";
    case RE2::ErrorMissingParen:
      return "missing closing )";
    case RE2::ErrorUnexpectedParen:
      return "unexpected )";
    case RE2::ErrorTrailingBackslash:
      return "trailing backslash at end of expression";
    case RE2::ErrorRepeatArgument:
      return "missing argument to repetition operator";
    case RE2::ErrorRepeatSize:
      return "invalid repeat count";
    case RE2::ErrorRepeatOp:
      return "invalid nested repetition operator";
    case RE2::ErrorBadPerlOp:
      return "invalid or unsupported Perl syntax";
    case RE2::ErrorBadUTF8:
      return "invalid UTF-8";
    case RE2::ErrorBadNamedCapture:
      return "invalid named capture";
    default:
      return "internal error";
  }
}

RegexError go_syntax_error(std::string_view words, std::string_view expr) {
  return RegexError{false, "error parsing regexp: " + std::string(words) + ": `" + std::string(expr) + "`"};
}

/// Go's first check (regexp/syntax checkUTF8): the pattern from its first invalid byte, or npos.
std::size_t first_invalid_utf8(std::string_view pattern) {
  for (std::size_t pos = 0; pos < pattern.size();) {
    const std::size_t at = pos;
    if (utf8::decode(pattern, pos) == utf8::k_replacement && pos == at + 1) return at;
  }
  return std::string_view::npos;
}

/// The pattern as RE2 reads Go's syntax: `(?<` becomes `(?P<` (Go 1.22's named groups, which this
/// RE2 does not know), `\C` becomes `\Z` (refused by both, so RE2 stops where Go does). Each edit
/// is remembered, so an error's text can be given back in the pattern's own spelling.
class GoToRe2 {
 public:
  explicit GoToRe2(std::string_view pattern) {
    m_text.reserve(pattern.size() + 8);
    bool quoted = false;  // inside \Q...\E: every byte is literal
    bool in_class = false;
    for (std::size_t i = 0; i < pattern.size(); ++i) {
      const char c = pattern[i];
      const std::string_view rest = pattern.substr(i);
      if (quoted) {
        if (rest.substr(0, 2) == "\\E") {
          quoted = false;
          m_text += "\\E";
          ++i;
        } else {
          m_text += c;
        }
        continue;
      }
      if (c == '\\' && rest.size() >= 2) {
        m_text += '\\';
        if (rest[1] == 'C') {
          m_edits.push_back({m_text.size(), 'C'});
          m_text += 'Z';
        } else {
          m_text += rest[1];
          quoted = rest[1] == 'Q' && !in_class;
        }
        ++i;
        continue;
      }
      if (in_class) {
        if (rest.substr(0, 2) == "[:") {
          const std::size_t end = rest.find(":]", 2);
          const std::size_t stop = end == std::string_view::npos ? 1 : end + 2;
          m_text += rest.substr(0, stop);
          i += stop - 1;
          continue;
        }
        in_class = c != ']';
        m_text += c;
        continue;
      }
      if (c == '[') {
        in_class = true;
        // A `]` first in the class (after an optional `^`) is a literal.
        std::size_t stop = 1;
        if (rest.size() > stop && rest[stop] == '^') ++stop;
        if (rest.size() > stop && rest[stop] == ']') ++stop;
        m_text += rest.substr(0, stop);
        i += stop - 1;
        continue;
      }
      if (rest.size() > 3 && rest.substr(0, 3) == "(?<") {
        m_text += "(?";
        m_edits.push_back({m_text.size(), '\0'});
        m_text += "P<";
        i += 2;
        continue;
      }
      m_text += c;
    }
  }

  [[nodiscard]] const std::string& text() const { return m_text; }

  /// `expr`, a piece of text() RE2 quotes in an error, as the pattern spelt it.
  [[nodiscard]] std::string original(const std::string& expr) const {
    const std::size_t at = m_text.find(expr);
    if (at == std::string::npos || m_edits.empty()) return expr;
    std::string out;
    for (std::size_t i = at; i < at + expr.size(); ++i) {
      const auto edit =
          std::find_if(m_edits.begin(), m_edits.end(), [&](const Edit& e) { return e.at == i; });
      if (edit == m_edits.end()) {
        out += m_text[i];
      } else if (edit->was != '\0') {
        out += edit->was;
      }
    }
    return out;
  }

 private:
  struct Edit {
    std::size_t at;  ///< the index in m_text of the byte that was changed or inserted
    char was;        ///< the byte it replaced, or '\0' when it was inserted
  };
  std::string m_text;
  std::vector<Edit> m_edits;
};

}  // namespace

Regex::Regex(std::unique_ptr<const re2::RE2> re, std::size_t size) : m_re(std::move(re)), m_size(size) {}

Regex::~Regex() = default;

std::variant<std::shared_ptr<const Regex>, RegexError> Regex::compile(std::string_view pattern,
                                                                      const RegexLimits& limits) {
  if (pattern.size() > limits.max_pattern_bytes) {
    return RegexError{
        true, "regular expression longer than " + std::to_string(limits.max_pattern_bytes) + " bytes"};
  }
  if (const std::size_t bad = first_invalid_utf8(pattern); bad != std::string_view::npos)
    return go_syntax_error("invalid UTF-8", pattern.substr(bad));
  const GoToRe2 rewritten(pattern);
  RE2::Options options;
  options.set_log_errors(false);
  options.set_max_mem(limits.max_memory_bytes);
  auto re = std::make_unique<const RE2>(rewritten.text(), options);
  if (re->error_code() == RE2::ErrorPatternTooLarge) {
    return RegexError{true, "regular expression larger than RE2 may compile in " +
                                std::to_string(limits.max_memory_bytes) + " bytes"};
  }
  if (!re->ok())
    return go_syntax_error(go_error_words(re->error_code()), rewritten.original(re->error_arg()));
  const auto size = std::max(static_cast<std::size_t>(std::max(re->ProgramSize(), 0)), pattern.size());
  return std::make_shared<const Regex>(std::move(re), size);
}

std::variant<std::shared_ptr<const Regex>, RegexError> PatternCache::compile(std::string_view pattern) {
  {
    const std::lock_guard lock(m_mutex);
    if (const auto it = m_entries.find(pattern); it != m_entries.end()) return it->second;
  }
  auto compiled = Regex::compile(pattern);  // outside the lock: other patterns need not wait
  const std::lock_guard lock(m_mutex);
  if (m_entries.size() < k_max_entries) m_entries.emplace(std::string(pattern), compiled);
  return compiled;
}

bool Regex::search(std::string_view text) const {
  return RE2::PartialMatch(re2::StringPiece(text.data(), text.size()), *m_re);
}

}  // namespace kpt::cel::regex
