#pragma once

#include "controller/events.hpp"
#include "controller/reconciler.hpp"
#include "kube/api_client.hpp"
#include "model/trainjob/lifecycle.hpp"
#include "model/trainjob/release.hpp"
#include "util/clock.hpp"
#include "util/expected.hpp"

#include <nlohmann/json.hpp>

#include <map>
#include <mutex>
#include <string>

namespace kpt::controller {

class JobCache;
class ChildCache;
class Expectations;

/// The stores a TrainJob reconcile reads: the TrainJobs, and the pods and Services they own
/// (ChildCache kinds trainjob_pods and trainjob_services).
/// The Trainer v2 collections and ConfigMaps a TrainJob reconcile reads and writes.
struct TrainJobCaches {
  JobCache& trainjobs;
  ChildCache& pods;
  ChildCache& services;
  Expectations& expectations;
};

struct TrainJobOptions {
  model::trainjob::TrainerRelease release = model::trainjob::k_newest_trainer_release;
  bool emit_events = true;
};

/// Reconciles a TrainJob directly into what Trainer, JobSet and the Job controller make together
/// on a real cluster, with no JobSet or Job objects: the runtime snapshot ConfigMap, the headless
/// Service and the pods (JobSet's names, hostnames, subdomain, labels and annotations, the
/// completion index), all owned by the TrainJob so that deleting it cascades. Each pass rebuilds
/// the JobSet and its Jobs in memory from the TrainJob and its snapshot, derives their status from
/// the cached pods (Job controller, then JobSet controller, then the TrainJob controller: the pure
/// model in model/trainjob), and writes only what changed. The JobSet's restart count lives in an
/// annotation of the TrainJob, its terminal state in the TrainJob's conditions.
class TrainJobReconciler {
 public:
  TrainJobReconciler(kube::ApiClient& client, const util::Clock& clock, TrainJobOptions options,
                     const TrainJobCaches& caches);

  /// `key` is "namespace/name".
  ReconcileResult reconcile(const std::string& key);

 private:
  struct Pass;

  ReconcileResult reconcile_trainjob(nlohmann::json trainjob);
  void observe(Pass& p) const;
  /// The runtime the TrainJob builds from: its snapshot ConfigMap (created from the live runtime,
  /// or the release's carried runtime, when missing), remembered per TrainJob uid.
  Expected<nlohmann::json> runtime_of(const Pass& p);
  Expected<nlohmann::json> read_or_take_snapshot(const Pass& p);
  /// The JobSet (defaulted, with the status kept in the TrainJob) and the Jobs of this attempt.
  Expected<void> build(Pass& p);
  /// The Job controller for each Job with pods, then the JobSet controller over them.
  void decide_children(Pass& p) const;
  Expected<void> record_restarts(Pass& p);
  /// Past the active deadline: every pod and the Service go, as with the JobSet's deletion.
  void plan_teardown(Pass& p) const;
  Expected<void> delete_children(const Pass& p);
  Expected<void> create_children(const Pass& p);
  /// Writes the status `d` decided when it changed and says when to look again.
  ReconcileResult finish(Pass& p, model::trainjob::TrainJobDecision d);
  ReconcileResult fail(Pass& p, Error e);

  kube::ApiClient& m_client;
  const util::Clock& m_clock;
  TrainJobOptions m_options;
  TrainJobCaches m_caches;
  EventRecorder m_events;
  std::mutex m_mutex;
  std::map<std::string, std::pair<std::string, nlohmann::json>> m_runtimes;  ///< key -> {uid, runtime}
};

/// The annotation holding the in-memory JobSet's status.restarts and restartsCountTowardsMax
/// ("<restarts>/<towards max>").
inline constexpr const char* k_jobset_restarts_annotation = "kubectl-pytorch.kubeflow.org/jobset-restarts";

}  // namespace kpt::controller
