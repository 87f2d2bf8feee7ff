#pragma once

#include "controller/events.hpp"
#include "controller/object_cache.hpp"
#include "controller/status_clients.hpp"
#include "kube/api_client.hpp"
#include "model/k8s/label_selector.hpp"
#include "model/pytorchjob/env_style.hpp"
#include "model/pytorchjob/gang.hpp"
#include "util/clock.hpp"
#include "util/expected.hpp"

#include <atomic>
#include <chrono>
#include <map>
#include <mutex>
#include <optional>
#include <string>

namespace kpt::controller {

class Metrics;
class JobCache;
class ChildCache;
class Expectations;

/// The informers' stores a reconcile reads instead of asking the API server, and the
/// expectations that keep it from acting on a store that has not yet seen its own writes.
struct ReconcilerCaches {
  JobCache& jobs;
  ChildCache& pods;
  ChildCache& services;
  Expectations& expectations;
};

/// Which jobs are ours and how their pods are built.
struct ReconcilerOptions {
  model::pytorchjob::EnvStyle style;  ///< env style of the pods we create (default worker-only); a job's
                                      ///< env-style annotation wins (model/job_ownership.hpp)
  /// --migrate-from: the style of the controller whose jobs this one takes over; each job gets the
  /// env-style annotation on first sight (style_to_record), so its pods keep their env.
  std::optional<model::pytorchjob::EnvStyle> migrate_from{};
  model::k8s::LabelSelector job_selector{};  ///< the job's labels must match (--job-selector)
  bool emit_events = true;                   ///< write core v1 Events for what we do
  std::string instance{};                    ///< the Events' reportingInstance (the lease identity)
  model::pytorchjob::GangScheduler gang;     ///< --gang-scheduler: PodGroups for every job (else only for
                                             ///< jobs that set runPolicy.schedulingPolicy, with Volcano)
  /// TrainJobStatus: the progress env and volume in every pod, and the job's CA ConfigMap.
  std::optional<StatusClientConfig> status_clients{};
};

/// What reconcile(key) tells the work queue.
struct ReconcileResult {
  std::optional<std::chrono::seconds> requeue_after;  ///< look again then (deadlines, TTL)
  std::optional<Error> error;                         ///< set: the pass failed
  bool retriable = true;                              ///< with error: retry with backoff, else drop
};

/// Level-triggered, idempotent reconciliation of one PyTorchJob into its headless Services and
/// Pods: reads the job and its children, asks the pure lifecycle model what to do, creates what
/// is missing (deterministic names, AlreadyExists counts as success), deletes what must go and
/// writes status through /status only when it changed.
class Reconciler {
 public:
  /// Every pass reads the job, its pods and its Services from `caches` (the informers' stores)
  /// and writes through `client`.
  Reconciler(kube::ApiClient& client, const util::Clock& clock, ReconcilerOptions options,
             const ReconcilerCaches& caches, Metrics* metrics = nullptr);

  /// `key` is "namespace/name".
  ReconcileResult reconcile(const std::string& key);

  /// True when this controller should act on the job: no managedBy of another controller, and the
  /// job selector matches.
  [[nodiscard]] bool owns(const nlohmann::json& job) const;

 private:
  struct Pass;  ///< what one reconcile of one job observed and decided, step by step

  ReconcileResult reconcile_job(nlohmann::json job);
  /// --migrate-from: writes the env-style annotation the job lacks (and updates `job`).
  Expected<void> record_style(nlohmann::json& job);
  /// The env style of the job's pods (its annotation, else ours).
  [[nodiscard]] model::pytorchjob::EnvStyle style_of(const nlohmann::json& job) const;
  /// Counts the job outcomes (successful, failed, restarted) a status change means.
  void count_outcomes(const Pass& p) const;
  /// Reads the job's children from the caches and asks the lifecycle model what to do.
  void observe(Pass& p);
  /// Without the PodGroup CRD: a Warning and a note on the Created condition, once.
  void note_missing_gang(Pass& p);
  ReconcileResult delete_expired_job(const Pass& p);
  /// Everything the pass will create, decided before the first write so that the expectations
  /// are recorded before any informer event can meet them.
  void plan_creations(Pass& p);
  /// The PodGroup while the job runs; Volcano's admission holds the pods back (`p.held`).
  Expected<void> sync_gang(Pass& p);
  Expected<void> record_recreations(Pass& p);
  Expected<void> delete_children(const Pass& p);
  /// Whether the server still has the job, undeleted, before children are created again.
  Expected<bool> still_live(const Pass& p);
  Expected<void> create_children(const Pass& p);
  /// Writes the status when it changed and says when to look again.
  ReconcileResult finish(Pass& p);
  /// The job's pods and Services the caches hold, without those another job owns.
  std::pair<std::vector<CachedChild>, std::vector<CachedChild>> children(const nlohmann::json& job) const;
  /// Whether the API server serves the PodGroups of `kind` (discovery; asked again after a minute).
  bool pod_groups_served(model::pytorchjob::GangKind kind);
  /// Creates the job's PodGroup while it runs and deletes it once it is finished or suspended,
  /// each at most once per job and process (AlreadyExists and NotFound count as success).
  Expected<void> sync_pod_group(const nlohmann::json& job, const model::pytorchjob::GangScheduler& gang,
                                bool wanted);
  /// Volcano only: whether the job's PodGroup left phase Pending (the v1.7+ operator creates no pods
  /// before, pkg/controller.v1/common/pod.go DelayPodCreationDueToPodGroup).
  Expected<bool> volcano_admitted(const nlohmann::json& job);
  void forget_pod_group(const std::string& key);
  void event(const nlohmann::json& job, const std::string& type, const std::string& reason,
             const std::string& message);

  kube::ApiClient& m_client;
  const util::Clock& m_clock;
  ReconcilerOptions m_options;
  ReconcilerCaches m_caches;
  Metrics* m_metrics;
  EventRecorder m_events;
  StatusClients m_status;
  std::mutex m_gang_mutex;
  std::map<model::pytorchjob::GangKind, std::pair<bool, std::chrono::steady_clock::time_point>> m_served;
  std::map<std::string, std::pair<std::string, bool>> m_pod_groups;  ///< job key -> {uid, exists}
};

/// "ns/name" -> {ns, name}; a key without '/' has an empty namespace.
std::pair<std::string, std::string> split_key(const std::string& key);

}  // namespace kpt::controller
