#pragma once

#include "plugin/follow/crash_loop.hpp"
#include "plugin/follow/failure_class.hpp"
#include "plugin/follow/traceback.hpp"

#include <nlohmann/json.hpp>

#include <chrono>
#include <optional>
#include <string>
#include <vector>

namespace kpt::plugin {

/// The tail of one run of a rank's container, as read from pods/log.
struct RunLog {
  std::string pod;
  /// The run before the current one (pods/log?previous=true). The current run of a container
  /// that ended, or waits to restart, is the one that ended: its status's `state.terminated` (or
  /// `lastState.terminated` while it waits) goes with the current log, as kubectl logs shows it.
  bool previous = false;
  std::vector<std::string> lines;  ///< its last lines, oldest first
  /// When it last wrote, when known (a timestamped log line, the local node's log file).
  std::optional<std::chrono::system_clock::time_point> last_output;
};

/// Everything the diagnosis reads: no I/O happens in it.
/// A pod of the job that was deleted and created again under its name while the follow watched (a
/// `kubectl delete pod`, an eviction, a preemption, or the operator replacing a failed pod): its
/// last run as last seen, which the new pod's status and log no longer show.
struct ReplacedRun {
  nlohmann::json pod;                               ///< as last seen
  RunLog log;                                       ///< its last run's lines
  std::chrono::system_clock::time_point last_seen;  ///< the last look that listed it
};

struct DiagnosisInput {
  nlohmann::json job;                  ///< the PyTorchJob or TrainJob
  std::vector<nlohmann::json> pods;    ///< its pods
  std::vector<nlohmann::json> events;  ///< Warning events of the job, its pods and its PodGroup
  std::vector<RunLog> logs;            ///< the runs' tails (the current and the previous run per pod)
  /// Pods deleted before their end was seen (`pods` holds them as last seen): their logs say how
  /// they ended. A failed JobSet deletes every pod of its Jobs at once, often the failed rank's.
  std::vector<std::string> deleted;
  std::vector<ReplacedRun> replaced;
  std::chrono::system_clock::time_point now;
  std::chrono::seconds silence{60};  ///< a running rank silent this long (and longer than others)
  /// Set by `run` when it saw the same failure repeat (the job would restart forever).
  int crash_loop_repeats = 0;
  StepContext step;
};

/// One rank's failed run.
struct RankFailure {
  std::string pod;
  std::string role;           ///< "worker-1", "node-0"
  int rank = -1;              ///< -1: no training rank (an initializer)
  int restarts = 0;           ///< the pod's restarts when it failed
  bool previous_run = false;  ///< the failed run is the one before the current (logs --previous)
  int exit_code = 0;
  std::string reason;  ///< the runtime's: Error, OOMKilled, StartError
  int signal = 0;
  std::string exit_text;    ///< decode_exit's words
  std::string finished_at;  ///< RFC 3339, as the status says
  std::optional<PythonError> error;
  std::string last_line;  ///< the last non-empty log line, when there is no exception
  FailureClass klass = FailureClass::none;
  bool collateral = false;
  std::optional<double> after_root;  ///< seconds after the root cause (collateral only)
  bool replaced = false;             ///< a run of a pod deleted and created again (ReplacedRun)
};

/// A running rank's silence.
struct RankSilence {
  std::string pod;
  std::string role;
  int rank = -1;
  long long seconds = 0;  ///< since its last output
  std::string last_line;
  bool silent = false;  ///< silent for at least the threshold, and longer than the others
};

enum class JobVerdict { succeeded, failed, crash_loop, stuck, pending, running, stalled, unknown };
std::string_view verdict_id(JobVerdict v);

struct Diagnosis {
  std::string kind;  ///< "pytorchjob" or "trainjob"
  std::string name;
  std::string ns;
  std::string state;  ///< the job's latest condition
  std::string message;
  JobVerdict verdict = JobVerdict::unknown;
  std::optional<RankFailure> root;          ///< the first failure by time
  std::vector<RankFailure> following;       ///< the other failed ranks, in order of time
  FailureClass klass = FailureClass::none;  ///< of the root cause, or of what keeps the job waiting
  std::string problem;                      ///< a stuck or pending job's reason in one line
  std::string next_step;                    ///< one line
  std::vector<RankSilence> ranks;           ///< a running job's ranks with the age of their last output
  std::vector<std::string> left_behind;     ///< pods still running or restarting after the job ended
  std::vector<std::string> events;          ///< "pod: Reason: message" of the job's Warning events
  int repeats = 0;                          ///< crash loop: how often the same failure came
  std::optional<BackoffBudget> backoff;     ///< a PyTorchJob's backoffLimit and what is spent of it
};

/// Why a job failed, is stuck or is slow: the root-cause rank (the first failure by its
/// container's finishedAt, a restart's lastState counted), the others marked as following it
/// when their failure usually does (a lost peer, a closed rendezvous, SIGTERM); the exit code
/// decoded; the exception from the log; a class and a next step; for a running job each rank's
/// silence. Pure: the caller reads the cluster.
Diagnosis diagnose(const DiagnosisInput& input);

}  // namespace kpt::plugin
