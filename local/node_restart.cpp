#include "local/node_restart.hpp"

#include "util/json_access.hpp"

#include <nlohmann/json.hpp>

#include <signal.h>

namespace kpt::local {

namespace {

using nlohmann::json;

/// The kubelet's words for a container that is gone with its node
/// (kubernetes v1.32 pkg/kubelet/kubelet_pods.go, convertToAPIContainerStatuses).
constexpr const char* k_lost_reason = "ContainerStatusUnknown";
constexpr const char* k_lost_message = "The container could not be located when the pod was terminated";

json status_entry(const json& pod_status, const ContainerRun& c) {
  const char* list = c.launch.init ? "initContainerStatuses" : "containerStatuses";
  for (const auto& entry : pod_status.value(list, json::array())) {
    if (entry.is_object() && util::string_at(entry, "name") == c.launch.name) return entry;
  }
  return json::object();
}

Termination termination_from(const json& t) {
  Termination out;
  out.exit_code = t.value("exitCode", 0);
  out.signal = t.value("signal", 0);
  out.reason = util::string_at(t, "reason");
  out.message = util::string_at(t, "message");
  out.started_at = util::string_at(t, "startedAt");
  out.finished_at = util::string_at(t, "finishedAt");
  return out;
}

}  // namespace

bool ran_before(const json& pod_status) {
  if (!pod_status.is_object()) return false;
  for (const char* list : {"initContainerStatuses", "containerStatuses"}) {
    for (const auto& entry : pod_status.value(list, json::array())) {
      if (!entry.is_object()) continue;
      const auto state = entry.value("state", json::object());
      if (state.contains("running") || state.contains("terminated") || entry.value("restartCount", 0) > 0)
        return true;
    }
  }
  return false;
}

void resume_after_node_restart(PodRun& run, const json& pod_status, const std::string& now_wall,
                               SteadyTime now) {
  for (std::size_t i = 0; i < run.containers.size(); ++i) {
    auto& c = run.containers[i];
    const json entry = status_entry(pod_status, c);
    c.restart_count = entry.value("restartCount", 0);
    const auto state = entry.value("state", json::object());
    if (const auto last = entry.value("lastState", json::object()); last.contains("terminated"))
      c.last_state = termination_from(last["terminated"]);
    if (state.contains("terminated")) {
      c.phase = ContainerRun::Phase::terminated;
      c.terminated = termination_from(state["terminated"]);
      continue;
    }
    if (!state.contains("running")) continue;
    c.started_at = util::string_at(util::member(state, "running"), "startedAt");
    ProcessExit lost;
    lost.exit_code = 128 + SIGKILL;
    record_exit(run, i, lost, now_wall, now);
    Termination& t = c.terminated ? *c.terminated : *c.last_state;
    t.reason = k_lost_reason;
    t.message = k_lost_message;
    if (c.phase == ContainerRun::Phase::waiting) c.next_start = now;  // the node is back: no backoff
  }
}

}  // namespace kpt::local
