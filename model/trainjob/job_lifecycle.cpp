// The Kubernetes Job controller for Indexed Jobs (pkg/controller/job/job_controller.go,
// indexed_job_utils.go), reduced to what Trainer's pods need.

#include "model/trainjob/lifecycle.hpp"
#include "util/json_access.hpp"

#include <algorithm>
#include <set>

namespace kpt::model::trainjob {

namespace {

using nlohmann::json;
using util::int_at;

struct JobSpecView {
  std::int64_t completions = 1;
  std::int64_t parallelism = 1;
  std::int64_t backoff_limit = 6;
  std::optional<std::int64_t> active_deadline;
  bool suspended = false;
  bool restart_on_failure = false;
};

JobSpecView view_of(const json& job) {
  const json& spec = util::object_at(job, "spec");
  JobSpecView v;
  v.completions = int_at(spec, "completions").value_or(1);
  v.parallelism = int_at(spec, "parallelism").value_or(1);
  v.backoff_limit = int_at(spec, "backoffLimit").value_or(6);
  v.active_deadline = int_at(spec, "activeDeadlineSeconds");
  v.suspended = util::bool_at(spec, "suspend");
  v.restart_on_failure =
      util::string_at(util::object_at(spec, "template.spec"), "restartPolicy") == "OnFailure";
  return v;
}

/// "0-2,4": the succeeded indexes as intervals.
std::string compress(const std::set<std::int64_t>& indexes) {
  std::string out;
  for (auto it = indexes.begin(); it != indexes.end();) {
    const std::int64_t first = *it;
    std::int64_t last = first;
    while (++it != indexes.end() && *it == last + 1) last = *it;
    if (!out.empty()) out += ",";
    out += std::to_string(first) + (last == first ? "" : "-" + std::to_string(last));
  }
  return out;
}

bool is_active(const PodObservation& p) {
  return p.phase != "Succeeded" && p.phase != "Failed" && !p.deleting;
}

std::vector<std::string> active_pods(const std::vector<PodObservation>& pods) {
  std::vector<std::string> out;
  for (const auto& p : pods) {
    if (is_active(p)) out.push_back(p.name);
  }
  return out;
}

/// pastBackoffLimitOnFailure: container restarts of running and pending pods.
bool past_backoff_on_failure(const JobSpecView& v, const std::vector<PodObservation>& pods) {
  if (!v.restart_on_failure) return false;
  std::int64_t restarts = 0;
  for (const auto& p : pods) {
    if (p.phase == "Running" || p.phase == "Pending") restarts += p.restarts;
  }
  return v.backoff_limit == 0 ? restarts > 0 : restarts >= v.backoff_limit;
}

void finish(JobDecision& d, const std::vector<PodObservation>& pods, const std::string& type,
            const std::string& reason, const std::string& message, util::Time now) {
  const std::string interim = type == "Complete" ? "SuccessCriteriaMet" : "FailureTarget";
  d.status.conditions.push_back({interim, "True", reason, message, util::format_time(now)});
  d.status.conditions.push_back({type, "True", reason, message, util::format_time(now)});
  if (type == "Complete") {
    d.status.completion_time = util::format_time(now);
    d.events.push_back({"Normal", "Completed", "Job completed"});
  } else {
    d.delete_pods = active_pods(pods);
    d.events.push_back({"Warning", reason, message});
  }
}

void suspend(JobDecision& d, const std::vector<PodObservation>& pods, util::Time now) {
  d.delete_pods = active_pods(pods);
  d.status.active = 0;
  d.status.ready = 0;
  if (!is_true(d.status.conditions, "Suspended")) {
    set_status_condition(d.status.conditions, {"Suspended", "True", "JobSuspended", "Job suspended", ""},
                         now);
    d.status.start_time.reset();
    d.events.push_back({"Normal", "Suspended", "Job suspended"});
  }
}

void count(JobDecision& d, const std::vector<PodObservation>& pods, std::set<std::int64_t>& succeeded) {
  d.status.active = d.status.ready = d.status.failed = 0;
  for (const auto& p : pods) {
    if (p.phase == "Succeeded") succeeded.insert(p.index);
    if (p.phase == "Failed") ++d.status.failed;
    if (is_active(p)) {
      ++d.status.active;
      if (p.ready) ++d.status.ready;
    }
  }
  d.status.succeeded = static_cast<std::int64_t>(succeeded.size());
  d.status.completed_indexes = compress(succeeded);
}

void plan_pods(JobDecision& d, const JobSpecView& v, const std::vector<PodObservation>& pods,
               const std::set<std::int64_t>& succeeded) {
  std::set<std::int64_t> running;
  for (const auto& p : pods) {
    if (is_active(p)) running.insert(p.index);
  }
  std::int64_t budget = v.parallelism - d.status.active;
  for (std::int64_t k = 0; k < v.completions && budget > 0; ++k) {
    if (succeeded.count(k) != 0 || running.count(k) != 0) continue;
    d.create_indexes.push_back(k);
    --budget;
  }
  // As the Job controller's manageJob: the pods this sync creates count as active in the status it
  // writes, so the next sync, which sees them, changes nothing.
  d.status.active += static_cast<std::int64_t>(d.create_indexes.size());
}

}  // namespace

JobDecision decide_job(const json& job, const std::vector<PodObservation>& pods, util::Time now) {
  const JobSpecView v = view_of(job);
  JobDecision d;
  d.status = job_observation_of(job).status;
  if (is_true(d.status.conditions, "Complete") || is_true(d.status.conditions, "Failed")) {
    if (is_true(d.status.conditions, "Failed")) d.delete_pods = active_pods(pods);
    return d;
  }
  if (v.suspended) {
    suspend(d, pods, now);
    return d;
  }
  if (is_true(d.status.conditions, "Suspended")) {
    set_status_condition(d.status.conditions, {"Suspended", "False", "JobResumed", "Job resumed", ""}, now);
    d.events.push_back({"Normal", "Resumed", "Job resumed"});
  }
  if (!d.status.start_time) d.status.start_time = util::format_time(now);
  std::set<std::int64_t> succeeded;
  count(d, pods, succeeded);
  const auto started = util::parse_time(*d.status.start_time);
  if (d.status.failed > v.backoff_limit || past_backoff_on_failure(v, pods)) {
    finish(d, pods, "Failed", "BackoffLimitExceeded", "Job has reached the specified backoff limit", now);
  } else if (v.active_deadline && started && now - *started >= std::chrono::seconds(*v.active_deadline)) {
    finish(d, pods, "Failed", "DeadlineExceeded", "Job was active longer than specified deadline", now);
  } else if (static_cast<std::int64_t>(succeeded.size()) >= v.completions) {
    finish(d, pods, "Complete", "CompletionsReached", "Reached expected number of succeeded pods", now);
  } else {
    plan_pods(d, v, pods, succeeded);
  }
  return d;
}

}  // namespace kpt::model::trainjob
