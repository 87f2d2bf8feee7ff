#include "local/pod_run.hpp"

#include "util/json_access.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>

namespace kpt::local {

namespace {

using nlohmann::json;

bool is_done_ok(const ContainerRun& c) {
  return c.phase == ContainerRun::Phase::terminated && c.terminated && c.terminated->exit_code == 0;
}

bool will_restart(const std::string& policy, int exit_code) {
  if (policy == "Always") return true;
  if (policy == "OnFailure") return exit_code != 0;
  return false;
}

json termination_json(const Termination& t) {
  json out = {{"exitCode", t.exit_code},
              {"reason", t.reason},
              {"startedAt", t.started_at},
              {"finishedAt", t.finished_at}};
  if (t.signal != 0) out["signal"] = t.signal;
  if (!t.message.empty()) out["message"] = t.message;
  return out;
}

json container_status(const ContainerRun& c) {
  json state;
  if (c.phase == ContainerRun::Phase::running) {
    state = {{"running", {{"startedAt", c.started_at}}}};
  } else if (c.phase == ContainerRun::Phase::terminated && c.terminated) {
    state = {{"terminated", termination_json(*c.terminated)}};
  } else {
    json waiting = {{"reason", c.waiting_reason}};
    if (!c.waiting_message.empty()) waiting["message"] = c.waiting_message;
    state = {{"waiting", waiting}};
  }
  json out = {{"name", c.launch.name},
              {"image", "local"},
              {"imageID", ""},
              {"ready", c.phase == ContainerRun::Phase::running},
              {"started", c.phase == ContainerRun::Phase::running},
              {"restartCount", c.restart_count},
              {"state", state},
              {"lastState", json::object()}};
  if (c.last_state) out["lastState"] = {{"terminated", termination_json(*c.last_state)}};
  return out;
}

}  // namespace

std::chrono::milliseconds restart_backoff(int restart_count) {
  const int shift = std::clamp(restart_count, 0, 5);
  return std::min(std::chrono::milliseconds(1000LL << shift), std::chrono::milliseconds(20'000));
}

PodRun make_pod_run(const nlohmann::json& pod, const NodeEnvironment& node, const std::string& now_wall,
                    const EnvSources& sources) {
  PodRun run;
  const json meta = pod.value("metadata", json::object());
  run.ns = meta.value("namespace", "default");
  run.name = util::string_at(meta, "name");
  run.uid = util::string_at(meta, "uid");
  run.restart_policy = pod.value("spec", json::object()).value("restartPolicy", "Always");
  run.start_time = now_wall;
  auto launches = plan_launches(pod, node, sources);
  if (!launches) {
    run.config_error = launches.error().message;
    for (const char* list : {"initContainers", "containers"}) {
      for (const auto& c : pod.value("spec", json::object()).value(list, json::array())) {
        ContainerRun cr;
        cr.launch.name = util::string_at(c, "name");
        cr.launch.init = std::string(list) == "initContainers";
        cr.waiting_reason = "CreateContainerConfigError";
        cr.waiting_message = run.config_error;
        run.containers.push_back(std::move(cr));
      }
    }
    return run;
  }
  for (auto& l : *launches) {
    ContainerRun cr;
    cr.launch = std::move(l);
    run.containers.push_back(std::move(cr));
  }
  return run;
}

std::vector<std::size_t> due_starts(const PodRun& run, SteadyTime now) {
  std::vector<std::size_t> out;
  if (!run.config_error.empty() || !run.unschedulable.empty() || run.deleting || !run.failure_reason.empty())
    return out;
  for (std::size_t i = 0; i < run.containers.size(); ++i) {
    const auto& c = run.containers[i];
    if (!c.launch.init) continue;
    if (is_done_ok(c)) continue;
    // Init containers run one at a time; a failed one is retried or fails the pod.
    if (c.phase == ContainerRun::Phase::waiting && now >= c.next_start) out.push_back(i);
    return out;
  }
  for (std::size_t i = 0; i < run.containers.size(); ++i) {
    const auto& c = run.containers[i];
    if (!c.launch.init && c.phase == ContainerRun::Phase::waiting && now >= c.next_start) out.push_back(i);
  }
  return out;
}

void record_start(PodRun& run, std::size_t index, int pid, const std::string& now_wall) {
  auto& c = run.containers.at(index);
  c.phase = ContainerRun::Phase::running;
  c.pid = pid;
  c.started_at = now_wall;
  c.waiting_reason.clear();
  c.waiting_message.clear();
}

void record_exit(PodRun& run, std::size_t index, const ProcessExit& exit, const std::string& now_wall,
                 SteadyTime now) {
  auto& c = run.containers.at(index);
  Termination t;
  t.exit_code = exit.exit_code;
  t.signal = exit.signal;
  t.reason = exit.start_failed ? "StartError" : (exit.exit_code == 0 ? "Completed" : "Error");
  t.message = exit.start_error;
  t.started_at = c.started_at;
  t.finished_at = now_wall;
  c.pid = 0;
  c.inner_pid = 0;
  if (!run.deleting && run.failure_reason.empty() && will_restart(run.restart_policy, exit.exit_code)) {
    c.last_state = t;
    c.terminated.reset();
    c.phase = ContainerRun::Phase::waiting;
    c.waiting_reason = "CrashLoopBackOff";
    c.waiting_message = "back-off restarting failed container " + c.launch.name + " in pod " + run.name;
    if (exit.start_failed) c.waiting_message += ": " + exit.start_error;
    c.next_start = now + restart_backoff(c.restart_count);
    ++c.restart_count;
    return;
  }
  c.phase = ContainerRun::Phase::terminated;
  c.terminated = t;
}

void mark_deadline_exceeded(PodRun& run) {
  run.failure_reason = "DeadlineExceeded";
  // The kubelet's words (k8s.io/kubernetes pkg/kubelet/active_deadline.go).
  run.failure_message = "Pod was active on the node longer than the specified deadline";
  for (auto& c : run.containers) {
    if (c.phase != ContainerRun::Phase::waiting) continue;
    // Waiting ones never start again: they end as the kubelet leaves them, terminated unstarted.
    Termination t;
    t.exit_code = 137;
    t.reason = "ContainerStatusUnknown";
    t.message = "The container could not be located when the pod was terminated";
    c.phase = ContainerRun::Phase::terminated;
    c.terminated = t;
  }
}

std::string pod_phase(const PodRun& run) {
  if (!run.failure_reason.empty()) return "Failed";
  if (!run.config_error.empty()) return "Pending";
  bool any_running = false;
  bool all_terminated = true;
  bool any_failed = false;
  bool init_failed = false;
  for (const auto& c : run.containers) {
    const bool terminated = c.phase == ContainerRun::Phase::terminated;
    if (c.launch.init) {
      if (terminated && !is_done_ok(c)) init_failed = true;
      continue;
    }
    any_running = any_running || c.phase == ContainerRun::Phase::running;
    all_terminated = all_terminated && terminated;
    any_failed = any_failed || (terminated && !is_done_ok(c));
  }
  if (init_failed) return "Failed";
  if (all_terminated) return any_failed ? "Failed" : "Succeeded";
  if (any_running) return "Running";
  // Restarting in place keeps a pod Running once it has started, as the kubelet does.
  const bool started_before =
      std::any_of(run.containers.begin(), run.containers.end(), [](const ContainerRun& c) {
        return !c.launch.init && (c.restart_count > 0 || c.phase == ContainerRun::Phase::terminated);
      });
  return started_before ? "Running" : "Pending";
}

std::vector<PodConditionValue> pod_conditions(const PodRun& run) {
  if (!run.unschedulable.empty()) return {{"PodScheduled", false, "Unschedulable", run.unschedulable}};
  const std::string phase = pod_phase(run);
  std::string not_initialized;
  std::string not_ready;
  for (const auto& c : run.containers) {
    if (c.launch.init && !is_done_ok(c))
      not_initialized += (not_initialized.empty() ? "" : " ") + c.launch.name;
    if (!c.launch.init && c.phase != ContainerRun::Phase::running) {
      not_ready += (not_ready.empty() ? "" : " ") + c.launch.name;
    }
  }
  std::vector<PodConditionValue> out;
  out.push_back({"PodScheduled", true, "", ""});
  if (not_initialized.empty()) {
    out.push_back({"Initialized", true, "", ""});
  } else {
    out.push_back({"Initialized", false, "ContainersNotInitialized",
                   "containers with incomplete status: [" + not_initialized + "]"});
  }
  // The kubelet's wording (k8s.io/kubernetes pkg/kubelet/status/generate.go): a succeeded pod is not
  // ready because it completed; any other, because of the containers named.
  const bool finished = phase == "Succeeded";
  for (const char* type : {"ContainersReady", "Ready"}) {
    if (finished) {
      out.push_back({type, false, "PodCompleted", ""});
    } else if (not_ready.empty()) {
      out.push_back({type, true, "", ""});
    } else {
      out.push_back(
          {type, false, "ContainersNotReady", "containers with unready status: [" + not_ready + "]"});
    }
  }
  return out;
}

void mark_conditions(PodRun& run, const std::string& now_wall) {
  for (const auto& c : pod_conditions(run)) {
    const auto it = run.condition_since.find(c.type);
    if (it == run.condition_since.end()) {
      run.condition_since[c.type] = {c.status, run.start_time};
    } else if (it->second.first != c.status) {
      it->second = {c.status, now_wall};
    }
  }
}

nlohmann::json pod_status(const PodRun& run, const NodeEnvironment& node) {
  json init = json::array();
  json main = json::array();
  for (const auto& c : run.containers) (c.launch.init ? init : main).push_back(container_status(c));
  json conditions = json::array();
  for (const auto& c : pod_conditions(run)) {
    const auto it = run.condition_since.find(c.type);
    const bool known = it != run.condition_since.end() && it->second.first == c.status;
    json cond = {{"type", c.type},
                 {"status", c.status ? "True" : "False"},
                 {"lastProbeTime", nullptr},
                 {"lastTransitionTime", known ? it->second.second : run.start_time}};
    if (!c.reason.empty()) cond["reason"] = c.reason;
    if (!c.message.empty()) cond["message"] = c.message;
    conditions.push_back(std::move(cond));
  }
  if (!run.unschedulable.empty()) {
    // As kube-scheduler leaves a pod no node can take: no node, IPs, start time or containers.
    return {{"phase", "Pending"}, {"qosClass", "BestEffort"}, {"conditions", conditions}};
  }
  json status = {{"phase", pod_phase(run)},
                 {"hostIP", node.pod_ip},
                 {"hostIPs", json::array({{{"ip", node.pod_ip}}})},
                 {"podIP", node.pod_ip},
                 {"podIPs", json::array({{{"ip", node.pod_ip}}})},
                 {"qosClass", "BestEffort"},
                 {"startTime", run.start_time},
                 {"conditions", conditions},
                 {"containerStatuses", main}};
  if (!init.empty()) status["initContainerStatuses"] = init;
  if (!run.config_error.empty()) status["message"] = run.config_error;
  if (!run.failure_reason.empty()) {
    status["reason"] = run.failure_reason;
    status["message"] = run.failure_message;
  }
  return status;
}

}  // namespace kpt::local
