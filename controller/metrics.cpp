#include "controller/metrics.hpp"

#include "controller/process_metrics.hpp"

#include <sstream>

namespace kpt::controller {

namespace {

// controller-runtime's reconcile_time_seconds buckets.
const std::vector<double> k_reconcile_buckets = {0.005, 0.01, 0.025, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3,  0.35,
                                                 0.4,   0.45, 0.5,   0.6,  0.7, 0.8,  0.9, 1.0,  1.25, 1.5,
                                                 1.75,  2.0,  2.5,   3.0,  3.5, 4.0,  4.5, 5,    6,    7,
                                                 8,     9,    10,    15,   20,  25,   30,  40,   50,   60};
// client-go's rest_client_request_duration_seconds buckets.
const std::vector<double> k_request_buckets = {0.005, 0.025, 0.1, 0.25, 0.5,  1.0,
                                               2.0,   4.0,   8.0, 15.0, 30.0, 60.0};

bool is_write(const std::string& verb) {
  return verb == "create" || verb == "update" || verb == "update_status" || verb == "patch" ||
         verb == "delete";
}

/// The HTTP method of an ApiClient verb, as client-go's rest_client_requests_total labels it.
const char* method_of(const std::string& verb) {
  if (verb == "create") return "POST";
  if (verb == "update" || verb == "update_status") return "PUT";
  if (verb == "patch") return "PATCH";
  if (verb == "delete") return "DELETE";
  return "GET";
}

/// A label value as the text format escapes it (backslash, double quote, newline).
std::string esc(const std::string& value) {
  std::string out;
  for (const char c : value) {
    if (c == '\\' || c == '"') out += '\\';
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out += c;
  }
  return out;
}

void header(std::ostringstream& o, const char* name, const char* help, const char* type) {
  o << "# HELP " << name << " " << help << "\n# TYPE " << name << " " << type << "\n";
}

/// A histogram's _bucket, _sum and _count lines; `labels` is "" or `a="b",` (with the comma).
void histogram_lines(std::ostringstream& o, const char* name, const std::string& labels, const Histogram& h) {
  long cumulative = 0;
  for (std::size_t i = 0; i < h.buckets.size(); ++i) {
    cumulative += h.counts[i];
    o << name << "_bucket{" << labels << "le=\"" << h.buckets[i] << "\"} " << cumulative << "\n";
  }
  o << name << "_bucket{" << labels << "le=\"+Inf\"} " << h.count << "\n";
  const std::string plain = labels.empty() ? "" : "{" + labels.substr(0, labels.size() - 1) + "}";
  o << name << "_sum" << plain << " " << h.sum << "\n" << name << "_count" << plain << " " << h.count << "\n";
}

}  // namespace

void Histogram::observe(double value) {
  for (std::size_t i = 0; i < buckets.size(); ++i) {
    if (value <= buckets[i]) {
      ++counts[i];
      break;
    }
  }
  sum += value;
  ++count;
}

Metrics::Metrics() {
  for (const char* controller : {"pytorchjob", "trainjob"}) {
    // As controller-runtime does, every result exists from the start at 0.
    for (const char* result : {"success", "error", "requeue", "requeue_after"})
      m_reconciles[{controller, result}] = 0;
    m_reconcile_time.emplace(controller, Histogram(k_reconcile_buckets));
  }
}

void Metrics::observe_reconcile(const std::string& controller, const std::string& result,
                                std::chrono::duration<double> took) {
  std::lock_guard lock(m_mutex);
  ++m_reconciles[{controller, result}];
  m_reconcile_time.try_emplace(controller, k_reconcile_buckets).first->second.observe(took.count());
}

void Metrics::set_workers(const std::string& controller, int max, int active) {
  std::lock_guard lock(m_mutex);
  m_workers[controller] = {max, active};
}

void Metrics::add_active_worker(const std::string& controller, int delta) {
  std::lock_guard lock(m_mutex);
  m_workers[controller].second += delta;
}

void Metrics::set_queue_depth(const std::string& queue, std::size_t depth) {
  std::lock_guard lock(m_mutex);
  m_queue_depth[queue] = depth;
}

void Metrics::count_queue_add(const std::string& queue) {
  std::lock_guard lock(m_mutex);
  ++m_queue_adds[queue];
}

void Metrics::count_queue_retry(const std::string& queue) {
  std::lock_guard lock(m_mutex);
  ++m_queue_retries[queue];
}

void Metrics::count_api_request(const std::string& verb, const std::string& resource, int code,
                                std::optional<std::chrono::duration<double>> took) {
  std::lock_guard lock(m_mutex);
  ++m_api[{verb, resource, code}];
  if (took) m_api_time.try_emplace({verb, resource}, k_request_buckets).first->second.observe(took->count());
}

void Metrics::set_leader(const std::string& lease, bool leading) {
  std::lock_guard lock(m_mutex);
  m_leader[lease] = leading;
}

void Metrics::set_build_info(const std::string& version, const std::string& revision) {
  std::lock_guard lock(m_mutex);
  m_build = {version, revision};
}

void Metrics::count_job(const std::string& event, const std::string& ns, const std::string& kind) {
  std::lock_guard lock(m_mutex);
  ++m_jobs[{event, ns, kind}];
}

void Metrics::set_job_state(const std::string& kind, const std::string& key, const std::string& state) {
  std::lock_guard lock(m_mutex);
  m_job_state[{kind, key}] = state;
}

void Metrics::forget_job(const std::string& kind, const std::string& key) {
  std::lock_guard lock(m_mutex);
  m_job_state.erase({kind, key});
}

void Metrics::set_kind_state(const std::string& kind, const std::string& state) {
  std::lock_guard lock(m_mutex);
  m_kind_state[kind] = state;
}

long Metrics::api_writes() const {
  std::lock_guard lock(m_mutex);
  long n = 0;
  for (const auto& [k, v] : m_api) {
    if (is_write(std::get<0>(k))) n += v;
  }
  return n;
}

long Metrics::jobs_counted(const std::string& event, const std::string& kind) const {
  std::lock_guard lock(m_mutex);
  long n = 0;
  for (const auto& [k, v] : m_jobs) {
    if (std::get<0>(k) == event && std::get<2>(k) == kind) n += v;
  }
  return n;
}

std::string Metrics::render() const {
  std::lock_guard lock(m_mutex);
  std::ostringstream o;
  o.precision(17);
  header(o, "controller_runtime_reconcile_total", "Total number of reconciliations per controller",
         "counter");
  for (const auto& [k, n] : m_reconciles)
    o << "controller_runtime_reconcile_total{controller=\"" << k.first << "\",result=\"" << k.second << "\"} "
      << n << "\n";
  header(o, "controller_runtime_reconcile_errors_total",
         "Total number of reconciliation errors per controller", "counter");
  for (const auto& [controller, _] : m_reconcile_time) {
    long errors = 0;
    for (const char* result : {"error", "requeue"}) {
      const auto it = m_reconciles.find({controller, result});
      if (it != m_reconciles.end()) errors += it->second;
    }
    o << "controller_runtime_reconcile_errors_total{controller=\"" << controller << "\"} " << errors << "\n";
  }
  header(o, "controller_runtime_reconcile_time_seconds", "Length of time per reconciliation per controller",
         "histogram");
  for (const auto& [controller, h] : m_reconcile_time)
    histogram_lines(o, "controller_runtime_reconcile_time_seconds", "controller=\"" + controller + "\",", h);
  header(o, "controller_runtime_max_concurrent_reconciles",
         "Maximum number of concurrent reconciles per controller", "gauge");
  for (const auto& [controller, w] : m_workers)
    o << "controller_runtime_max_concurrent_reconciles{controller=\"" << controller << "\"} " << w.first
      << "\n";
  header(o, "controller_runtime_active_workers", "Number of currently used workers per controller", "gauge");
  for (const auto& [controller, w] : m_workers)
    o << "controller_runtime_active_workers{controller=\"" << controller << "\"} " << w.second << "\n";

  header(o, "workqueue_depth", "Current depth of workqueue", "gauge");
  for (const auto& [q, d] : m_queue_depth) o << "workqueue_depth{name=\"" << q << "\"} " << d << "\n";
  header(o, "workqueue_adds_total", "Total number of adds handled by workqueue", "counter");
  for (const auto& [q, n] : m_queue_adds) o << "workqueue_adds_total{name=\"" << q << "\"} " << n << "\n";
  header(o, "workqueue_retries_total", "Total number of retries handled by workqueue", "counter");
  for (const auto& [q, n] : m_queue_retries)
    o << "workqueue_retries_total{name=\"" << q << "\"} " << n << "\n";

  header(o, "rest_client_requests_total",
         "Number of HTTP requests, partitioned by status code, method and resource (code 0: no answer).",
         "counter");
  for (const auto& [k, n] : m_api) {
    const auto& [verb, resource, code] = k;
    o << "rest_client_requests_total{code=\"" << code << "\",method=\"" << method_of(verb) << "\",resource=\""
      << esc(resource) << "\",verb=\"" << verb << "\"} " << n << "\n";
  }
  header(o, "rest_client_request_duration_seconds",
         "Request latency in seconds. Broken down by verb and resource.", "histogram");
  for (const auto& [k, h] : m_api_time)
    histogram_lines(o, "rest_client_request_duration_seconds",
                    "resource=\"" + esc(k.second) + "\",verb=\"" + k.first + "\",", h);

  header(o, "leader_election_master_status",
         "Gauge of if the reporting system is master of the relevant lease, 0 indicates backup, 1 indicates "
         "master.",
         "gauge");
  for (const auto& [lease, leading] : m_leader)
    o << "leader_election_master_status{name=\"" << esc(lease) << "\"} " << (leading ? 1 : 0) << "\n";
  header(o, "kpt_controller_build_info", "The version and commit of the running kubectl-pytorch controller.",
         "gauge");
  o << "kpt_controller_build_info{revision=\"" << esc(m_build.second) << "\",version=\"" << esc(m_build.first)
    << "\"} 1\n";

  static constexpr const char* k_job_events[][2] = {
      {"created", "Counts number of jobs seen created (each again after a restart of the controller)"},
      {"deleted", "Counts number of jobs deleted"},
      {"successful", "Counts number of jobs that succeeded"},
      {"failed", "Counts number of jobs that failed"},
      {"restarted", "Counts number of job restarts"}};
  for (const auto& [event, help] : k_job_events) {
    const std::string name = std::string("kpt_controller_jobs_") + event + "_total";
    header(o, name.c_str(), help, "counter");
    for (const auto& [k, n] : m_jobs) {
      if (std::get<0>(k) != event) continue;
      o << name << "{job_namespace=\"" << esc(std::get<1>(k)) << "\",kind=\"" << std::get<2>(k) << "\"} " << n
        << "\n";
    }
  }
  std::map<std::pair<std::string, std::string>, long> states;
  for (const auto& [k, s] : m_job_state) ++states[{k.first, s}];
  header(o, "kpt_controller_jobs", "Jobs this controller reconciles, by kind and state (last condition).",
         "gauge");
  for (const auto& [k, n] : states)
    o << "kpt_controller_jobs{kind=\"" << k.first << "\",state=\"" << esc(k.second) << "\"} " << n << "\n";
  header(o, "kpt_controller_kind_state",
         "1 for the state each kind is in: reconciling, waiting (caches filling), forbidden (RBAC), blocked "
         "(another controller runs its jobs).",
         "gauge");
  for (const auto& [kind, state] : m_kind_state) {
    for (const char* s : {"reconciling", "waiting", "forbidden", "blocked"})
      o << "kpt_controller_kind_state{kind=\"" << kind << "\",state=\"" << s << "\"} " << (state == s ? 1 : 0)
        << "\n";
  }
  o << process_metrics_text();
  return o.str();
}

}  // namespace kpt::controller
