// --via-jobset: Trainer's TrainJob controller on a cluster that runs the JobSet controller
// (kubeflow/trainer pkg/controller/trainjob_controller.go and pkg/runtime/framework/plugins/jobset,
// v2.0.0 to v2.3.0). The JobSet is what build_jobset computes for the direct mode too; here it is
// applied instead of being expanded into Jobs and pods in memory.

#include "controller/expectations.hpp"
#include "controller/object_cache.hpp"
#include "controller/trainjob_reconciler.hpp"
#include "model/k8s/object_meta.hpp"
#include "model/trainjob/build.hpp"
#include "model/trainjob/constants.hpp"
#include "model/trainjob/runtime_ref.hpp"
#include "util/sha1.hpp"
#include "util/strings.hpp"

namespace kpt::controller {

namespace tj = model::trainjob;

ReconcileResult TrainJobReconciler::reconcile_via_jobset(nlohmann::json trainjob) {
  const auto now = std::chrono::floor<std::chrono::seconds>(m_clock.now());
  const bool supported = tj::runtime_ref_of(trainjob).supported();
  const tj::JobSetObservation observed = cached_jobset(trainjob);
  auto d = tj::decide_trainjob(trainjob, observed, supported, m_options.release, now, m_options.fixes);
  if (d.skip) return {};
  if (!supported) return fail(trainjob, make_error(ErrorCode::usage, *d.error));
  if (d.delete_jobset) {
    // Trainer only logs a failed delete and, the TrainJob now finished, never tries again; retrying
    // before the status says DeadlineExceeded keeps a JobSet from running past its deadline.
    if (observed.exists) {
      if (auto r = delete_jobset(trainjob); !r) return fail(trainjob, r.error());
    }
  } else if (d.apply_objects) {
    auto applied = apply_jobset(trainjob, observed);
    if (!applied) return fail(trainjob, applied.error());
    // Trainer then reads the JobSet back through its cache, which may not show the apply yet (a
    // "not found" and a retry); the apply's answer is what the cache will show.
    d = tj::decide_trainjob(trainjob, tj::observe_jobset(&*applied), true, m_options.release, now,
                            m_options.fixes);
  }
  return finish(trainjob, d);
}

tj::JobSetObservation TrainJobReconciler::cached_jobset(const nlohmann::json& trainjob) const {
  const std::string uid = model::k8s::meta_string(trainjob, "uid");
  const std::string name = model::k8s::meta_string(trainjob, "name");
  for (const auto& c : m_caches.jobsets.of_job(object_key(trainjob))) {
    if (c.owner_uid == uid && c.pod.name == name) return c.jobset;
  }
  return {};
}

Expected<nlohmann::json> TrainJobReconciler::apply_jobset(const nlohmann::json& trainjob,
                                                          const tj::JobSetObservation& observed) {
  const std::string key = object_key(trainjob);
  const std::string uid = model::k8s::meta_string(trainjob, "uid");
  const std::string name = model::k8s::meta_string(trainjob, "name");
  auto runtime = runtime_of(trainjob);
  if (!runtime) return runtime.error();
  auto built = tj::build_jobset(trainjob, *runtime, m_options.release);
  if (!built) return built.error();
  m_status.inject_jobset(built->jobset, status_target(trainjob));
  if (auto ca = m_status.ensure_ca(trainjob, status_target(trainjob), tj::k_api_version, tj::k_kind_trainjob);
      !ca)
    return ca.error();
  const std::string body = built->jobset.dump();
  const std::string digest = util::sha1_hex(body);
  if (observed.exists && observed.suspended == built->jobset["spec"].value("suspend", false)) {
    std::lock_guard lock(m_mutex);
    if (const auto it = m_applied.find(key); it != m_applied.end() && it->second == std::pair{uid, digest}) {
      nlohmann::json unchanged = std::move(built->jobset);
      unchanged["status"] = tj::to_json(observed.status);
      return unchanged;
    }
  }
  if (!observed.exists) m_caches.expectations.expect(key, 1, 0);
  kube::WriteOptions options;
  options.field_manager = k_trainer_field_manager;
  options.force = true;
  auto applied = m_client.patch(kube::resources::jobsets(), model::k8s::meta_string(trainjob, "namespace"),
                                name, kube::PatchType::apply, body, options);
  if (!applied) return applied.error().context("applying JobSet " + util::quote(name));
  // A JobSet the cache holds gets the answer now; a new one is the informer's to add, as its
  // event meets the creation expected above.
  if (observed.exists) m_caches.jobsets.put_newer(*applied);
  std::lock_guard lock(m_mutex);
  m_applied[key] = {uid, digest};
  return applied;
}

Expected<void> TrainJobReconciler::delete_jobset(const nlohmann::json& trainjob) {
  const std::string key = object_key(trainjob);
  const std::string name = model::k8s::meta_string(trainjob, "name");
  m_caches.expectations.expect(key, 0, 1);
  auto r = m_client.remove(kube::resources::jobsets(), model::k8s::meta_string(trainjob, "namespace"), name);
  if (!r && !kube::is_not_found(r.error())) return r.error().context("deleting JobSet " + util::quote(name));
  if (!r) m_caches.expectations.observe_deletion(key);
  std::lock_guard lock(m_mutex);
  m_applied.erase(key);
  return {};
}

}  // namespace kpt::controller
