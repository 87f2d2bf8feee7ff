#include "plugin/follow/job_view.hpp"

#include "model/k8s/object_meta.hpp"
#include "plugin/exit_codes.hpp"
#include "util/json_access.hpp"
#include "util/strings.hpp"
#include "util/time.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <map>

namespace kpt::plugin {

namespace {

using nlohmann::json;

// Phase, scheduling, restarts, waiting state and the latest termination of the replica's container.
void read_pod_status(const json& pod, ReplicaView& r) {
  const json status = pod.value("status", json::object());
  r.phase = status.value("phase", "Pending");
  for (const auto& c : status.value("conditions", json::array())) {
    if (util::string_at(c, "type") == "PodScheduled" && util::string_at(c, "status") == "False") {
      r.unschedulable = c.value("message", c.value("reason", "Unschedulable"));
    }
  }
  const json cs = container_status(pod, r.container);
  r.restarts = cs.value("restartCount", 0);
  const json state = cs.value("state", json::object());
  const json last = cs.value("lastState", json::object());
  if (state.contains("waiting")) {
    r.waiting_reason = util::string_at(util::member(state, "waiting"), "reason");
    r.waiting_message = util::string_at(util::member(state, "waiting"), "message");
  }
  const json* term = state.contains("terminated")  ? &state["terminated"]
                     : last.contains("terminated") ? &last["terminated"]
                                                   : nullptr;
  if (term != nullptr) {
    r.exit_code = term->value("exitCode", 0);
    if (util::string_at(*term, "reason") == "StartError")
      r.start_error = term->value("message", "cannot start");
  }
  r.running = state.contains("running");
  r.started = r.running || term != nullptr;
  if (state.contains("running")) r.started_at = util::string_at(util::member(state, "running"), "startedAt");
  if (r.started_at.empty() && term != nullptr) r.started_at = util::string_at(*term, "startedAt");
}

int int_of(const std::string& text) { return std::atoi(text.c_str()); }

ReplicaView pytorchjob_replica(const json& pod, bool has_master) {
  ReplicaView r;
  const json& meta = pod["metadata"];
  const json labels = meta.value("labels", json::object());
  r.pod = util::string_at(meta, "name");
  r.uid = util::string_at(meta, "uid");
  const std::string type = labels.value("training.kubeflow.org/replica-type", "worker");
  r.replica_type = type == "master" ? "Master" : "Worker";
  r.order = r.replica_type == "Master" ? 0 : 1;
  r.index = int_of(labels.value("training.kubeflow.org/replica-index", "0"));
  r.rank = r.replica_type == "Master" ? 0 : (has_master ? r.index + 1 : r.index);
  r.role = type + "-" + std::to_string(r.index);
  r.container = "pytorch";
  read_pod_status(pod, r);
  return r;
}

// The training container of a TrainJob pod: the one named as its replicated job ("node",
// "dataset-initializer"), as the Trainer's runtimes name them; else the first.
std::string trainjob_container(const json& pod, const std::string& replicated_job) {
  const json containers = pod.value("/spec/containers"_json_pointer, json::array());
  for (const auto& c : containers) {
    if (util::string_at(c, "name") == replicated_job) return replicated_job;
  }
  return containers.empty() ? replicated_job : containers.front().value("name", replicated_job);
}

ReplicaView trainjob_replica(const json& pod) {
  ReplicaView r;
  const json& meta = pod["metadata"];
  const json labels = meta.value("labels", json::object());
  r.pod = util::string_at(meta, "name");
  r.uid = util::string_at(meta, "uid");
  r.replica_type = labels.value("jobset.sigs.k8s.io/replicatedjob-name", "node");
  r.order = r.replica_type == "dataset-initializer" ? 0
            : r.replica_type == "model-initializer" ? 1
            : r.replica_type == "node"              ? 2
                                                    : 3;
  const json annotations = meta.value("annotations", json::object());
  r.index = int_of(annotations.value("batch.kubernetes.io/job-completion-index", "0"));
  // torchrun's node rank is the completion index (PET_NODE_RANK); initializers train nothing.
  r.rank = r.replica_type == "node" ? r.index : -1;
  r.role = r.replica_type + "-" + std::to_string(r.index);
  r.container = trainjob_container(pod, r.replica_type);
  read_pod_status(pod, r);
  return r;
}

void sort_replicas(std::vector<ReplicaView>& replicas) {
  std::sort(replicas.begin(), replicas.end(), [](const ReplicaView& a, const ReplicaView& b) {
    if (a.order != b.order) return a.order < b.order;
    if (a.replica_type != b.replica_type) return a.replica_type < b.replica_type;
    return a.index < b.index;
  });
}

/// Seconds from `from` to `to` (RFC 3339 strings), when both parse and are in order.
std::optional<double> seconds_between(const std::string& from, const std::string& to) {
  const auto a = util::parse_time(from);
  const auto b = util::parse_time(to);
  if (!a || !b || *b < *a) return std::nullopt;
  return std::chrono::duration<double>(*b - *a).count();
}

JobView pytorchjob_view(const json& job, const std::vector<json>& pods) {
  JobView v;
  v.exists = true;
  v.name = model::k8s::meta_string(job, "name");
  v.ns = job["metadata"].value("namespace", "default");
  const bool has_master =
      job.value("/spec/pytorchReplicaSpecs"_json_pointer, json::object()).contains("Master");
  for (const auto& c : job.value("/status/conditions"_json_pointer, json::array())) {
    if (util::string_at(c, "status") != "True") continue;
    v.state = util::string_at(c, "type");
    v.message = util::string_at(c, "message");
    if (v.state == "Succeeded" || v.state == "Failed") {
      v.finished = true;
      v.succeeded = v.state == "Succeeded";
    }
  }
  if (v.finished) {
    v.finished_at = util::string_at(util::member(job, "status"), "completionTime");
    v.ran_for = seconds_between(util::string_at(util::member(job, "status"), "startTime"), v.finished_at);
  }
  for (const auto& pod : pods) {
    const json labels = pod.value("/metadata/labels"_json_pointer, json::object());
    if (labels.value("training.kubeflow.org/job-name", "") != v.name) continue;
    v.replicas.push_back(pytorchjob_replica(pod, has_master));
  }
  sort_replicas(v.replicas);
  return v;
}

// A TrainJob's conditions are Suspended, Complete and Failed only: between them it is Created
// (children made) or Running (a pod runs), as `kubectl get trainjobs` cannot tell.
JobView trainjob_view(const json& job, const std::vector<json>& pods) {
  JobView v;
  v.kind = "trainjob";
  v.exists = true;
  v.name = model::k8s::meta_string(job, "name");
  v.ns = job["metadata"].value("namespace", "default");
  const std::string managed_by = job.value("/spec/managedBy"_json_pointer, std::string{});
  if (!managed_by.empty() && managed_by != "trainer.kubeflow.org/trainjob-controller")
    v.managed_by = managed_by;
  for (const auto& c : job.value("/status/conditions"_json_pointer, json::array())) {
    if (util::string_at(c, "status") != "True") continue;
    v.state = util::string_at(c, "type");
    v.message = util::string_at(c, "message");
    if (v.state == "Complete" || v.state == "Failed") {
      v.finished = true;
      v.succeeded = v.state == "Complete";
      v.finished_at = util::string_at(c, "lastTransitionTime");
      v.ran_for =
          seconds_between(util::string_at(util::member(job, "metadata"), "creationTimestamp"), v.finished_at);
    }
  }
  // A JobSet restart recreates every pod under the next attempt: the older ones are on their way out.
  std::vector<std::pair<int, const json*>> mine;
  for (const auto& pod : pods) {
    const json labels = pod.value("/metadata/labels"_json_pointer, json::object());
    if (labels.value("jobset.sigs.k8s.io/jobset-name", "") != v.name) continue;
    const int attempt = int_of(labels.value("jobset.sigs.k8s.io/restart-attempt", "0"));
    v.group_restarts = std::max(v.group_restarts, attempt);
    mine.emplace_back(attempt, &pod);
  }
  for (const auto& [attempt, pod] : mine) {
    if (attempt == v.group_restarts) v.replicas.push_back(trainjob_replica(*pod));
  }
  sort_replicas(v.replicas);
  if (v.state.empty() && !v.replicas.empty()) {
    const bool running = std::any_of(v.replicas.begin(), v.replicas.end(),
                                     [](const ReplicaView& r) { return r.phase == "Running"; });
    v.state = running ? "Running" : "Created";
  }
  return v;
}

}  // namespace

nlohmann::json container_status(const nlohmann::json& pod, const std::string& container) {
  const json statuses = pod.value("/status/containerStatuses"_json_pointer, json::array());
  for (const auto& s : statuses) {
    if (util::string_at(s, "name") == container) return s;
  }
  return statuses.empty() ? json::object() : statuses.front();
}

JobView make_job_view(const nlohmann::json& job, const std::vector<nlohmann::json>& pods) {
  if (!job.is_object() || !job.contains("metadata") || !job["metadata"].is_object()) return JobView{};
  return util::string_at(job, "kind") == "TrainJob" ? trainjob_view(job, pods) : pytorchjob_view(job, pods);
}

bool started_after_end(const JobView& view, const ReplicaView& replica) {
  if (!view.finished) return false;
  const auto end = util::parse_time(view.finished_at);
  const auto start = util::parse_time(replica.started_at);
  return end && start && *start > *end;
}

std::string status_line(const JobView& view) {
  std::map<std::string, std::map<std::string, int>> counts;
  std::map<std::string, int> totals;
  std::vector<std::string> types;  // in the replicas' order
  for (const auto& r : view.replicas) {
    if (totals[r.replica_type]++ == 0) types.push_back(r.replica_type);
    ++counts[r.replica_type][r.phase];
  }
  std::vector<std::string> parts;
  for (const auto& type : types) {
    std::vector<std::string> bits;
    for (const char* phase : {"Running", "Pending", "Succeeded", "Failed"}) {
      const int n = counts[type][phase];
      if (n > 0) bits.push_back(fmt::format("{} {}", n, util::to_lower(phase)));
    }
    int restarts = 0;
    for (const auto& r : view.replicas) restarts += r.replica_type == type ? r.restarts : 0;
    std::string part = fmt::format("{} x{}: {}", type, totals[type], fmt::join(bits, ", "));
    if (restarts > 0) part += fmt::format(" ({} restart{})", restarts, restarts == 1 ? "" : "s");
    parts.push_back(part);
  }
  std::string line = view.state.empty() ? "waiting for the controller" : view.state;
  if (!parts.empty()) line += " | " + fmt::format("{}", fmt::join(parts, " | "));
  return line;
}

int job_exit_code(const JobView& view) {
  if (view.succeeded) return exit_code::ok;
  for (const auto& r : view.replicas) {
    if (r.rank == 0 && r.exit_code && *r.exit_code != 0) return *r.exit_code;
  }
  return exit_code::failed;
}

std::optional<std::string> fatal_stall(const JobView& view) {
  static const char* const k_fatal[] = {"ImagePullBackOff", "ErrImagePull", "InvalidImageName",
                                        "ErrImageNeverPull", "CreateContainerConfigError"};
  for (const auto& r : view.replicas) {
    if (!r.start_error.empty()) {
      return fmt::format("{} cannot start its command: {}", r.pod, r.start_error);
    }
    for (const char* reason : k_fatal) {
      if (r.waiting_reason == reason) {
        return fmt::format("{} is stuck in {}{}", r.pod, r.waiting_reason,
                           r.waiting_message.empty() ? "" : ": " + r.waiting_message);
      }
    }
  }
  return std::nullopt;
}

std::vector<std::pair<std::string, std::string>> notable_states(const JobView& view) {
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& r : view.replicas) {
    if (r.waiting_reason == "CrashLoopBackOff") {
      out.emplace_back(r.pod + "/crash/" + std::to_string(r.restarts),
                       fmt::format("{} restarting (restart {}, last exit code {})", r.pod, r.restarts,
                                   r.exit_code.value_or(0)));
    }
    if (!r.unschedulable.empty()) {
      out.emplace_back(r.pod + "/unschedulable",
                       fmt::format("{} is not scheduled: {}", r.pod, r.unschedulable));
    }
  }
  return out;
}

std::string summary_line(const JobView& view, double seconds) {
  int restarts = 0;
  std::size_t nodes = 0;
  for (const auto& r : view.replicas) {
    restarts += r.restarts;
    nodes += r.rank >= 0 ? 1 : 0;
  }
  std::string restart_text = fmt::format("{} restart{}", restarts, restarts == 1 ? "" : "s");
  if (view.group_restarts > 0) {
    restart_text +=
        fmt::format(", {} group restart{}", view.group_restarts, view.group_restarts == 1 ? "" : "s");
  }
  const bool trainjob = view.kind == "trainjob";
  const std::string pods =
      trainjob ? fmt::format("{} node{}", nodes, nodes == 1 ? "" : "s")
               : fmt::format("{} replica{}", view.replicas.size(), view.replicas.size() == 1 ? "" : "s");
  if (view.succeeded) {
    return fmt::format("{} {} succeeded in {:.1f}s ({}, {})", view.kind, view.name, seconds, pods,
                       restart_text);
  }
  if (view.finished) {
    std::string which;
    for (const auto& r : view.replicas) {
      if (r.phase == "Failed" || (r.exit_code && *r.exit_code != 0)) {
        which = r.rank >= 0
                    ? fmt::format("{} (rank {}) exited with code {}", r.pod, r.rank, r.exit_code.value_or(1))
                    : fmt::format("{} exited with code {}", r.pod, r.exit_code.value_or(1));
        break;
      }
    }
    if (which.empty()) {
      return fmt::format("{} {} failed after {:.1f}s: {} ({})", view.kind, view.name, seconds, view.message,
                         restart_text);
    }
    return fmt::format("{} {} failed after {:.1f}s: {}; {}", view.kind, view.name, seconds, which,
                       view.message);
  }
  return fmt::format("{} {} is {} after {:.1f}s ({})", view.kind, view.name,
                     view.state.empty() ? "not started" : view.state, seconds, restart_text);
}

}  // namespace kpt::plugin
