#pragma once

#include "plugin/follow/job_view.hpp"
#include "plugin/follow/progress.hpp"

#include <nlohmann/json.hpp>

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace kpt::plugin {

struct JobKind;

/// What `status` shows of one job at one moment: the view, its progress, how long it has run
/// (or ran) and its restarts, and, for `-o wide`, when each replica last wrote.
struct JobStatus {
  const JobKind* kind = nullptr;
  nlohmann::json object;
  JobView view;
  std::optional<ProgressView> progress;
  std::string start_time;          ///< PyTorchJob status.startTime (else creation); TrainJob creation
  std::string finish_time;         ///< PyTorchJob completionTime; TrainJob's Complete or Failed condition
  std::optional<double> duration;  ///< finish (or now) minus start, seconds
  int restarts = 0;                ///< the replicas' container restarts and the JobSet's restarts
  std::map<std::string, WallTime> last_output;  ///< pod -> when its log last grew (-o wide)
};

/// The status of `job` (and `pods`) at `now`, without progress and last output (which need logs).
JobStatus make_job_status(const JobKind& kind, const nlohmann::json& job,
                          const std::vector<nlohmann::json>& pods, WallTime now);

/// "1m5s" (kubectl's age format) or "-".
std::string duration_cell(const std::optional<double>& seconds);

/// One job as text: the header, its condition's message, "  duration: ..., restarts: ...",
/// "  progress: ..." when known, then the replicas' table (`wide`: type, index, last output age,
/// message).
std::string job_text(const JobStatus& s, bool wide, WallTime now);

/// The jobs as a table: NAME STATE PROGRESS ETA DURATION RESTARTS AGE, NAMESPACE first with
/// `all_namespaces`, PODS and MESSAGE last when `wide`. `header` false: the rows only.
std::string jobs_table(const std::vector<JobStatus>& jobs, bool all_namespaces, bool wide, bool header,
                       WallTime now);

/// `status NAME -o json`: the view with its replicas, and progress, startTime, finishTime,
/// durationSeconds and restarts (each replica's lastOutputTime when known).
nlohmann::json job_json(const JobStatus& s);

/// One item of `status -o json`'s list.
nlohmann::json listed_job_json(const JobStatus& s, WallTime now);

/// `status NAME -w` piped: one line per change, "<state> <progress> duration D restarts R".
std::string watch_line(const JobStatus& s);

}  // namespace kpt::plugin
