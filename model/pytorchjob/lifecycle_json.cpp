#include "model/pytorchjob/lifecycle_json.hpp"

#include "util/strings.hpp"

#include <nlohmann/json.hpp>

#include <vector>

namespace kpt::model::pytorchjob {

namespace {

std::string str(const nlohmann::json& j, const char* key) {
  const auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : std::string{};
}

template <class T>
std::optional<T> number(const nlohmann::json& j, const char* key) {
  const auto it = j.find(key);
  if (it == j.end() || !it->is_number_integer()) return std::nullopt;
  return it->get<T>();
}

const nlohmann::json& child(const nlohmann::json& j, const char* key) {
  static const nlohmann::json k_empty = nlohmann::json::object();
  if (!j.is_object()) return k_empty;
  const auto it = j.find(key);
  return it != j.end() && it->is_object() ? *it : k_empty;
}

std::string camel_replica_type(const std::string& lower) {
  if (lower == "master") return "Master";
  if (lower == "worker") return "Worker";
  return lower;
}

}  // namespace

RestartPolicy parse_restart_policy(const std::string& text) {
  if (text == "Always") return RestartPolicy::always;
  if (text == "Never") return RestartPolicy::never;
  if (text == "ExitCode") return RestartPolicy::exit_code;
  return RestartPolicy::on_failure;
}

CleanPodPolicy parse_clean_pod_policy(const std::string& text) {
  if (text == "All") return CleanPodPolicy::all;
  if (text == "Running") return CleanPodPolicy::running;
  return CleanPodPolicy::none;
}

std::string join_counted_pods(const std::set<std::string>& uids) {
  std::vector<std::string> kept;
  for (const auto& uid : uids) {
    if (!uid.empty()) kept.push_back(uid);
  }
  return util::join(kept, ",");
}

std::set<std::string> split_counted_pods(const std::string& text) {
  std::set<std::string> out;
  for (auto& uid : util::split(text, ',')) {
    if (!uid.empty()) out.insert(std::move(uid));
  }
  return out;
}

JobPolicy job_policy_from_json(const nlohmann::json& job) {
  JobPolicy p;
  const auto& meta = child(job, "metadata");
  p.name = str(meta, "name");
  p.namespace_ = str(meta, "namespace");
  const auto& spec = child(job, "spec");
  for (const auto& [rtype, rs] : child(spec, "pytorchReplicaSpecs").items()) {
    ReplicaPolicy r;
    if (const auto n = number<int>(rs, "replicas")) r.replicas = *n;
    r.restart_policy = parse_restart_policy(str(rs, "restartPolicy"));
    p.replicas[rtype] = r;
  }
  p.elastic = spec.contains("elasticPolicy") && spec["elasticPolicy"].is_object();
  const auto& run = child(spec, "runPolicy");
  p.backoff_limit = number<int>(run, "backoffLimit");
  p.active_deadline_seconds = number<long>(run, "activeDeadlineSeconds");
  p.ttl_seconds_after_finished = number<long>(run, "ttlSecondsAfterFinished");
  p.clean_pod_policy = parse_clean_pod_policy(str(run, "cleanPodPolicy"));
  p.suspend = run.contains("suspend") && run["suspend"].is_boolean() && run["suspend"].get<bool>();
  const auto recreated = str(child(meta, "annotations"), k_recreations_annotation);
  if (!recreated.empty()) {
    try {
      p.recreations = std::stoi(recreated);
    } catch (const std::exception&) {
      p.recreations = 0;
    }
  }
  p.counted_pods = split_counted_pods(str(child(meta, "annotations"), k_counted_pods_annotation));
  return p;
}

JobStatus job_status_from_json(const nlohmann::json& status) {
  JobStatus s;
  if (!status.is_object()) return s;
  if (const auto it = status.find("conditions"); it != status.end() && it->is_array()) {
    for (const auto& c : *it) {
      s.conditions.push_back({str(c, "type"), str(c, "status"), str(c, "reason"), str(c, "message"),
                              str(c, "lastUpdateTime"), str(c, "lastTransitionTime")});
    }
  }
  for (const auto& [rtype, rs] : child(status, "replicaStatuses").items()) {
    s.replica_statuses[rtype] = {number<int>(rs, "active").value_or(0),
                                 number<int>(rs, "succeeded").value_or(0),
                                 number<int>(rs, "failed").value_or(0), str(rs, "selector")};
  }
  if (auto t = str(status, "startTime"); !t.empty()) s.start_time = t;
  if (auto t = str(status, "completionTime"); !t.empty()) s.completion_time = t;
  return s;
}

nlohmann::json job_status_to_json(const JobStatus& s) {
  nlohmann::json out = nlohmann::json::object();
  auto conditions = nlohmann::json::array();
  for (const auto& c : s.conditions) {
    conditions.push_back({{"type", c.type},
                          {"status", c.status},
                          {"reason", c.reason},
                          {"message", c.message},
                          {"lastUpdateTime", c.last_update_time},
                          {"lastTransitionTime", c.last_transition_time}});
  }
  out["conditions"] = std::move(conditions);
  auto replicas = nlohmann::json::object();
  for (const auto& [rtype, rs] : s.replica_statuses) {
    nlohmann::json r = nlohmann::json::object();
    if (rs.active != 0) r["active"] = rs.active;
    if (rs.succeeded != 0) r["succeeded"] = rs.succeeded;
    if (rs.failed != 0) r["failed"] = rs.failed;
    if (!rs.selector.empty()) r["selector"] = rs.selector;
    replicas[rtype] = std::move(r);
  }
  out["replicaStatuses"] = std::move(replicas);
  if (s.start_time) out["startTime"] = *s.start_time;
  if (s.completion_time) out["completionTime"] = *s.completion_time;
  return out;
}

PodObservation pod_observation_from_json(const nlohmann::json& pod) {
  PodObservation o;
  const auto& meta = child(pod, "metadata");
  o.name = str(meta, "name");
  o.uid = str(meta, "uid");
  const auto& labels = child(meta, "labels");
  // v1.3-style pods carry only the old keys (replica-type, replica-index).
  auto rtype = str(labels, "training.kubeflow.org/replica-type");
  if (rtype.empty()) rtype = str(labels, "replica-type");
  o.replica_type = camel_replica_type(rtype);
  auto index = str(labels, "training.kubeflow.org/replica-index");
  if (index.empty()) index = str(labels, "replica-index");
  o.index = index.empty() ? 0 : std::atoi(index.c_str());
  o.deleting = meta.contains("deletionTimestamp") && !meta["deletionTimestamp"].is_null();
  const auto& status = child(pod, "status");
  o.phase = str(status, "phase");
  if (o.phase.empty()) o.phase = "Pending";
  for (const char* list : {"containerStatuses", "initContainerStatuses"}) {
    const auto it = status.find(list);
    if (it == status.end() || !it->is_array()) continue;
    for (const auto& cs : *it) {
      o.restart_count += number<int>(cs, "restartCount").value_or(0);
      if (std::string(list) == "containerStatuses" && str(cs, "name") == "pytorch") {
        const auto& terminated = child(child(cs, "state"), "terminated");
        o.exit_code = number<int>(terminated, "exitCode");
      }
    }
  }
  return o;
}

}  // namespace kpt::model::pytorchjob
