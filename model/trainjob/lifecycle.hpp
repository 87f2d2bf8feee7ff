#pragma once

#include "model/trainjob/lifecycle_types.hpp"
#include "model/trainjob/release.hpp"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace kpt::model::trainjob {

// Status as pure transitions, one level per real controller: the Job controller (pods -> Job
// status), the JobSet controller (Jobs -> JobSet status), and Trainer's TrainJob controller (JobSet
// status -> TrainJob status). Each takes values and a time and returns the new status plus the
// actions a reconciler performs; the same inputs give the same decision.

/// What one Job-controller pass over an Indexed Job decides.
struct JobDecision {
  JobStatus status;
  std::vector<std::int64_t> create_indexes;  ///< completion indexes that need a pod now
  std::vector<std::string> delete_pods;      ///< active pods to delete (suspend, failure, deadline)
  std::vector<Event> events;
};

/// The Job controller (kubernetes pkg/controller/job) for a created Indexed Job and its pods: counts,
/// SuccessCriteriaMet/Complete ("CompletionsReached", "Reached expected number of succeeded pods")
/// once every index succeeded, FailureTarget/Failed ("BackoffLimitExceeded", "Job has reached the
/// specified backoff limit") when failed pods exceed backoffLimit or, with restartPolicy OnFailure,
/// container restarts reach it, Failed "DeadlineExceeded" past activeDeadlineSeconds, Suspended
/// True/False ("JobSuspended"/"JobResumed"), and a pod for each index without one (up to
/// parallelism). Not modelled: pod failure policies, backoff delays between re-creations.
JobDecision decide_job(const nlohmann::json& job, const std::vector<PodObservation>& pods, util::Time now);

/// A Job the JobSet controller must create.
struct JobToCreate {
  std::string replicated_job;
  std::int64_t index = 0;
  std::string name;
  friend bool operator==(const JobToCreate&, const JobToCreate&) = default;
};

/// What one JobSet-controller pass decides.
struct JobSetDecision {
  JobSetStatus status;
  std::vector<JobToCreate> create_jobs;  ///< build them with desired_job() after this status
  std::vector<std::string> delete_jobs;  ///< previous restart attempts, or active jobs once finished
  std::vector<std::string> suspend_jobs;
  std::vector<std::string> resume_jobs;
  bool ensure_service = false;  ///< the headless Service must exist
  bool ensure_pvcs = false;     ///< the volumeClaimPolicies PVCs must exist
  bool delete_jobset = false;   ///< ttlSecondsAfterFinished expired
  std::optional<std::int64_t> requeue_after_seconds;
  std::vector<Event> events;
  std::optional<std::string>
      error;  ///< a reconcile error (status unchanged), e.g. RestartJob without its gate
  std::vector<std::string> not_modelled;  ///< parts of the spec the model ignores (InOrder startup)
};

/// The JobSet controller (kubernetes-sigs/jobset v0.12.0 jobset_controller.go, failure_policy.go,
/// success_policy.go, depends_on.go) for a defaulted JobSet (spec and status) and its child Jobs:
/// replicatedJobsStatus, the failure policy (no policy: Failed "FailedJobs"; RestartJobSet recreates
/// every Job under restart-attempt+1 up to maxRestarts, then Failed "ReachedMaxRestarts"; FailJobSet;
/// RestartJobSetAndIgnoreMaxRestarts), the success policy (Completed "AllJobsCompleted"), dependsOn
/// (a job is created once the jobs it depends on are Ready/Complete), suspend and resume, TTL.
JobSetDecision decide_jobset(const nlohmann::json& jobset, const std::vector<JobObservation>& jobs,
                             util::Time now);

/// What the TrainJob controller sees of its JobSet.
struct JobSetObservation {
  bool exists = false;
  bool suspended = false;  ///< spec.suspend of the existing JobSet
  JobSetStatus status;
};

/// What the TrainJob controller reads of its JobSet (the JobSet plugin's Get through the cache):
/// nullptr when there is none, else spec.suspend and the status the JobSet controller wrote.
JobSetObservation observe_jobset(const nlohmann::json* jobset);

/// The JobSet plugin's status step for `release`, and the error the real one returns.
struct StatusFromJobSet {
  TrainJobStatus status;
  std::optional<std::string> error;  ///< "jobsets.jobset.x-k8s.io \"<name>\" not found": status unchanged
};

/// TrainJob status from JobSet status, as `release` derives it (kubeflow/trainer
/// pkg/controller/trainjob_controller.go setTrainJobStatus with the JobSet plugin's Status, or
/// setTerminalCondition with TerminalCondition in v2.0), applied to `status`, the TrainJob's status
/// so far in the pass:
/// - the JobSet's Completed / Failed conditions, only when True, become Complete / Failed with their
///   reason, message and time (v2.0 takes one, Completed first; v2.1+ both, Completed then Failed);
///   Suspended, RestartingJobSet and StartupPolicy* are not copied;
/// - v2.1+: jobsStatus = the JobSet's replicatedJobsStatus, replaced whole (empty when it has none);
/// - a Failed condition with reason DeadlineExceeded survives whatever the JobSet says;
/// - a missing JobSet is the Get's NotFound error, except that v2.2+ leaves a finished TrainJob alone
///   (its JobSet may have gone with ttlSecondsAfterFinished).
StatusFromJobSet trainjob_status_from_jobset(const nlohmann::json& trainjob, TrainJobStatus status,
                                             const JobSetObservation& jobset, TrainerRelease release,
                                             util::Time now);

/// What one TrainJob-controller pass decides.
struct TrainJobDecision {
  TrainJobStatus status;       ///< write only when != the old status
  bool skip = false;           ///< managed by an external controller: nothing else applies
  bool apply_objects = false;  ///< build (build_jobset) and server-side apply the JobSet
  bool delete_jobset = false;  ///< the active deadline passed
  std::optional<std::int64_t> requeue_after_seconds;  ///< the deadline check
  std::optional<std::string> error;  ///< the reconcile's error (e.g. "unsupported runtime: ..."), retried
};

/// Where kubectl-pytorch's controller departs from the release it reproduces. decide_trainjob's default
/// is the release exactly (what the model's tests and explanations compare with).
struct ControllerFixes {
  /// kubeflow/trainer#3891 (master after v2.3.0): a Failed TrainJob stays Failed. Its Failed condition
  /// is not removed at the start of a pass, nothing its JobSet says later (a recreated JobSet, a Job's
  /// changed status, Completed) replaces it or adds Complete, its JobSet is never applied again (not
  /// even when it is gone, which v2.3 does, resetting the restart count) and a missing one is no error.
  bool failed_is_terminal = false;
};

/// Trainer's TrainJob reconcile for `release` (kubeflow/trainer pkg/controller/trainjob_controller.go):
/// managedBy kueue.x-k8s.io/multikueue skipped (v2.3), a non-deadline Failed condition removed first,
/// the JobSet applied unless finished (v2.1: always; v2.0: a finished TrainJob is left alone), Suspended
/// True "Suspended" / False "Resumed", Complete and Failed copied from the JobSet's Completed/Failed
/// conditions (reason, message, time), jobsStatus from replicatedJobsStatus, and the active deadline
/// (v2.2+): from creationTimestamp or the Suspended=False transition, skipped while suspended or
/// finished; on expiry Failed "DeadlineExceeded" "TrainJob exceeded its active deadline" and the JobSet
/// deleted, before it a requeue at the deadline. `runtime_supported` is false when the runtimeRef's
/// kind/group has no registered runtime.
TrainJobDecision decide_trainjob(const nlohmann::json& trainjob, const JobSetObservation& jobset,
                                 bool runtime_supported, TrainerRelease release, util::Time now,
                                 ControllerFixes fixes = {});

/// The Warning event a failed build or apply leaves on the TrainJob (its only trace):
/// reason TrainJobResourcesCreationFailed, "TrainJob resources reconciliation failed: <err>", the error
/// cut at 950 characters and then " ...".
Event resources_failed_event(const std::string& error);

/// The JobSet webhook's and controller's condition update (jobset_controller.go updateCondition):
/// same type and status change -> replaced (time now); reason/message change -> updated, time kept;
/// a new condition is added only when True. Returns whether anything changed.
bool update_jobset_condition(std::vector<Condition>& conditions, Condition condition, util::Time now);

}  // namespace kpt::model::trainjob
