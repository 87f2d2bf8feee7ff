#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

namespace kpt::cel::regex {

/// Bounds that keep hostile patterns cheap: the pattern's length, group nesting, and the size of
/// the compiled program (repetition counts expand it; RE2 and Go cap a count at 1000).
struct RegexLimits {
  std::size_t max_pattern_bytes = 10 * 1024;
  std::size_t max_nesting = 100;
  std::size_t max_instructions = 10'000;
};

struct RegexError {
  bool unsupported = false;  ///< valid RE2 this matcher does not implement (\pL, ...), or too large
  std::string message;       ///< Go's wording: "error parsing regexp: missing closing ]: `[a-z`"
};

struct Range {
  char32_t lo;
  char32_t hi;
};

enum class InstOp : std::uint8_t { match, char_class, split, jump, assertion };
enum class Assertion : std::uint8_t {
  begin_text,
  end_text,
  begin_line,
  end_line,
  word_boundary,
  not_word_boundary
};

struct Inst {
  InstOp op = InstOp::match;
  Assertion assertion = Assertion::begin_text;
  std::uint32_t x = 0;  ///< jump/split: target; char_class: first range
  std::uint32_t y = 0;  ///< split: second target; char_class: one past the last range
};

/// A compiled RE2-syntax pattern, matched by a Thompson NFA simulation (Pike VM): time
/// O(text × program), no backtracking, so no pattern or input can make it blow up.
///
/// Supported (Go regexp/RE2 syntax, which cel-go's matches() uses): literals and escapes
/// (\n, \x41, \x{263a}, \Q..\E, punctuation), `.`, classes with ranges, negation, \d \s \w and
/// their negations, [[:alpha:]] and the other ASCII classes, groups (capturing, (?:..),
/// (?P<name>..)), alternation, * + ? {n} {n,} {n,m} (lazy forms too), ^ $ \A \z \b \B, and the
/// flags i, m, s, U. Not supported (reported as unsupported, never guessed): Unicode classes
/// (\pL, \p{Greek}), \C, and case-insensitive matching of non-ASCII letters.
class Regex {
 public:
  static std::variant<std::shared_ptr<const Regex>, RegexError> compile(std::string_view pattern,
                                                                        const RegexLimits& limits = {});

  /// True when the pattern matches somewhere in `text` (RE2 PartialMatch, Go MatchString).
  [[nodiscard]] bool search(std::string_view text) const;

  /// Instructions in the program: the per-character work of search().
  [[nodiscard]] std::size_t size() const { return m_insts.size(); }

  Regex(std::vector<Inst> insts, std::vector<Range> ranges, bool anchored_start)
      : m_insts(std::move(insts)), m_ranges(std::move(ranges)), m_anchored_start(anchored_start) {}

 private:
  std::vector<Inst> m_insts;
  std::vector<Range> m_ranges;
  bool m_anchored_start = false;  ///< every match begins at the start of the text
};

}  // namespace kpt::cel::regex
