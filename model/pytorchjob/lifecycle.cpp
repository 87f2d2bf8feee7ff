#include "model/pytorchjob/lifecycle.hpp"

#include <algorithm>
#include <cctype>

namespace kpt::model::pytorchjob {

namespace {

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

struct Counts {
  int active = 0;
  int succeeded = 0;
  int failed = 0;
};

/// Builds one pass's decision; keeps the steps of decide_lifecycle small and named.
class Pass {
 public:
  Pass(const JobPolicy& job, const JobStatus& old_status, const std::vector<PodObservation>& pods,
       const std::vector<std::string>& services, util::Time now)
      : m_job(job), m_pods(pods), m_services(services), m_now(now) {
    m_d.status = old_status;
    m_d.recreations = job.recreations;
    for (const auto& p : pods) {  // a counted pod that is gone needs no remembering
      if (job.counted_pods.count(p.uid) != 0) m_d.counted_pods.insert(p.uid);
    }
  }

  LifecycleDecision run() {
    if (is_finished(m_d.status)) {
      clean_up(m_job.clean_pod_policy);
      schedule_ttl();
      return std::move(m_d);
    }
    if (m_job.suspend) {
      suspend();
      return std::move(m_d);
    }
    start();
    if (deadline_passed()) return std::move(m_d);
    count();
    if (handle_failures()) return std::move(m_d);
    if (succeeded()) return std::move(m_d);
    update_running();
    m_d.create_missing = true;
    return std::move(m_d);
  }

 private:
  void event(const std::string& type, const std::string& reason, const std::string& message) {
    m_d.events.push_back({type, reason, message});
  }
  [[nodiscard]] std::string job_text() const { return "PyTorchJob " + m_job.name; }

  void delete_pod(const PodObservation& p) {
    if (!p.deleting) m_d.delete_pods.push_back(p.name);
  }
  void delete_service(const std::string& name) {
    if (std::find(m_services.begin(), m_services.end(), name) != m_services.end() &&
        std::find(m_d.delete_services.begin(), m_d.delete_services.end(), name) ==
            m_d.delete_services.end()) {
      m_d.delete_services.push_back(name);
    }
  }

  /// cleanPodPolicy, applied on every way a job ends (the v1.9.4 behaviour, #3419).
  void clean_up(CleanPodPolicy policy) {
    if (policy == CleanPodPolicy::none) return;
    for (const auto& p : m_pods) {
      const bool live = p.phase == "Running" || p.phase == "Pending" || p.phase == "Unknown";
      if (policy == CleanPodPolicy::all || live) {
        delete_pod(p);
        delete_service(p.name);
      }
    }
    if (policy == CleanPodPolicy::all) {
      for (const auto& s : m_services) delete_service(s);
    }
  }

  void schedule_ttl() {
    if (!m_job.ttl_seconds_after_finished || !m_d.status.completion_time) return;
    const auto done = util::parse_time(*m_d.status.completion_time);
    if (!done) return;
    const auto expire = *done + std::chrono::seconds{*m_job.ttl_seconds_after_finished};
    if (m_now >= expire) {
      m_d.delete_job = true;
    } else {
      m_d.requeue_after_seconds = (expire - m_now).count();
    }
  }

  void ensure_created() {
    if (find_condition(m_d.status, "Created") != nullptr) return;
    const auto msg = job_text() + " is created.";
    set_condition(m_d.status, "Created", "True", k_reason_created, msg, m_now);
    event("Normal", k_reason_created, msg);
  }

  void ensure_replica_statuses() {
    for (const auto& [rtype, _] : m_job.replicas) {
      auto& rs = m_d.status.replica_statuses[rtype];
      rs.selector = replica_selector(m_job.name, rtype);
    }
  }

  void suspend() {
    ensure_created();
    ensure_replica_statuses();
    for (const auto& p : m_pods) delete_pod(p);
    for (const auto& s : m_services) delete_service(s);
    for (auto& [_, rs] : m_d.status.replica_statuses) rs.active = 0;
    if (has_true_condition(m_d.status, "Suspended")) return;
    const auto msg = job_text() + " is suspended.";
    if (has_true_condition(m_d.status, "Running")) {
      set_condition(m_d.status, "Running", "False", k_reason_suspended, msg, m_now);
    }
    set_condition(m_d.status, "Suspended", "True", k_reason_suspended, msg, m_now);
    event("Normal", k_reason_suspended, msg);
  }

  void start() {
    ensure_created();
    ensure_replica_statuses();
    if (has_true_condition(m_d.status, "Suspended")) {
      const auto msg = job_text() + " is resumed.";
      set_condition(m_d.status, "Suspended", "False", k_reason_resumed, msg, m_now);
      event("Normal", k_reason_resumed, msg);
      m_d.status.start_time = util::format_time(m_now);  // a resumed job's deadline starts again
    }
    if (!m_d.status.start_time) m_d.status.start_time = util::format_time(m_now);
  }

  void finish(const std::string& type, const std::string& reason, const std::string& message) {
    set_condition(m_d.status, type, "True", reason, message, m_now);
    m_d.status.completion_time = util::format_time(m_now);
    event(type == "Failed" ? "Warning" : "Normal", reason, message);
    m_d.create_missing = false;
    clean_up(m_job.clean_pod_policy);
    schedule_ttl();
  }

  bool deadline_passed() {
    if (!m_job.active_deadline_seconds) return false;
    const auto started = util::parse_time(*m_d.status.start_time);
    if (!started) return false;
    const auto deadline = *started + std::chrono::seconds{*m_job.active_deadline_seconds};
    if (m_now >= deadline) {
      count();
      finish("Failed", k_reason_failed, job_text() + " was active longer than specified deadline");
      return true;
    }
    m_d.requeue_after_seconds = (deadline - m_now).count();
    return false;
  }

  void count() {
    std::map<std::string, Counts> counts;
    for (const auto& [rtype, _] : m_job.replicas) counts[rtype];
    for (const auto& p : m_pods) {
      if (p.deleting || m_job.replicas.count(p.replica_type) == 0) continue;
      auto& c = counts[p.replica_type];
      if (p.phase == "Running") ++c.active;
      if (p.phase == "Succeeded") ++c.succeeded;
      if (p.phase == "Failed") ++c.failed;
    }
    for (const auto& [rtype, c] : counts) {
      auto& rs = m_d.status.replica_statuses[rtype];
      rs.active = c.active;
      rs.succeeded = c.succeeded;
      rs.failed = c.failed;
    }
  }

  /// Restarts what may restart, counting every restart and re-creation against backoffLimit.
  /// Returns true when the job failed.
  bool handle_failures() {
    const auto backoff_message =
        job_text() + " has failed because it has reached the specified backoff limit";
    const RetryCount count = count_retries(m_job, m_pods);  // m_d.recreations is still the job's
    int retries = count.total();
    if (past_backoff_limit(m_job, count)) {
      finish("Failed", k_reason_failed, backoff_message);
      return true;
    }
    std::map<std::string, int> permanent;
    std::map<std::string, int> restarting;
    std::vector<const PodObservation*> restart;
    for (const auto& p : m_pods) {
      const auto it = m_job.replicas.find(p.replica_type);
      if (p.deleting || p.phase != "Failed" || it == m_job.replicas.end()) continue;
      if (!is_retryable(it->second.restart_policy, p.exit_code)) {
        ++permanent[p.replica_type];
        continue;
      }
      ++restarting[p.replica_type];
      restart.push_back(&p);
      if (m_job.counted_pods.count(p.uid) != 0) continue;  // counted by a pass that did not finish
      if (m_job.backoff_limit && retries + 1 > *m_job.backoff_limit) {
        finish("Failed", k_reason_failed, backoff_message);
        return true;
      }
      ++retries;
      ++m_d.recreations;
      m_d.counted_pods.insert(p.uid);
    }
    if (!permanent.empty()) {
      const auto& [rtype, k] = *permanent.begin();
      finish("Failed", k_reason_failed,
             job_text() + " is failed because " + std::to_string(k) + " " + rtype + " replica(s) failed.");
      return true;
    }
    if (restarting.empty()) return false;
    for (const auto* p : restart) delete_pod(*p);
    const auto& [rtype, k] = *restarting.begin();
    const auto msg =
        job_text() + " is restarting because " + std::to_string(k) + " " + rtype + " replica(s) failed.";
    if (set_condition(m_d.status, "Restarting", "True", k_reason_restarting, msg, m_now)) {
      event("Warning", k_reason_restarting, msg);
    }
    m_d.create_missing = true;
    return true;
  }

  bool succeeded() {
    const auto& rs = m_d.status.replica_statuses;
    bool done = false;
    if (const auto master = m_job.replicas.find("Master"); master != m_job.replicas.end()) {
      done = rs.at("Master").succeeded >= master->second.replicas;  // workers are ignored (#1982)
    } else if (const auto worker = m_job.replicas.find("Worker"); worker != m_job.replicas.end()) {
      const int ok = rs.at("Worker").succeeded;
      done = m_job.elastic ? ok > 0 : ok >= worker->second.replicas;
    }
    if (!done) return false;
    for (auto& [_, r] : m_d.status.replica_statuses) {
      r.succeeded += r.active;
      r.active = 0;
    }
    finish("Succeeded", k_reason_succeeded, job_text() + " is successfully completed.");
    return true;
  }

  void update_running() {
    const auto& rs = m_d.status.replica_statuses;
    const auto leader = m_job.replicas.count("Master") != 0 ? "Master" : "Worker";
    const auto it = rs.find(leader);
    if (it == rs.end() || it->second.active == 0) return;
    const auto msg = job_text() + " is running.";
    if (set_condition(m_d.status, "Running", "True", k_reason_running, msg, m_now)) {
      event("Normal", k_reason_running, msg);
    }
  }

  const JobPolicy& m_job;
  const std::vector<PodObservation>& m_pods;
  const std::vector<std::string>& m_services;
  util::Time m_now;
  LifecycleDecision m_d;
};

}  // namespace

RetryCount count_retries(const JobPolicy& job, const std::vector<PodObservation>& pods) {
  RetryCount count;
  count.recreations = job.recreations;
  for (const auto& p : pods) {
    const auto it = job.replicas.find(p.replica_type);
    if (!p.deleting && it != job.replicas.end() && it->second.restart_policy != RestartPolicy::never)
      count.in_place += p.restart_count;
  }
  return count;
}

bool past_backoff_limit(const JobPolicy& job, const RetryCount& retries) {
  return job.backoff_limit && restarts_left(*job.backoff_limit, retries) == 0;
}

int restarts_left(int limit, const RetryCount& retries) {
  // The limit is spent by whichever comes first: in-place restarts reaching it (the operator),
  // any restart for a limit of 0, or all retries, re-creations included, passing it.
  const long long by_in_place = std::max(1LL, static_cast<long long>(limit)) - retries.in_place;
  const long long by_total =
      static_cast<long long>(limit) + 1 - retries.in_place - static_cast<long long>(retries.recreations);
  return static_cast<int>(std::max(0LL, std::min(by_in_place, by_total)));
}

bool is_retryable(RestartPolicy policy, std::optional<int> exit_code) {
  switch (policy) {
    case RestartPolicy::always:
    case RestartPolicy::on_failure:
      return true;
    case RestartPolicy::never:
      return false;
    case RestartPolicy::exit_code:
      return exit_code.has_value() && *exit_code >= 128;
  }
  return false;
}

const Condition* find_condition(const JobStatus& status, const std::string& type) {
  for (const auto& c : status.conditions) {
    if (c.type == type) return &c;
  }
  return nullptr;
}

bool has_true_condition(const JobStatus& status, const std::string& type) {
  const auto* c = find_condition(status, type);
  return c != nullptr && c->status == "True";
}

bool is_finished(const JobStatus& status) {
  return has_true_condition(status, "Succeeded") || has_true_condition(status, "Failed");
}

bool set_condition(JobStatus& status, const std::string& type, const std::string& cond_status,
                   const std::string& reason, const std::string& message, util::Time now) {
  if (has_true_condition(status, "Failed")) return false;  // once Failed, nothing else changes
  if (const auto* c = find_condition(status, type);
      c != nullptr && c->status == cond_status && c->reason == reason) {
    return false;
  }
  const auto stamp = util::format_time(now);
  std::vector<Condition> kept;
  for (auto c : status.conditions) {
    if (c.type == type) continue;
    if ((type == "Running" && c.type == "Restarting") || (type == "Restarting" && c.type == "Running"))
      continue;
    if ((type == "Succeeded" || type == "Failed") && c.type == "Running" && c.status != "False") {
      c.status = "False";
      c.last_update_time = stamp;
      c.last_transition_time = stamp;
    }
    kept.push_back(std::move(c));
  }
  kept.push_back({type, cond_status, reason, message, stamp, stamp});
  status.conditions = std::move(kept);
  return true;
}

std::string replica_selector(const std::string& job, const std::string& replica_type) {
  return "training.kubeflow.org/job-name=" + job +
         ",training.kubeflow.org/operator-name=pytorchjob-controller,training.kubeflow.org/replica-type=" +
         lower(replica_type);
}

LifecycleDecision decide_lifecycle(const JobPolicy& job, const JobStatus& old_status,
                                   const std::vector<PodObservation>& pods,
                                   const std::vector<std::string>& services, util::Time now) {
  return Pass(job, old_status, pods, services, now).run();
}

}  // namespace kpt::model::pytorchjob
