#pragma once

#include <array>
#include <chrono>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

namespace kpt::controller {

/// A Prometheus histogram's counts (cumulative at render time).
struct Histogram {
  explicit Histogram(std::vector<double> bounds = {}) : buckets(std::move(bounds)), counts(buckets.size()) {}
  void observe(double value);
  std::vector<double> buckets;
  std::vector<long> counts;  ///< per bucket, not cumulative
  double sum = 0;
  long count = 0;
};

/// The controller's Prometheus metrics, named as controller-runtime and client-go name theirs so
/// that dashboards and alerts written for those work (docs/controller.md lists every family):
/// reconciles per controller (pytorchjob, trainjob) by result with their time, the work queues,
/// REST requests by code, method and resource with their latency, leader status, build info, the
/// process, job outcomes by namespace and kind as the Training Operator counts them, jobs by
/// state, and which kinds the controller can reconcile. Thread-safe; render() gives the text
/// exposition format (version 0.0.4).
class Metrics {
 public:
  Metrics();

  /// One reconcile of `controller` ("pytorchjob", "trainjob"): result is success, error,
  /// requeue (a retried error) or requeue_after.
  void observe_reconcile(const std::string& controller, const std::string& result,
                         std::chrono::duration<double> took);
  void set_workers(const std::string& controller, int max, int active);
  void add_active_worker(const std::string& controller, int delta);
  void set_queue_depth(const std::string& queue, std::size_t depth);
  void count_queue_add(const std::string& queue);
  void count_queue_retry(const std::string& queue);
  /// One API request: `verb` as the ApiClient names it (get, list, watch, create, update,
  /// update_status, patch, delete), `code` the HTTP status (0: no answer), `took` its latency
  /// (nothing for watches, which stay open).
  void count_api_request(const std::string& verb, const std::string& resource, int code,
                         std::optional<std::chrono::duration<double>> took = std::nullopt);
  void set_leader(const std::string& lease, bool leading);
  void set_build_info(const std::string& version, const std::string& revision);
  /// A job outcome like the operator's training_operator_jobs_<event>_total: created, deleted,
  /// successful, failed, restarted.
  void count_job(const std::string& event, const std::string& ns, const std::string& kind);
  void set_job_state(const std::string& kind, const std::string& key, const std::string& state);
  void forget_job(const std::string& kind, const std::string& key);
  /// Whether the controller reconciles `kind` ("pytorchjobs", "trainjobs") and, if not, why in one word
  /// (reconciling, waiting, forbidden, blocked).
  void set_kind_state(const std::string& kind, const std::string& state);

  /// Requests with a write verb (create, update, update_status, patch, delete).
  [[nodiscard]] long api_writes() const;
  [[nodiscard]] long jobs_counted(const std::string& event, const std::string& kind) const;
  [[nodiscard]] std::string render() const;

 private:
  mutable std::mutex m_mutex;
  std::map<std::pair<std::string, std::string>, long> m_reconciles;  ///< {controller, result}
  std::map<std::string, Histogram> m_reconcile_time;                 ///< by controller
  std::map<std::string, std::pair<int, int>> m_workers;              ///< controller -> {max, active}
  std::map<std::string, std::size_t> m_queue_depth;
  std::map<std::string, long> m_queue_adds;
  std::map<std::string, long> m_queue_retries;
  std::map<std::tuple<std::string, std::string, int>, long> m_api;      ///< {verb, resource, code}
  std::map<std::pair<std::string, std::string>, Histogram> m_api_time;  ///< {verb, resource}
  std::map<std::string, bool> m_leader;
  std::pair<std::string, std::string> m_build{"", ""};
  std::map<std::tuple<std::string, std::string, std::string>, long> m_jobs;  ///< {event, ns, kind}
  std::map<std::pair<std::string, std::string>, std::string> m_job_state;    ///< {kind, key} -> state
  std::map<std::string, std::string> m_kind_state;
};

}  // namespace kpt::controller
