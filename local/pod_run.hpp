#pragma once

#include "local/pod_spec.hpp"
#include "local/process_runner.hpp"

#include <nlohmann/json_fwd.hpp>

#include <chrono>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace kpt::local {

using SteadyTime = std::chrono::steady_clock::time_point;

struct Termination {
  int exit_code = 0;
  int signal = 0;
  std::string reason;  ///< Completed, Error, StartError, OOMKilled ...
  std::string message;
  std::string started_at;
  std::string finished_at;
};

struct ContainerRun {
  ContainerLaunch launch;
  enum class Phase { waiting, running, terminated } phase = Phase::waiting;
  std::string waiting_reason = "ContainerCreating";
  std::string waiting_message;
  int pid = 0;        ///< the supervisor's (see ProcessRunner)
  int inner_pid = 0;  ///< the pod's init or the command, for the node's process ledger
  int restart_count = 0;
  std::string started_at;
  std::optional<Termination> terminated;  ///< current state when phase == terminated
  std::optional<Termination> last_state;  ///< the previous run, after a restart
  SteadyTime next_start{};                ///< restart backoff
};

/// A pod as the local node runs it: the kubelet's state machine as plain data, so the
/// decisions (what to start, when to restart, which phase) are tested without processes.
struct PodRun {
  std::string ns;
  std::string name;
  std::string uid;
  std::string restart_policy = "Always";
  std::vector<ContainerRun> containers;  ///< init containers first, in order
  std::string start_time;
  std::string config_error;  ///< set when the pod cannot be started at all
  bool deleting = false;
  /// Set when the node ends a pod that exceeded spec.activeDeadlineSeconds: the pod's phase is
  /// Failed with this reason (DeadlineExceeded) and message, and nothing restarts.
  std::string failure_reason;
  std::string failure_message;
  /// Set while the node has not admitted the pod (its ports are held by another job's pod):
  /// kube-scheduler's message. Nothing starts, and the status is an unscheduled pod's.
  std::string unschedulable;
  /// Each condition's last value and when it took it (lastTransitionTime).
  std::map<std::string, std::pair<bool, std::string>> condition_since;
};

/// One pod condition as the kubelet reports it.
struct PodConditionValue {
  std::string type;  ///< PodScheduled, Initialized, ContainersReady, Ready
  bool status = false;
  std::string reason;
  std::string message;
};

/// Builds the run state of a newly seen pod (config errors are kept, not thrown).
PodRun make_pod_run(const nlohmann::json& pod, const NodeEnvironment& node, const std::string& now_wall,
                    const EnvSources& sources = {});

/// Indexes of containers to start now: the first unfinished init container, or, once every
/// init container completed, every main container that is waiting and past its backoff.
std::vector<std::size_t> due_starts(const PodRun& run, SteadyTime now);

/// Records a container's start.
void record_start(PodRun& run, std::size_t index, int pid, const std::string& now_wall);

/// Fails a running pod whose spec.activeDeadlineSeconds has passed, as the kubelet does:
/// phase Failed, reason DeadlineExceeded; its containers are to be stopped and not restarted.
void mark_deadline_exceeded(PodRun& run);

/// Records a container's exit and decides whether it restarts in place (restartPolicy and
/// exit code), with the kubelet's doubling backoff, capped for local use.
void record_exit(PodRun& run, std::size_t index, const ProcessExit& exit, const std::string& now_wall,
                 SteadyTime now);

/// "Pending", "Running", "Succeeded" or "Failed".
std::string pod_phase(const PodRun& run);

/// The pod's conditions now: not Ready while a container is not running (crash-looping
/// included), PodCompleted once the pod has finished.
std::vector<PodConditionValue> pod_conditions(const PodRun& run);

/// Records when each condition took its current value (call before pod_status).
void mark_conditions(PodRun& run, const std::string& now_wall);

/// The pod's `.status` as the kubelet would report it.
nlohmann::json pod_status(const PodRun& run, const NodeEnvironment& node);

/// The restart backoff after `restart_count` restarts: 1 s doubling, at most 20 s.
std::chrono::milliseconds restart_backoff(int restart_count);

}  // namespace kpt::local
