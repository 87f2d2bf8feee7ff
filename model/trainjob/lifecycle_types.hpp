#pragma once

#include "util/time.hpp"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace kpt::model::trainjob {

/// A metav1.Condition (TrainJob, JobSet) or a batch/v1 JobCondition.
struct Condition {
  std::string type;
  std::string status;  ///< "True" / "False"
  std::string reason;
  std::string message;
  std::string last_transition_time;
  friend bool operator==(const Condition&, const Condition&) = default;
};

/// Per replicated job counts: TrainJob status.jobsStatus and JobSet status.replicatedJobsStatus.
struct ReplicatedJobCounts {
  std::string name;
  std::int64_t ready = 0;
  std::int64_t succeeded = 0;
  std::int64_t failed = 0;
  std::int64_t active = 0;
  std::int64_t suspended = 0;
  friend bool operator==(const ReplicatedJobCounts&, const ReplicatedJobCounts&) = default;
};

/// A TrainJob's status.
struct TrainJobStatus {
  std::vector<Condition> conditions;
  std::vector<ReplicatedJobCounts> jobs_status;
  friend bool operator==(const TrainJobStatus&, const TrainJobStatus&) = default;
};

/// A JobSet's status.
struct JobSetStatus {
  std::vector<Condition> conditions;
  std::int64_t restarts = 0;
  std::int64_t restarts_count_towards_max = 0;
  std::vector<ReplicatedJobCounts> replicated_jobs_status;
  std::string terminal_state;  ///< "", "Completed", "Failed"
  friend bool operator==(const JobSetStatus&, const JobSetStatus&) = default;
};

/// A batch/v1 Job's status as the Job controller writes it (the parts JobSet reads).
struct JobStatus {
  std::int64_t active = 0;
  std::int64_t ready = 0;
  std::int64_t succeeded = 0;
  std::int64_t failed = 0;
  std::string completed_indexes;  ///< "0-2,4"
  std::optional<std::string> start_time;
  std::optional<std::string> completion_time;
  std::vector<Condition> conditions;  ///< Suspended, Complete, Failed
  friend bool operator==(const JobStatus&, const JobStatus&) = default;
};

/// An event a controller records.
struct Event {
  std::string type;  ///< Normal / Warning
  std::string reason;
  std::string message;
  friend bool operator==(const Event&, const Event&) = default;
};

/// One pod of an Indexed Job, as the Job controller sees it.
struct PodObservation {
  std::string name;
  std::int64_t index = 0;     ///< batch.kubernetes.io/job-completion-index
  std::string phase;          ///< Pending, Running, Succeeded, Failed, Unknown
  bool ready = false;         ///< the Ready condition is True
  std::int64_t restarts = 0;  ///< restartCount summed over containers and init containers
  bool deleting = false;      ///< metadata.deletionTimestamp is set
};

/// One child Job of a JobSet, as the JobSet controller sees it.
struct JobObservation {
  std::string name;
  std::string replicated_job;        ///< jobset.sigs.k8s.io/replicatedjob-name
  std::int64_t restart_attempt = 0;  ///< jobset.sigs.k8s.io/restart-attempt
  std::int64_t parallelism = 1;
  std::optional<std::int64_t> completions;
  bool suspended = false;  ///< spec.suspend
  JobStatus status;
};

/// Reads a TrainJob's / JobSet's / Job's status (missing or malformed parts read as empty).
TrainJobStatus trainjob_status_of(const nlohmann::json& trainjob);
JobSetStatus jobset_status_of(const nlohmann::json& jobset);
JobObservation job_observation_of(const nlohmann::json& job);

/// The status objects as the API writes them.
nlohmann::json to_json(const TrainJobStatus& status);
nlohmann::json to_json(const JobSetStatus& status);
nlohmann::json to_json(const JobStatus& status);

/// The condition of `type`, or nullptr.
const Condition* find_condition(const std::vector<Condition>& conditions, const std::string& type);
/// A condition of `type` with status True exists.
bool is_true(const std::vector<Condition>& conditions, const std::string& type);

/// apimachinery meta.SetStatusCondition: adds (stamped `now` unless it has a time), or updates status
/// (taking the new time, or `now`), reason and message in place. Returns whether anything changed.
bool set_status_condition(std::vector<Condition>& conditions, Condition condition, util::Time now);

/// The TrainJob printer column `State`: the type of the last condition whatever its status, or "".
std::string state_column(const TrainJobStatus& status);

}  // namespace kpt::model::trainjob
