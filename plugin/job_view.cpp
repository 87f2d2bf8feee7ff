#include "plugin/job_view.hpp"

#include "util/strings.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <map>

namespace kpt::plugin {

namespace {

using nlohmann::json;

json main_container_status(const json& pod) {
  const json statuses = pod.value("/status/containerStatuses"_json_pointer, json::array());
  for (const auto& s : statuses) {
    if (s.value("name", "") == "pytorch") return s;
  }
  return statuses.empty() ? json::object() : statuses.front();
}

ReplicaView replica_of(const json& pod, bool has_master) {
  ReplicaView r;
  const json& meta = pod["metadata"];
  const json labels = meta.value("labels", json::object());
  r.pod = meta.value("name", "");
  r.uid = meta.value("uid", "");
  const std::string type = labels.value("training.kubeflow.org/replica-type", "worker");
  r.replica_type = type == "master" ? "Master" : "Worker";
  r.index = std::atoi(labels.value("training.kubeflow.org/replica-index", "0").c_str());
  r.rank = r.replica_type == "Master" ? 0 : (has_master ? r.index + 1 : r.index);
  r.role = type + "-" + std::to_string(r.index);
  const json status = pod.value("status", json::object());
  r.phase = status.value("phase", "Pending");
  for (const auto& c : status.value("conditions", json::array())) {
    if (c.value("type", "") == "PodScheduled" && c.value("status", "") == "False") {
      r.unschedulable = c.value("message", c.value("reason", "Unschedulable"));
    }
  }
  const json cs = main_container_status(pod);
  r.restarts = cs.value("restartCount", 0);
  const json state = cs.value("state", json::object());
  const json last = cs.value("lastState", json::object());
  if (state.contains("waiting")) {
    r.waiting_reason = state["waiting"].value("reason", "");
    r.waiting_message = state["waiting"].value("message", "");
  }
  const json* term = state.contains("terminated")  ? &state["terminated"]
                     : last.contains("terminated") ? &last["terminated"]
                                                   : nullptr;
  if (term != nullptr) {
    r.exit_code = term->value("exitCode", 0);
    if (term->value("reason", "") == "StartError") r.start_error = term->value("message", "cannot start");
  }
  r.started = state.contains("running") || term != nullptr;
  return r;
}

}  // namespace

JobView make_job_view(const nlohmann::json& job, const std::vector<nlohmann::json>& pods) {
  JobView v;
  if (!job.is_object() || !job.contains("metadata")) return v;
  v.exists = true;
  v.name = job["metadata"].value("name", "");
  v.ns = job["metadata"].value("namespace", "default");
  const json specs = job.value("/spec/pytorchReplicaSpecs"_json_pointer, json::object());
  const bool has_master = specs.contains("Master");
  for (const auto& c : job.value("/status/conditions"_json_pointer, json::array())) {
    if (c.value("status", "") != "True") continue;
    v.state = c.value("type", "");
    v.message = c.value("message", "");
    if (v.state == "Succeeded" || v.state == "Failed") {
      v.finished = true;
      v.succeeded = v.state == "Succeeded";
    }
  }
  for (const auto& pod : pods) {
    const json labels = pod.value("/metadata/labels"_json_pointer, json::object());
    if (labels.value("training.kubeflow.org/job-name", "") != v.name) continue;
    v.replicas.push_back(replica_of(pod, has_master));
  }
  std::sort(v.replicas.begin(), v.replicas.end(), [](const ReplicaView& a, const ReplicaView& b) {
    if (a.replica_type != b.replica_type) return a.replica_type == "Master";
    return a.index < b.index;
  });
  return v;
}

std::string status_line(const JobView& view) {
  std::map<std::string, std::map<std::string, int>> counts;
  std::map<std::string, int> totals;
  for (const auto& r : view.replicas) {
    ++totals[r.replica_type];
    ++counts[r.replica_type][r.phase];
  }
  std::vector<std::string> parts;
  for (const char* type : {"Master", "Worker"}) {
    if (totals.count(type) == 0) continue;
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

int exit_code_for(const JobView& view) {
  if (view.succeeded) return 0;
  for (const auto& r : view.replicas) {
    if (r.rank == 0 && r.exit_code && *r.exit_code != 0) return *r.exit_code;
  }
  return 1;
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
  for (const auto& r : view.replicas) restarts += r.restarts;
  const std::string restart_text = fmt::format("{} restart{}", restarts, restarts == 1 ? "" : "s");
  if (view.succeeded) {
    return fmt::format("pytorchjob {} succeeded in {:.1f}s ({} replicas, {})", view.name, seconds,
                       view.replicas.size(), restart_text);
  }
  if (view.finished) {
    std::string which;
    for (const auto& r : view.replicas) {
      if (r.phase == "Failed" || (r.exit_code && *r.exit_code != 0)) {
        which = fmt::format("{} (rank {}) exited with code {}", r.pod, r.rank, r.exit_code.value_or(1));
        break;
      }
    }
    return fmt::format("pytorchjob {} failed after {:.1f}s: {}{}{}", view.name, seconds,
                       which.empty() ? view.message : which, which.empty() ? "" : "; ",
                       which.empty() ? restart_text : view.message);
  }
  return fmt::format("pytorchjob {} is {} after {:.1f}s ({})", view.name,
                     view.state.empty() ? "not started" : view.state, seconds, restart_text);
}

}  // namespace kpt::plugin
