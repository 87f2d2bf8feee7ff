#pragma once

#include "model/pytorchjob/lifecycle_types.hpp"

#include <optional>
#include <string>
#include <vector>

namespace kpt::model::pytorchjob {

/// Condition reasons as v1.7+ names them: "PyTorchJob" + Created, Running, ...
inline constexpr const char* k_reason_created = "PyTorchJobCreated";
inline constexpr const char* k_reason_running = "PyTorchJobRunning";
inline constexpr const char* k_reason_restarting = "PyTorchJobRestarting";
inline constexpr const char* k_reason_succeeded = "PyTorchJobSucceeded";
inline constexpr const char* k_reason_failed = "PyTorchJobFailed";
inline constexpr const char* k_reason_suspended = "PyTorchJobSuspended";
inline constexpr const char* k_reason_resumed = "PyTorchJobResumed";

/// True when a failed pod under `policy` should be re-created: Always and OnFailure always,
/// ExitCode only for exit codes >= 128 (killed by a signal), Never never.
bool is_retryable(RestartPolicy policy, std::optional<int> exit_code);

/// The condition of `type`, or nullptr.
const Condition* find_condition(const JobStatus& status, const std::string& type);
/// True when a condition of `type` has status "True".
bool has_true_condition(const JobStatus& status, const std::string& type);
/// Succeeded or Failed is True: nothing but clean-up and TTL happens any more.
bool is_finished(const JobStatus& status);

/// Sets a condition with the operator's rules (pkg/util/status.go setCondition): no change when type, status
/// and reason are already there; Running and Restarting replace each other; Succeeded or Failed flip Running
/// to False. Returns whether anything changed.
bool set_condition(JobStatus& status, const std::string& type, const std::string& cond_status,
                   const std::string& reason, const std::string& message, util::Time now);

/// What backoffLimit counts: the in-place restarts of the pods not being deleted whose replica may
/// restart (not Never), and the re-creations recorded on the job.
struct RetryCount {
  int in_place = 0;
  int recreations = 0;
  [[nodiscard]] int total() const { return in_place + recreations; }
};
RetryCount count_retries(const JobPolicy& job, const std::vector<PodObservation>& pods);

/// Whether the retries have spent the job's backoffLimit without a new failure: in-place restarts
/// reaching it, as the operator's PastBackoffLimit counts them (`>=`; any restart for a limit of 0),
/// or all retries past it. A new failure needs one retry more (`total() + 1 > limit`).
bool past_backoff_limit(const JobPolicy& job, const RetryCount& retries);

/// The in-place restarts still to come before past_backoff_limit holds for `limit`: 0 when it
/// holds already (or the next failure fails the job).
int restarts_left(int limit, const RetryCount& retries);

/// `training.kubeflow.org/job-name=<job>,...,replica-type=<lower rtype>`, the selector the operator
/// writes into replicaStatuses[].selector.
std::string replica_selector(const std::string& job, const std::string& replica_type);

/// One level-triggered pass of the job lifecycle: from the job's policy, its last status, the
/// pods and Services that exist and the time `now`, decides the new status, what to create or
/// delete, whether the TTL has expired, and when to look again. Pure and deterministic: the
/// same inputs give the same decision, so an unchanged world gives an unchanged status.
LifecycleDecision decide_lifecycle(const JobPolicy& job, const JobStatus& old_status,
                                   const std::vector<PodObservation>& pods,
                                   const std::vector<std::string>& services, util::Time now);

}  // namespace kpt::model::pytorchjob
