#pragma once

#include <nlohmann/json_fwd.hpp>

#include <optional>
#include <string>
#include <vector>

namespace kpt::plugin {

/// One replica pod as `run` and `status` show it: a PyTorchJob's Master or Worker, a TrainJob's
/// node (or initializer) pod.
struct ReplicaView {
  std::string pod;
  std::string uid;
  std::string replica_type;  ///< "Master", "Worker"; for a TrainJob its replicated job: "node", ...
  int order = 0;             ///< where the type sorts: Master before Worker, initializers before nodes
  int index = 0;
  /// Node rank: master 0, workers index+1 (index when there is no Master); a TrainJob node its
  /// completion index; -1 for a pod that is no training node (a TrainJob's initializers).
  int rank = 0;
  std::string role;       ///< "worker-1", "node-0": the log prefix's first part
  std::string container;  ///< the training container, whose log is followed: "pytorch", "node"
  std::string phase;      ///< Pending, Running, Succeeded, Failed, Unknown
  int restarts = 0;
  bool started = false;  ///< the main container has run at least once
  bool running = false;  ///< the main container runs now
  std::string waiting_reason;
  std::string waiting_message;
  std::optional<int> exit_code;  ///< of the main container's latest termination
  std::string start_error;       ///< StartError message of the latest termination
  std::string unschedulable;     ///< PodScheduled=False message
  std::string started_at;        ///< when the main container's current (or last) run started, RFC 3339
};

struct JobView {
  std::string kind = "pytorchjob";  ///< as messages name it: "pytorchjob" or "trainjob"
  std::string name;
  std::string ns;
  bool exists = false;
  std::string state;    ///< type of the latest True condition (Created, Running, Succeeded, Failed, ...)
  std::string message;  ///< that condition's message
  bool finished = false;
  bool succeeded = false;
  std::vector<ReplicaView> replicas;  ///< Master first, then Workers by index (initializers, then nodes)
  int group_restarts = 0;             ///< a TrainJob's JobSet restarts (every pod recreated)
  std::string managed_by;             ///< spec.managedBy when another controller than ours runs it
  /// A finished job's run time from its status (PyTorchJob: startTime to completionTime; TrainJob:
  /// creation to its Complete or Failed condition), at the API's second resolution.
  std::optional<double> ran_for;
  /// When a finished job finished (PyTorchJob: completionTime; TrainJob: its Complete or Failed
  /// condition's lastTransitionTime), RFC 3339; empty when unknown.
  std::string finished_at;
};

/// The status of the pod's container of that name (of its first container when none has it).
nlohmann::json container_status(const nlohmann::json& pod, const std::string& container);

/// The view of a PyTorchJob or TrainJob and its pods (pods of other jobs are ignored; of a
/// TrainJob only those of its JobSet's latest restart attempt).
JobView make_job_view(const nlohmann::json& job, const std::vector<nlohmann::json>& pods);

/// "Worker x2: 1 running, 1 pending" per replica type, joined with " | ".
std::string status_line(const JobView& view);

/// The exit code `run` ends with for a finished job: 0 when it succeeded; rank 0's
/// non-zero exit code when it failed; 1 otherwise.
int job_exit_code(const JobView& view);

/// A reason the job can never progress on its own (a command that cannot start, an image that
/// cannot be pulled, a config error), or nothing.
std::optional<std::string> fatal_stall(const JobView& view);

/// Lines for states the user should see once (CrashLoopBackOff, Unschedulable ...), keyed so
/// the caller can print each once: {key, text}.
std::vector<std::pair<std::string, std::string>> notable_states(const JobView& view);

/// Whether the replica's current run began after its job finished: a pod that restarts in place
/// after a Failed job (cleanPodPolicy None) is no longer part of the run being followed.
bool started_after_end(const JobView& view, const ReplicaView& replica);

/// The one-line summary printed at the end.
std::string summary_line(const JobView& view, double seconds);

}  // namespace kpt::plugin
