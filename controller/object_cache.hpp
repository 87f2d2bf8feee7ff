#pragma once

#include "kube/api_client.hpp"
#include "model/pytorchjob/lifecycle_types.hpp"
#include "model/trainjob/lifecycle.hpp"
#include "model/trainjob/lifecycle_types.hpp"

#include <nlohmann/json_fwd.hpp>

#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

namespace kpt::controller {

/// A Pod or Service of a PyTorchJob, trimmed to what the reconciler reads: the uid of the
/// controlling owner and, for pods, the lifecycle's observation (name, replica, phase, exit code,
/// restarts, deleting). Keeping this instead of the full object is what keeps the controller's
/// memory flat: a full pod with its env is ~50x larger.
struct CachedChild {
  std::string owner_uid;
  model::pytorchjob::PodObservation pod;  ///< only `name` is set for Services and TrainJob pods
  /// A TrainJob's pod: the Job controller's observation (completion index, ready, restarts).
  model::trainjob::PodObservation indexed;
  std::string job_name;              ///< batch.kubernetes.io/job-name of a TrainJob's pod
  std::int64_t restart_attempt = 0;  ///< jobset.sigs.k8s.io/restart-attempt of a TrainJob's pod
  /// A TrainJob's JobSet (--via-jobset): what Trainer reads of it, spec.suspend and the status.
  model::trainjob::JobSetObservation jobset;
  std::string resource_version;  ///< of a JobSet, so that our own apply's answer is not replaced by older
};

/// What applying one object to a ChildCache changed, for the event handler: which job to
/// enqueue and whether an expectation (creation / deletion) was met.
struct ChildChange {
  std::string job_key;  ///< "ns/job" of the controlling PyTorchJob; empty: not a job's child
  bool created = false;
  bool deleted = false;
};

/// The informer's store for Pods or Services, indexed by owning job ("ns/job"): a PyTorchJob's, or
/// with the trainjob_ kinds a TrainJob's (its controlling owner reference names the kind), JobSets
/// included. Thread-safe; readers get copies, so nothing cached is ever mutated by a reconcile.
class ChildCache {
 public:
  enum class Kind { pods, services, trainjob_pods, trainjob_services, trainjob_jobsets };
  explicit ChildCache(Kind kind) : m_kind(kind) {}

  /// Applies one watch event (added / modified / deleted).
  ChildChange apply(kube::WatchEvent::Type type, const nlohmann::json& obj);
  /// One page of a fresh (re-)list: `first` starts the list, `last` ends it, and then whatever
  /// the list did not show is dropped and reported deleted. Returns the changes of this page.
  std::vector<ChildChange> list_page(const std::vector<nlohmann::json>& items, bool first, bool last);
  /// Stores the answer of our own write to a cached child when it is newer than the cached copy, so
  /// a pass before the watch event does not act on what the write changed. A child not cached is
  /// left to the informer, whose event meets the creation expectation.
  void put_newer(const nlohmann::json& obj);
  /// The children of a job, by name order.
  [[nodiscard]] std::vector<CachedChild> of_job(const std::string& job_key) const;
  [[nodiscard]] std::size_t size() const;

 private:
  ChildChange apply_locked(kube::WatchEvent::Type type, const nlohmann::json& obj);

  Kind m_kind;
  mutable std::mutex m_mutex;
  std::unordered_map<std::string, std::map<std::string, CachedChild>> m_by_job;
  std::size_t m_size = 0;
  std::set<std::pair<std::string, std::string>> m_listed;  ///< {job key, name} seen by the list
};

/// The informer's store for PyTorchJobs: the whole job (its templates feed the pods), without
/// managedFields. A write of our own is put in at once (`put_newer`), and an older
/// resourceVersion never replaces a newer one, so a pass right after a status write does not act
/// on the stale copy the watch has not replaced yet.
class JobCache {
 public:
  JobCache();
  ~JobCache();
  JobCache(const JobCache&) = delete;
  JobCache& operator=(const JobCache&) = delete;

  /// Applies one watch event; returns the job key "ns/name".
  std::string apply(kube::WatchEvent::Type type, const nlohmann::json& job);
  /// One page of a fresh (re-)list (see ChildCache::list_page); returns the keys of the jobs
  /// listed on this page and, on the last, of those dropped.
  std::vector<std::string> list_page(const std::vector<nlohmann::json>& items, bool first, bool last);
  /// Stores the result of our own write if the job is still cached and this is newer.
  void put_newer(const nlohmann::json& job);
  /// A copy of the cached job.
  [[nodiscard]] std::optional<nlohmann::json> get(const std::string& key) const;
  [[nodiscard]] std::size_t size() const;

 private:
  void store_locked(const nlohmann::json& job, bool only_if_present);

  mutable std::mutex m_mutex;
  std::map<std::string, std::unique_ptr<nlohmann::json>> m_jobs;
  std::set<std::string> m_listed;
};

/// "ns/name" of an object.
std::string object_key(const nlohmann::json& obj);

}  // namespace kpt::controller
