#pragma once

#include "apiserver/status.hpp"

#include <cstdint>
#include <mutex>
#include <optional>
#include <random>
#include <string>

namespace kpt::apiserver {

/// Deterministic, seeded fault injection for tests. Off by default (all zero).
struct FaultPlan {
  std::uint64_t seed = 1;
  double error_rate_500 = 0;  ///< fraction of resource requests answered 500 InternalError
  double error_rate_429 = 0;  ///< fraction answered 429 TooManyRequests with Retry-After
  int retry_after_seconds = 1;
  std::int64_t cut_watch_after_events = 0;  ///< >0: every watch stream ends after this many events
  bool compact_history = false;  ///< compact history before every watch: old resourceVersions get 410
};

/// Draws the faults of a FaultPlan. The same seed and request sequence give the same faults.
class FaultInjector {
 public:
  explicit FaultInjector(FaultPlan plan = {}) : m_plan(plan), m_rng(plan.seed) {}

  /// The fault for the next resource request (discovery and health are never faulted), or nullopt.
  std::optional<Error> next_fault();
  [[nodiscard]] FaultPlan plan() const;
  void set_plan(const FaultPlan& plan);
  /// Faults injected so far.
  [[nodiscard]] std::uint64_t injected() const;

 private:
  mutable std::mutex m_mutex;
  FaultPlan m_plan;
  std::mt19937_64 m_rng;
  std::uint64_t m_injected = 0;
};

}  // namespace kpt::apiserver
