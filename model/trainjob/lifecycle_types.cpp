#include "model/trainjob/lifecycle_types.hpp"

#include "model/k8s/object_meta.hpp"
#include "util/json_access.hpp"

#include <charconv>

namespace kpt::model::trainjob {

namespace {

using nlohmann::json;
using util::array_at;
using util::int_at;
using util::string_at;

std::vector<Condition> conditions_of(const json& status) {
  std::vector<Condition> out;
  for (const auto& c : array_at(status, "conditions")) {
    out.push_back({string_at(c, "type"), string_at(c, "status"), string_at(c, "reason"),
                   string_at(c, "message"), string_at(c, "lastTransitionTime")});
  }
  return out;
}

std::vector<ReplicatedJobCounts> counts_of(const json& list) {
  std::vector<ReplicatedJobCounts> out;
  for (const auto& j : list.is_array() ? list : json::array()) {
    out.push_back({string_at(j, "name"), int_at(j, "ready").value_or(0), int_at(j, "succeeded").value_or(0),
                   int_at(j, "failed").value_or(0), int_at(j, "active").value_or(0),
                   int_at(j, "suspended").value_or(0)});
  }
  return out;
}

json conditions_json(const std::vector<Condition>& conditions) {
  json out = json::array();
  for (const auto& c : conditions) {
    json item = {{"type", c.type}, {"status", c.status}, {"reason", c.reason}, {"message", c.message}};
    if (!c.last_transition_time.empty()) item["lastTransitionTime"] = c.last_transition_time;
    out.push_back(item);
  }
  return out;
}

json counts_json(const std::vector<ReplicatedJobCounts>& counts) {
  json out = json::array();
  for (const auto& c : counts) {
    out.push_back({{"name", c.name},
                   {"ready", c.ready},
                   {"succeeded", c.succeeded},
                   {"failed", c.failed},
                   {"active", c.active},
                   {"suspended", c.suspended}});
  }
  return out;
}

}  // namespace

TrainJobStatus trainjob_status_of(const json& trainjob) {
  const json& status = util::object_at(trainjob, "status");
  return {conditions_of(status), counts_of(array_at(status, "jobsStatus"))};
}

JobSetStatus jobset_status_of(const json& jobset) {
  const json& status = util::object_at(jobset, "status");
  JobSetStatus out;
  out.conditions = conditions_of(status);
  out.restarts = int_at(status, "restarts").value_or(0);
  out.restarts_count_towards_max = int_at(status, "restartsCountTowardsMax").value_or(0);
  out.replicated_jobs_status = counts_of(array_at(status, "replicatedJobsStatus"));
  out.terminal_state = string_at(status, "terminalState");
  return out;
}

JobObservation job_observation_of(const json& job) {
  JobObservation o;
  o.name = k8s::name_of(job);
  o.replicated_job = k8s::label_of(job, "jobset.sigs.k8s.io/replicatedjob-name");
  const std::string attempt = k8s::label_of(job, "jobset.sigs.k8s.io/restart-attempt");
  // An unreadable label reads as attempt 0, which a JobSet that has restarted treats as a previous run.
  std::from_chars(attempt.data(), attempt.data() + attempt.size(), o.restart_attempt);
  const json& spec = util::object_at(job, "spec");
  o.parallelism = spec.contains("parallelism") && spec["parallelism"].is_number_integer()
                      ? int_at(spec, "parallelism").value_or(0)
                      : 1;
  if (spec.contains("completions") && spec["completions"].is_number_integer())
    o.completions = int_at(spec, "completions").value_or(0);
  o.suspended = util::bool_at(spec, "suspend");
  const json& status = util::object_at(job, "status");
  o.status.active = int_at(status, "active").value_or(0);
  o.status.ready = int_at(status, "ready").value_or(0);
  o.status.succeeded = int_at(status, "succeeded").value_or(0);
  o.status.failed = int_at(status, "failed").value_or(0);
  o.status.completed_indexes = string_at(status, "completedIndexes");
  if (status.contains("startTime")) o.status.start_time = string_at(status, "startTime");
  if (status.contains("completionTime")) o.status.completion_time = string_at(status, "completionTime");
  o.status.conditions = conditions_of(status);
  return o;
}

json to_json(const TrainJobStatus& status) {
  json out = json::object();
  if (!status.conditions.empty()) out["conditions"] = conditions_json(status.conditions);
  if (!status.jobs_status.empty()) out["jobsStatus"] = counts_json(status.jobs_status);
  return out;
}

json to_json(const JobSetStatus& status) {
  json out = {{"restarts", status.restarts}, {"restartsCountTowardsMax", status.restarts_count_towards_max}};
  if (!status.conditions.empty()) out["conditions"] = conditions_json(status.conditions);
  if (!status.replicated_jobs_status.empty())
    out["replicatedJobsStatus"] = counts_json(status.replicated_jobs_status);
  if (!status.terminal_state.empty()) out["terminalState"] = status.terminal_state;
  return out;
}

json to_json(const JobStatus& status) {
  json out = {{"active", status.active},
              {"ready", status.ready},
              {"succeeded", status.succeeded},
              {"failed", status.failed}};
  if (!status.completed_indexes.empty()) out["completedIndexes"] = status.completed_indexes;
  if (status.start_time) out["startTime"] = *status.start_time;
  if (status.completion_time) out["completionTime"] = *status.completion_time;
  if (!status.conditions.empty()) out["conditions"] = conditions_json(status.conditions);
  return out;
}

const Condition* find_condition(const std::vector<Condition>& conditions, const std::string& type) {
  for (const auto& c : conditions) {
    if (c.type == type) return &c;
  }
  return nullptr;
}

bool is_true(const std::vector<Condition>& conditions, const std::string& type) {
  const Condition* c = find_condition(conditions, type);
  return c != nullptr && c->status == "True";
}

bool set_status_condition(std::vector<Condition>& conditions, Condition condition, util::Time now) {
  for (auto& existing : conditions) {
    if (existing.type != condition.type) continue;
    bool changed = false;
    if (existing.status != condition.status) {
      existing.status = condition.status;
      existing.last_transition_time =
          condition.last_transition_time.empty() ? util::format_time(now) : condition.last_transition_time;
      changed = true;
    }
    if (existing.reason != condition.reason) {
      existing.reason = condition.reason;
      changed = true;
    }
    if (existing.message != condition.message) {
      existing.message = condition.message;
      changed = true;
    }
    return changed;
  }
  if (condition.last_transition_time.empty()) condition.last_transition_time = util::format_time(now);
  conditions.push_back(std::move(condition));
  return true;
}

std::string state_column(const TrainJobStatus& status) {
  return status.conditions.empty() ? "" : status.conditions.back().type;
}

}  // namespace kpt::model::trainjob
