#pragma once

#include "controller/events.hpp"
#include "controller/reconciler.hpp"
#include "kube/api_client.hpp"
#include "model/k8s/label_selector.hpp"
#include "model/trainjob/lifecycle.hpp"
#include "model/trainjob/release.hpp"
#include "model/trainjob/status_protocol.hpp"
#include "util/clock.hpp"
#include "util/expected.hpp"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <string>

namespace kpt::controller {

class JobCache;
class Metrics;
class ChildCache;
class Expectations;

/// The stores a TrainJob reconcile reads: the TrainJobs, the pods and Services they own (ChildCache
/// kinds trainjob_pods and trainjob_services) or, with --via-jobset, their JobSets (trainjob_jobsets).
struct TrainJobCaches {
  JobCache& trainjobs;
  ChildCache& pods;
  ChildCache& services;
  ChildCache& jobsets;
  Expectations& expectations;
};

struct TrainJobOptions {
  model::trainjob::TrainerRelease release = model::trainjob::k_newest_trainer_release;
  /// Upstream fixes applied whatever `release` is: a Failed TrainJob stays Failed (kubeflow/trainer#3891).
  model::trainjob::ControllerFixes fixes{.failed_is_terminal = true};
  bool emit_events = true;
  /// --via-jobset: create the JobSet as Trainer does, for a cluster whose JobSet controller makes
  /// the Jobs and pods, instead of the pods and Service directly.
  bool via_jobset = false;
  model::k8s::LabelSelector job_selector{};  ///< the TrainJob's labels must match (--job-selector)
  std::string instance{};                    ///< the Events' reportingInstance (the lease identity)
  /// TrainJobStatus: the progress env and volume in the trainer pods, and the job's CA ConfigMap.
  std::optional<StatusClientConfig> status_clients{};
};

/// The field manager Trainer server-side applies its objects with (force: it owns them).
inline constexpr const char* k_trainer_field_manager = "trainer";

/// Reconciles a TrainJob directly into what Trainer, JobSet and the Job controller make together
/// on a real cluster, with no JobSet or Job objects: the runtime snapshot ConfigMap, the headless
/// Service and the pods (JobSet's names, hostnames, subdomain, labels and annotations, the
/// completion index), all owned by the TrainJob so that deleting it cascades. Each pass rebuilds
/// the JobSet and its Jobs in memory from the TrainJob and its snapshot, derives their status from
/// the cached pods (Job controller, then JobSet controller, then the TrainJob controller: the pure
/// model in model/trainjob), and writes only what changed. The JobSet's restart count lives in an
/// annotation of the TrainJob, its terminal state in the TrainJob's conditions.
///
/// With --via-jobset it is Trainer's TrainJob controller alone: the snapshot ConfigMap and the JobSet
/// (server-side applied, field manager `trainer`, force; only while it is missing or either side is
/// suspended), the TrainJob's conditions and jobsStatus from the JobSet's status, and the JobSet
/// deleted past the active deadline. The cluster's JobSet controller makes the rest.
class TrainJobReconciler {
 public:
  TrainJobReconciler(kube::ApiClient& client, const util::Clock& clock, TrainJobOptions options,
                     const TrainJobCaches& caches, Metrics* metrics = nullptr);

  /// True when this controller should act on the TrainJob: no managedBy of another controller
  /// (Trainer's own value is its default), and the job selector matches.
  [[nodiscard]] bool owns(const nlohmann::json& trainjob) const;

  /// `key` is "namespace/name".
  ReconcileResult reconcile(const std::string& key);

 private:
  struct Pass;

  ReconcileResult reconcile_trainjob(nlohmann::json trainjob);
  void observe(Pass& p) const;
  /// The runtime the TrainJob builds from: its snapshot ConfigMap (created from the live runtime,
  /// or the release's carried runtime, when missing), remembered per TrainJob uid.
  Expected<nlohmann::json> runtime_of(const nlohmann::json& trainjob);
  Expected<nlohmann::json> read_or_take_snapshot(const nlohmann::json& trainjob);
  /// The JobSet (defaulted, with the status kept in the TrainJob) and the Jobs of this attempt.
  Expected<void> build(Pass& p);
  /// The Job controller for each Job with pods, then the JobSet controller over them.
  void decide_children(Pass& p) const;
  Expected<void> record_restarts(Pass& p);
  /// Past the active deadline: every pod and the Service go, as with the JobSet's deletion.
  void plan_teardown(Pass& p) const;
  Expected<void> delete_children(const Pass& p);
  Expected<void> create_children(const Pass& p);
  /// Writes the status `d` decided when it changed and says when to look again (the sooner of
  /// `d`'s requeue and `also_requeue_after_seconds`); `d`'s error is the pass's, retried.
  ReconcileResult finish(nlohmann::json& trainjob, const model::trainjob::TrainJobDecision& d,
                         std::optional<std::int64_t> also_requeue_after_seconds = std::nullopt);
  /// A failed build or write: the Warning event Trainer records, and a retry.
  ReconcileResult fail(const nlohmann::json& trainjob, Error e);

  // --via-jobset (trainjob_via_jobset.cpp).
  ReconcileResult reconcile_via_jobset(nlohmann::json trainjob);
  /// The TrainJob's JobSet as Trainer's Get sees it: the cached one of its name it controls.
  model::trainjob::JobSetObservation cached_jobset(const nlohmann::json& trainjob) const;
  /// Builds the JobSet (build_jobset on the TrainJob and its runtime) and server-side applies it as
  /// Trainer does; returns the server's answer. An apply identical to the last one this controller
  /// made to the existing JobSet is not sent again (Trainer sends it on every pass while suspended).
  Expected<nlohmann::json> apply_jobset(const nlohmann::json& trainjob,
                                        const model::trainjob::JobSetObservation& observed);
  /// Past the active deadline: the JobSet goes, and its Jobs and pods with it.
  Expected<void> delete_jobset(const nlohmann::json& trainjob);

  kube::ApiClient& m_client;
  const util::Clock& m_clock;
  TrainJobOptions m_options;
  TrainJobCaches m_caches;
  Metrics* m_metrics;
  EventRecorder m_events;
  StatusClients m_status;
  std::mutex m_mutex;
  std::map<std::string, std::pair<std::string, nlohmann::json>> m_runtimes;  ///< key -> {uid, runtime}
  /// --via-jobset: key -> {TrainJob uid, SHA-1 of the JobSet body last applied}.
  std::map<std::string, std::pair<std::string, std::string>> m_applied;
};

/// Where a TrainJob's pods post their progress: the TrainJob route of the status server.
model::trainjob::StatusTarget status_target(const nlohmann::json& trainjob);

/// The annotation holding the in-memory JobSet's status.restarts and restartsCountTowardsMax
/// ("<restarts>/<towards max>").
inline constexpr const char* k_jobset_restarts_annotation = "kubectl-pytorch.kubeflow.org/jobset-restarts";

}  // namespace kpt::controller
