#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <variant>

namespace re2 {
class RE2;
}

namespace kpt::cel::regex {

/// Bounds that keep hostile patterns cheap: the pattern's length, and the memory RE2 may use for
/// one pattern's programs and its DFA's cache (RE2's max_mem; past it a pattern does not compile,
/// and a search that fills the cache continues on RE2's NFA, linear still).
struct RegexLimits {
  std::size_t max_pattern_bytes = 10 * 1024;
  std::int64_t max_memory_bytes = std::int64_t{1} << 20;
};

struct RegexError {
  bool unsupported = false;  ///< valid Go syntax past this project's bounds (too long, too large)
  std::string message;       ///< Go's wording: "error parsing regexp: missing closing ]: `[a-z`"
};

/// A compiled Go-regexp pattern (the syntax cel-go's matches() and the API server's OpenAPI
/// `pattern` use), matched by RE2: time linear in the text, no backtracking, so no pattern or
/// input can make it blow up. Go's syntax is RE2's, with three seams this class closes: Go refuses
/// `\C` (RE2's any byte), accepts `(?<name>..)` (RE2 2022 only `(?P<name>..)`), and words its
/// errors its own way (compile() returns Go's words).
class Regex {
 public:
  static std::variant<std::shared_ptr<const Regex>, RegexError> compile(std::string_view pattern,
                                                                        const RegexLimits& limits = {});

  /// True when the pattern matches somewhere in `text` (RE2 PartialMatch, Go MatchString).
  [[nodiscard]] bool search(std::string_view text) const;

  /// The pattern's weight in CEL's cost of one match: its program's instructions, or its length
  /// in bytes when that is more (cel-go charges by length).
  [[nodiscard]] std::size_t size() const { return m_size; }

  Regex(std::unique_ptr<const re2::RE2> re, std::size_t size);
  ~Regex();
  Regex(const Regex&) = delete;
  Regex& operator=(const Regex&) = delete;

 private:
  std::unique_ptr<const re2::RE2> m_re;
  std::size_t m_size = 0;
};

/// The patterns one matches() call of a compiled rule builds at runtime (`s.matches(self.re)`),
/// compiled on first use and kept with the rule, so evaluations share them: the first
/// k_max_entries patterns (compile errors included) are kept, later ones compiled each time.
/// Thread-safe, as a compiled rule is evaluated from several threads at once.
class PatternCache {
 public:
  static constexpr std::size_t k_max_entries = 32;

  std::variant<std::shared_ptr<const Regex>, RegexError> compile(std::string_view pattern);

 private:
  std::mutex m_mutex;
  std::map<std::string, std::variant<std::shared_ptr<const Regex>, RegexError>, std::less<>> m_entries;
};

}  // namespace kpt::cel::regex
