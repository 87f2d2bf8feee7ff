#include "controller/metrics.hpp"

#include <sstream>

namespace kpt::controller {

namespace {
bool is_write(const std::string& verb) {
  return verb == "create" || verb == "update" || verb == "update_status" || verb == "patch" ||
         verb == "delete";
}
}  // namespace

void Metrics::observe_reconcile(const std::string& result, std::chrono::duration<double> latency) {
  std::lock_guard lock(m_mutex);
  ++m_reconciles[result];
  const double s = latency.count();
  for (std::size_t i = 0; i < k_buckets.size(); ++i) {
    if (s <= k_buckets[i]) ++m_latency_buckets[i];
  }
  m_latency_sum += s;
  ++m_latency_count;
}

void Metrics::set_queue_depth(std::size_t depth) {
  std::lock_guard lock(m_mutex);
  m_queue_depth = depth;
}

void Metrics::count_api_request(const std::string& verb, int code) {
  std::lock_guard lock(m_mutex);
  ++m_api[{verb, code}];
}

void Metrics::set_job_state(const std::string& key, const std::string& state) {
  std::lock_guard lock(m_mutex);
  m_job_state[key] = state;
}

void Metrics::forget_job(const std::string& key) {
  std::lock_guard lock(m_mutex);
  m_job_state.erase(key);
}

long Metrics::api_writes() const {
  std::lock_guard lock(m_mutex);
  long n = 0;
  for (const auto& [k, v] : m_api) {
    if (is_write(k.first)) n += v;
  }
  return n;
}

long Metrics::api_requests(const std::string& verb) const {
  std::lock_guard lock(m_mutex);
  long n = 0;
  for (const auto& [k, v] : m_api) {
    if (k.first == verb) n += v;
  }
  return n;
}

std::string Metrics::render() const {
  std::lock_guard lock(m_mutex);
  std::ostringstream o;
  o << "# HELP kpt_controller_reconciles_total Reconcile passes by result.\n"
       "# TYPE kpt_controller_reconciles_total counter\n";
  for (const auto& [result, n] : m_reconciles) {
    o << "kpt_controller_reconciles_total{result=\"" << result << "\"} " << n << "\n";
  }
  o << "# HELP kpt_controller_reconcile_duration_seconds Time of one reconcile pass.\n"
       "# TYPE kpt_controller_reconcile_duration_seconds histogram\n";
  for (std::size_t i = 0; i < k_buckets.size(); ++i) {
    o << "kpt_controller_reconcile_duration_seconds_bucket{le=\"" << k_buckets[i] << "\"} "
      << m_latency_buckets[i] << "\n";
  }
  o << "kpt_controller_reconcile_duration_seconds_bucket{le=\"+Inf\"} " << m_latency_count << "\n"
    << "kpt_controller_reconcile_duration_seconds_sum " << m_latency_sum << "\n"
    << "kpt_controller_reconcile_duration_seconds_count " << m_latency_count << "\n";
  o << "# HELP kpt_controller_workqueue_depth Keys waiting in the work queue.\n"
       "# TYPE kpt_controller_workqueue_depth gauge\n"
    << "kpt_controller_workqueue_depth " << m_queue_depth << "\n";
  o << "# HELP kpt_controller_api_requests_total Kubernetes API requests by verb and HTTP code.\n"
       "# TYPE kpt_controller_api_requests_total counter\n";
  for (const auto& [k, n] : m_api) {
    o << "kpt_controller_api_requests_total{verb=\"" << k.first << "\",code=\"" << k.second << "\"} " << n
      << "\n";
  }
  std::map<std::string, long> states;
  for (const auto& [_, s] : m_job_state) ++states[s];
  o << "# HELP kpt_controller_jobs PyTorchJobs by state (last condition).\n"
       "# TYPE kpt_controller_jobs gauge\n";
  for (const auto& [s, n] : states) o << "kpt_controller_jobs{state=\"" << s << "\"} " << n << "\n";
  return o.str();
}

}  // namespace kpt::controller
