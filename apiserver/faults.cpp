#include "apiserver/faults.hpp"

namespace kpt::apiserver {

std::optional<Error> FaultInjector::next_fault() {
  std::lock_guard lock(m_mutex);
  if (m_plan.error_rate_500 <= 0 && m_plan.error_rate_429 <= 0) return std::nullopt;
  std::uniform_real_distribution<double> dist(0.0, 1.0);
  const double draw = dist(m_rng);
  if (draw < m_plan.error_rate_500) {
    ++m_injected;
    return make_api_error(500, "InternalError", "Internal error occurred: injected fault");
  }
  if (draw < m_plan.error_rate_500 + m_plan.error_rate_429) {
    ++m_injected;
    ErrorDetails details;
    details.retry_after_seconds = m_plan.retry_after_seconds;
    return make_api_error(429, "TooManyRequests",
                          "the server has received too many requests and has asked us to try again later",
                          std::move(details));
  }
  return std::nullopt;
}

FaultPlan FaultInjector::plan() const {
  std::lock_guard lock(m_mutex);
  return m_plan;
}

void FaultInjector::set_plan(const FaultPlan& plan) {
  std::lock_guard lock(m_mutex);
  m_plan = plan;
  m_rng.seed(plan.seed);
}

std::uint64_t FaultInjector::injected() const {
  std::lock_guard lock(m_mutex);
  return m_injected;
}

}  // namespace kpt::apiserver
