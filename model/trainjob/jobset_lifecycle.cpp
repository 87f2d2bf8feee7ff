// The JobSet controller's reconcile (kubernetes-sigs/jobset v0.12.0 pkg/controllers/jobset_controller.go,
// failure_policy.go, success_policy.go, depends_on.go, ttl_after_finished.go) as a pure decision.

#include "model/k8s/object_meta.hpp"
#include "model/trainjob/jobset_children.hpp"
#include "model/trainjob/lifecycle.hpp"
#include "util/json_access.hpp"
#include "util/strings.hpp"

#include <algorithm>
#include <map>

namespace kpt::model::trainjob {

namespace {

using nlohmann::json;
using util::array_at;
using util::string_at;

struct Buckets {
  std::vector<const JobObservation*> previous, active, successful, failed;
};

Buckets bucket_jobs(const std::vector<JobObservation>& jobs, std::int64_t restarts) {
  Buckets b;
  for (const auto& job : jobs) {
    if (job.restart_attempt < restarts) {
      b.previous.push_back(&job);
    } else if (is_true(job.status.conditions, "Failed")) {
      b.failed.push_back(&job);
    } else if (is_true(job.status.conditions, "Complete")) {
      b.successful.push_back(&job);
    } else {
      b.active.push_back(&job);
    }
  }
  return b;
}

/// calculateReplicatedJobStatuses, in spec order (the real order follows Go map iteration).
std::vector<ReplicatedJobCounts> replicated_counts(const json& jobset, const Buckets& b) {
  std::vector<ReplicatedJobCounts> out;
  for (const auto& rjob : array_at(jobset, "spec.replicatedJobs")) {
    ReplicatedJobCounts c;
    c.name = string_at(rjob, "name");
    for (const auto* job : b.active) {
      if (job->replicated_job != c.name) continue;
      const std::int64_t pods =
          job->completions && *job->completions < job->parallelism ? *job->completions : job->parallelism;
      if (job->status.succeeded + job->status.ready >= pods) ++c.ready;
      if (job->status.active > 0) ++c.active;
      if (job->suspended) ++c.suspended;
    }
    for (const auto* job : b.successful) c.succeeded += job->replicated_job == c.name ? 1 : 0;
    for (const auto* job : b.failed) c.failed += job->replicated_job == c.name ? 1 : 0;
    out.push_back(c);
  }
  return out;
}

void set_condition(JobSetDecision& d, Condition c, const std::string& event_type, util::Time now) {
  const std::string reason = c.reason;
  const std::string message = c.message;
  if (update_jobset_condition(d.status.conditions, std::move(c), now))
    d.events.push_back({event_type, reason, message});
}

void restarting_false(JobSetDecision& d, const std::string& reason, const std::string& message,
                      util::Time now) {
  set_condition(d, {"RestartingJobSet", "False", reason, message, ""}, "Normal", now);
}

void mark_failed(JobSetDecision& d, const std::string& reason, const std::string& message, util::Time now) {
  set_condition(d, {"Failed", "True", reason, message, ""}, "Warning", now);
  restarting_false(d, "JobSetFailed", "jobset failed", now);
  d.status.terminal_state = "Failed";
}

std::string with_first_failed(const std::string& message, const JobObservation* job) {
  return message + " (first failed job: " + (job != nullptr ? job->name : "") + ")";
}

std::string failure_time(const JobObservation& job) {
  const Condition* c = find_condition(job.status.conditions, "Failed");
  return c != nullptr ? c->last_transition_time : "";
}

/// The failed job that failed first (RFC 3339 strings in UTC compare as times).
const JobObservation* first_failed(const std::vector<const JobObservation*>& failed) {
  const JobObservation* first = nullptr;
  for (const auto* job : failed) {
    if (first == nullptr || (!failure_time(*job).empty() && failure_time(*job) < failure_time(*first)))
      first = job;
  }
  return first;
}

bool rule_applies(const json& rule, const JobObservation& job) {
  const Condition* c = find_condition(job.status.conditions, "Failed");
  const json& reasons = array_at(rule, "onJobFailureReasons");
  if (!reasons.empty() &&
      std::find(reasons.begin(), reasons.end(), c != nullptr ? c->reason : "") == reasons.end()) {
    return false;
  }
  if (job.replicated_job.empty()) return false;
  const json& targets = array_at(rule, "targetReplicatedJobs");
  return targets.empty() || std::find(targets.begin(), targets.end(), job.replicated_job) != targets.end();
}

void restart(JobSetDecision& d, const json* rule, const JobObservation* job, bool counts, util::Time now) {
  const std::string action = counts ? "RestartJobSet" : "RestartJobSetAndIgnoreMaxRestarts";
  const std::string message = with_first_failed("applying " + action + " failure policy action", job);
  ++d.status.restarts;
  if (counts) ++d.status.restarts_count_towards_max;
  const std::string reason =
      rule != nullptr ? "FailurePolicy_" + string_at(*rule, "name") : "DefaultFailurePolicy";
  // Like failurePolicyRecreateAll: the condition's event first, then the action's.
  set_condition(d, {"RestartingJobSet", "True", reason, message, ""}, "Warning", now);
  d.events.push_back({"Warning", action + "FailurePolicyAction", message});
}

void execute_failure_policy(JobSetDecision& d, const json& jobset, const Buckets& b, util::Time now) {
  const json* policy = util::at_path(jobset, "spec.failurePolicy");
  if (policy == nullptr || !policy->is_object()) {
    mark_failed(d, "FailedJobs",
                with_first_failed("jobset failed due to one or more job failures", first_failed(b.failed)),
                now);
    return;
  }
  const json* rule = nullptr;
  const JobObservation* job = nullptr;
  for (const auto& candidate : array_at(*policy, "rules")) {
    if (!array_at(candidate, "onJobFailureMessagePatterns").empty()) {
      d.not_modelled.push_back(
          "failure policy rule " + util::quote(string_at(candidate, "name")) +
          ": onJobFailureMessagePatterns (Go regular expressions) are not evaluated; the rule "
          "is treated as not matching");
      continue;
    }
    std::vector<const JobObservation*> matching;
    for (const auto* failed : b.failed) {
      if (rule_applies(candidate, *failed)) matching.push_back(failed);
    }
    if (!matching.empty()) {
      rule = &candidate;
      job = first_failed(matching);
      break;
    }
  }
  if (rule == nullptr) job = first_failed(b.failed);
  const std::string action = rule != nullptr ? string_at(*rule, "action") : "RestartJobSet";
  const json* max = util::child(*policy, "maxRestarts");
  const std::int64_t max_restarts = max != nullptr && max->is_number_integer() ? max->get<std::int64_t>() : 0;
  if (action == "FailJobSet") {
    mark_failed(d, "FailJobSetFailurePolicyAction",
                with_first_failed("applying FailJobSet failure policy action", job), now);
  } else if (action == "RestartJobSet" && d.status.restarts_count_towards_max >= max_restarts) {
    mark_failed(d, "ReachedMaxRestarts",
                with_first_failed("jobset failed due to reaching max number of restarts", job), now);
  } else if (action == "RestartJobSet" || action == "RestartJobSetAndIgnoreMaxRestarts") {
    restart(d, rule, job, action == "RestartJobSet", now);
  } else if (action == "RestartJob" || action == "RestartJobAndIgnoreMaxRestarts") {
    d.error = action + " failure policy action cannot be used when the feature gate RestartJob is disabled";
  } else {
    d.error = "failed to find a corresponding action for the FailurePolicyRuleAction " + action;
  }
}

bool success_policy_met(const json& jobset, const Buckets& b) {
  const json& policy = util::object_at(jobset, "spec.successPolicy");
  const json& targets = array_at(policy, "targetReplicatedJobs");
  auto matches = [&](const std::string& name) {
    return targets.empty() || std::find(targets.begin(), targets.end(), name) != targets.end();
  };
  std::int64_t done = 0;
  for (const auto* job : b.successful) done += matches(job->replicated_job) ? 1 : 0;
  std::int64_t expected = 0;
  if (string_at(policy, "operator") == "Any") {
    expected = 1;
  } else {
    for (const auto& rjob : array_at(jobset, "spec.replicatedJobs")) {
      if (matches(string_at(rjob, "name"))) expected += util::int_at(rjob, "replicas").value_or(1);
    }
  }
  return done >= expected;
}

bool dependencies_reached(const json& rjob, const std::map<std::string, std::int64_t>& replicas,
                          const std::vector<ReplicatedJobCounts>& counts) {
  for (const auto& dep : array_at(rjob, "dependsOn")) {
    const std::string name = string_at(dep, "name");
    const auto c = std::find_if(counts.begin(), counts.end(), [&](const auto& x) { return x.name == name; });
    if (c == counts.end()) return false;
    const auto it = replicas.find(name);
    const std::int64_t want = it != replicas.end() ? it->second : 0;
    if (string_at(dep, "status") == "Complete" && want != c->succeeded) return false;
    if (string_at(dep, "status") == "Ready" && want != c->failed + c->ready + c->succeeded) return false;
  }
  return true;
}

void plan_jobs(JobSetDecision& d, const json& jobset, const std::vector<JobObservation>& jobs,
               const Buckets& b) {
  const json* strategy = util::at_path(jobset, "spec.failurePolicy.restartStrategy");
  if (strategy != nullptr && *strategy == "BlockingRecreate" && !b.previous.empty()) return;
  std::map<std::string, std::int64_t> replicas;
  for (const auto& rjob : array_at(jobset, "spec.replicatedJobs")) {
    const std::string name = string_at(rjob, "name");
    replicas[name] = util::int_at(rjob, "replicas").value_or(1);
    if (!dependencies_reached(rjob, replicas, d.status.replicated_jobs_status)) continue;
    for (std::int64_t i = 0; i < util::int_at(rjob, "replicas").value_or(1); ++i) {
      const std::string job = job_name(k8s::name_of(jobset), name, i);
      const bool exists = std::any_of(jobs.begin(), jobs.end(), [&](const auto& o) { return o.name == job; });
      if (!exists) d.create_jobs.push_back({name, i, job});
    }
  }
}

void suspend_or_resume(JobSetDecision& d, const json& jobset, const Buckets& b, util::Time now) {
  if (util::bool_at(jobset, "spec.suspend")) {
    for (const auto* job : b.active) {
      if (!job->suspended) d.suspend_jobs.push_back(job->name);
    }
    set_condition(d, {"Suspended", "True", "SuspendedJobs", "jobset is suspended", ""}, "Normal", now);
    restarting_false(d, "JobSetSuspended", "jobset is suspended", now);
    return;
  }
  std::map<std::string, std::int64_t> replicas;
  for (const auto& rjob : array_at(jobset, "spec.replicatedJobs")) {
    const std::string name = string_at(rjob, "name");
    replicas[name] = util::int_at(rjob, "replicas").value_or(1);
    if (!dependencies_reached(rjob, replicas, d.status.replicated_jobs_status)) continue;
    for (const auto* job : b.active) {
      if (job->replicated_job == name && job->suspended) d.resume_jobs.push_back(job->name);
    }
  }
  set_condition(d, {"Suspended", "False", "ResumeJobs", "jobset is resumed", ""}, "Normal", now);
}

void ttl_after_finished(JobSetDecision& d, const json& jobset, util::Time now) {
  const json* ttl = util::at_path(jobset, "spec.ttlSecondsAfterFinished");
  if (ttl == nullptr || !ttl->is_number_integer()) return;
  for (const auto& c : d.status.conditions) {
    if ((c.type != "Completed" && c.type != "Failed") || c.status != "True") continue;
    const auto finished = util::parse_time(c.last_transition_time);
    if (!finished) return;
    const auto expire = *finished + std::chrono::seconds(ttl->get<std::int64_t>());
    if (now >= expire) {
      d.delete_jobset = true;
    } else {
      d.requeue_after_seconds = (expire - now).count();
    }
    return;
  }
}

std::vector<std::string> names(const std::vector<const JobObservation*>& jobs) {
  std::vector<std::string> out;
  for (const auto* job : jobs) out.push_back(job->name);
  return out;
}

}  // namespace

bool update_jobset_condition(std::vector<Condition>& conditions, Condition condition, util::Time now) {
  condition.last_transition_time = util::format_time(now);
  bool found = false;
  bool changed = false;
  for (auto& current : conditions) {
    if (current.type != condition.type) continue;
    found = true;
    if (current.status != condition.status) {
      current = condition;
      changed = true;
    } else if (current.reason != condition.reason || current.message != condition.message) {
      condition.last_transition_time = current.last_transition_time;
      current = condition;
      changed = true;
    }
  }
  if (!found && condition.status == "True") {
    conditions.push_back(condition);
    changed = true;
  }
  return changed;
}

JobSetDecision decide_jobset(const json& jobset, const std::vector<JobObservation>& jobs, util::Time now) {
  JobSetDecision d;
  d.status = jobset_status_of(jobset);
  const std::string managed_by = string_at(util::object_at(jobset, "spec"), "managedBy");
  if (!managed_by.empty() && managed_by != "jobset.sigs.k8s.io/jobset-controller") return d;
  const Buckets b = bucket_jobs(jobs, d.status.restarts);
  d.status.replicated_jobs_status = replicated_counts(jobset, b);
  if (is_true(d.status.conditions, "Completed") || is_true(d.status.conditions, "Failed")) {
    d.delete_jobs = names(b.active);
    ttl_after_finished(d, jobset, now);
    return d;
  }
  d.delete_jobs = names(b.previous);
  std::int64_t total = 0, ready = 0;
  for (const auto& rjob : array_at(jobset, "spec.replicatedJobs"))
    total += util::int_at(rjob, "replicas").value_or(1);
  for (const auto& c : d.status.replicated_jobs_status) ready += c.ready + c.succeeded;
  if (!util::bool_at(jobset, "spec.suspend") && total == ready)
    restarting_false(d, "JobsReady", "all jobs are ready", now);
  if (!b.failed.empty()) {
    execute_failure_policy(d, jobset, b, now);
    return d;
  }
  if (!b.successful.empty() && success_policy_met(jobset, b)) {
    set_condition(d, {"Completed", "True", "AllJobsCompleted", "jobset completed successfully", ""}, "Normal",
                  now);
    restarting_false(d, "JobSetCompleted", "jobset completed successfully", now);
    d.status.terminal_state = "Completed";
    return d;
  }
  d.ensure_service = util::bool_at(jobset, "spec.network.enableDNSHostnames");
  d.ensure_pvcs = !array_at(jobset, "spec.volumeClaimPolicies").empty();
  if (string_at(util::object_at(jobset, "spec.startupPolicy"), "startupPolicyOrder") == "InOrder") {
    d.not_modelled.push_back("startupPolicy InOrder: jobs are created as with AnyOrder");
  }
  plan_jobs(d, jobset, jobs, b);
  suspend_or_resume(d, jobset, b, now);
  return d;
}

}  // namespace kpt::model::trainjob
