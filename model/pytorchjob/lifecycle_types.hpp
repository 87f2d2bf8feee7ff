#pragma once

#include "util/time.hpp"

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace kpt::model::pytorchjob {

/// Per-replica restart policy (pkg/apis/kubeflow.org/v1/common_types.go). ExitCode restarts only on exit
/// codes >= 128 (v1.5+ pkg/util/train/train_util.go).
enum class RestartPolicy { always, on_failure, never, exit_code };
/// runPolicy.cleanPodPolicy. The PyTorchJob default is None (pytorch_defaults.go).
enum class CleanPodPolicy { none, running, all };

/// A job condition as v1.7+ writes it (pkg/controller.v1/common/job.go, pkg/util/status.go).
struct Condition {
  std::string type;    ///< Created, Running, Restarting, Succeeded, Failed, Suspended
  std::string status;  ///< "True" / "False"
  std::string reason;  ///< PyTorchJobCreated, ...
  std::string message;
  std::string last_update_time;
  std::string last_transition_time;
  friend bool operator==(const Condition&, const Condition&) = default;
};

struct ReplicaStatus {
  int active = 0;
  int succeeded = 0;
  int failed = 0;
  std::string selector;  ///< v1.6+ string selector
  friend bool operator==(const ReplicaStatus&, const ReplicaStatus&) = default;
};

struct JobStatus {
  std::vector<Condition> conditions;
  std::map<std::string, ReplicaStatus> replica_statuses;  ///< "Master", "Worker"
  std::optional<std::string> start_time;
  std::optional<std::string> completion_time;
  friend bool operator==(const JobStatus&, const JobStatus&) = default;
};

struct ReplicaPolicy {
  int replicas = 1;
  RestartPolicy restart_policy = RestartPolicy::on_failure;
};

/// What the lifecycle needs from a PyTorchJob's spec and metadata.
struct JobPolicy {
  std::string name;
  std::string namespace_;
  std::map<std::string, ReplicaPolicy> replicas;  ///< "Master", "Worker"
  bool elastic = false;
  std::optional<int> backoff_limit;
  std::optional<long> active_deadline_seconds;
  std::optional<long> ttl_seconds_after_finished;
  CleanPodPolicy clean_pod_policy = CleanPodPolicy::none;
  bool suspend = false;
  int recreations = 0;  ///< pods re-created after a failure so far (our annotation)
  /// UIDs of failed pods already in `recreations` whose deletion may not have happened yet (our
  /// annotation, written with the count): a controller killed between recording a re-creation and
  /// deleting the pod must not count that pod again when it restarts.
  std::set<std::string> counted_pods;
};

/// One existing pod of the job, as the lifecycle sees it.
struct PodObservation {
  std::string name;
  std::string uid;
  std::string replica_type;  ///< "Master" / "Worker"
  int index = 0;
  std::string phase;             ///< Pending, Running, Succeeded, Failed, Unknown
  std::optional<int> exit_code;  ///< terminated exit code of the container named pytorch
  int restart_count = 0;         ///< sum over containers and init containers
  bool deleting = false;         ///< metadata.deletionTimestamp is set
};

struct EventRecord {
  std::string type;  ///< Normal / Warning
  std::string reason;
  std::string message;
  friend bool operator==(const EventRecord&, const EventRecord&) = default;
};

/// What one reconcile pass must do, decided from values alone.
struct LifecycleDecision {
  JobStatus status;                      ///< the status to write (write only if != old)
  bool create_missing = false;           ///< create missing Pods/Services
  std::vector<std::string> delete_pods;  ///< pod names (their Services have the same names)
  std::vector<std::string> delete_services;
  int recreations = 0;                        ///< new value for the job's recreation count
  std::set<std::string> counted_pods;         ///< new value: counted pods that still exist
  bool delete_job = false;                    ///< ttlSecondsAfterFinished expired
  std::optional<long> requeue_after_seconds;  ///< next deadline or TTL check
  std::vector<EventRecord> events;
};

}  // namespace kpt::model::pytorchjob
