#pragma once

#include <cstdint>

namespace kpt::cel {

/// The runtime cost of one evaluation, in units modelled on cel-go's (interpreter/runtimecost.go,
/// whose per-call limit the API server sets to 1,000,000):
///   - every AST node evaluated: 1; every macro iteration: 1 more;
///   - building a list or map: 1 per element; list concatenation: 1 per element of the result;
///   - string work (concatenation, conversions, startsWith/contains/indexOf/replace/split/...):
///     1 per 10 bytes read or produced;
///   - equality and `in`: 1 per element compared, plus 1 per 16 bytes of strings compared;
///   - matches(): ceil((1 + text bytes) / 10) * ceil(weight / 4), charged before the match runs,
///     as cel-go charges ceil(0.1 (1 + len)) * ceil(0.25 len(pattern)); the weight is the
///     pattern's length or its RE2 program's instructions, whichever is more (a short `a{1000}`
///     is a long program); a pattern built at runtime also costs 1 per 4 bytes to compile.
/// Work is charged before it is done wherever its size is known, so an over-budget operation
/// never runs.
class CostMeter {
 public:
  explicit CostMeter(std::uint64_t limit) : m_limit(limit) {}

  /// Adds `units`; false once the total is over the limit (and from then on).
  bool charge(std::uint64_t units) {
    if (units > m_limit - m_used) {
      m_used = m_limit;
      m_exceeded = true;
    } else {
      m_used += units;
    }
    return !m_exceeded;
  }
  [[nodiscard]] bool exceeded() const { return m_exceeded; }
  /// Units charged, at most the limit.
  [[nodiscard]] std::uint64_t used() const { return m_used; }

  /// ceil(bytes / 10): string work.
  static std::uint64_t for_bytes(std::uint64_t bytes) { return (bytes + 9) / 10; }

 private:
  std::uint64_t m_limit;
  std::uint64_t m_used = 0;  ///< never above m_limit
  bool m_exceeded = false;
};

}  // namespace kpt::cel
