#pragma once

#include <array>
#include <chrono>
#include <map>
#include <mutex>
#include <string>

namespace kpt::controller {

/// The controller's Prometheus metrics: reconciles and their latency, queue depth, API requests
/// by verb and code, jobs by state. Thread-safe; render() gives the text exposition format.
class Metrics {
 public:
  void observe_reconcile(const std::string& result, std::chrono::duration<double> latency);
  void set_queue_depth(std::size_t depth);
  void count_api_request(const std::string& verb, int code);
  void set_job_state(const std::string& key, const std::string& state);
  void forget_job(const std::string& key);

  /// Requests with a write verb (create, update, update_status, patch, delete).
  [[nodiscard]] long api_writes() const;
  [[nodiscard]] long api_requests(const std::string& verb) const;
  [[nodiscard]] std::string render() const;

 private:
  static constexpr std::array<double, 12> k_buckets{0.001, 0.0025, 0.005, 0.01, 0.025, 0.05,
                                                    0.1,   0.25,   0.5,   1.0,  2.5,   10.0};
  mutable std::mutex m_mutex;
  std::map<std::string, long> m_reconciles;  ///< by result
  std::array<long, k_buckets.size()> m_latency_buckets{};
  double m_latency_sum = 0;
  long m_latency_count = 0;
  std::size_t m_queue_depth = 0;
  std::map<std::pair<std::string, int>, long> m_api;
  std::map<std::string, std::string> m_job_state;
};

}  // namespace kpt::controller
