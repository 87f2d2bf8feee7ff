#include "controller/reconciler.hpp"

#include "controller/expectations.hpp"
#include "controller/metrics.hpp"
#include "model/job_ownership.hpp"
#include "model/pytorchjob/desired_state.hpp"
#include "model/pytorchjob/env.hpp"
#include "model/pytorchjob/labels.hpp"
#include "model/pytorchjob/lifecycle.hpp"
#include "model/pytorchjob/lifecycle_json.hpp"
#include "util/strings.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <set>

namespace kpt::controller {

namespace {

std::string job_state(const model::pytorchjob::JobStatus& s) {
  return s.conditions.empty() ? std::string("Pending") : s.conditions.back().type;
}

constexpr const char* k_kind = "PyTorchJob";

ReconcileResult failed(Error e, bool retriable = true) { return {std::nullopt, std::move(e), retriable}; }

}  // namespace

std::pair<std::string, std::string> split_key(const std::string& key) {
  const auto slash = key.find('/');
  if (slash == std::string::npos) return {"", key};
  return {key.substr(0, slash), key.substr(slash + 1)};
}

/// One pass over one job: who it is, what the caches show of it, what the lifecycle decided and
/// what this pass will create.
struct Reconciler::Pass {
  nlohmann::json job;
  std::string ns, name, key, uid;
  model::pytorchjob::JobPolicy policy;
  model::pytorchjob::JobStatus old_status;
  model::pytorchjob::LifecycleDecision d;
  std::set<std::string> pod_names;
  std::vector<std::string> service_names;
  model::pytorchjob::GangScheduler gang;
  bool grouped = false;  ///< a PodGroup is wanted and its CRD is served
  bool held = false;     ///< Volcano has not admitted the PodGroup yet: no pods for now
  std::optional<Expected<std::vector<model::pytorchjob::ReplicaPodPlan>>> plans;
  std::vector<const model::pytorchjob::ReplicaPodPlan*> new_services;  ///< point into `plans`
  std::vector<const model::pytorchjob::ReplicaPodPlan*> new_pods;
};

Reconciler::Reconciler(kube::ApiClient& client, const util::Clock& clock, ReconcilerOptions options,
                       const ReconcilerCaches& caches, Metrics* metrics)
    : m_client(client),
      m_clock(clock),
      m_options(std::move(options)),
      m_caches(caches),
      m_metrics(metrics),
      m_events(client, clock, "kubeflow.org/v1", k_kind, k_event_component, m_options.emit_events,
               m_options.instance),
      m_status(client, m_options.status_clients, "pytorchjob-controller") {}

bool Reconciler::owns(const nlohmann::json& job) const {
  if (!model::external_manager(model::JobKind::pytorchjob, job).empty()) return false;
  return m_options.job_selector.matches(job);
}

model::pytorchjob::EnvStyle Reconciler::style_of(const nlohmann::json& job) const {
  return model::env_style_of(job, m_options.style);
}

Expected<void> Reconciler::record_style(nlohmann::json& job) {
  const auto style = model::style_to_record(job, *m_options.migrate_from, m_options.style);
  if (!style) return {};
  const nlohmann::json patch = {{"metadata", {{"annotations", {{model::k_env_style_annotation, *style}}}}}};
  const auto& meta = job.at("metadata");
  const std::string ns = meta.value("namespace", std::string{});
  const std::string name = meta.value("name", std::string{});
  auto patched =
      m_client.patch(kube::resources::pytorchjobs(), ns, name, kube::PatchType::merge, patch.dump());
  if (!patched) return patched.error().context("recording the env style of " + util::quote(ns + "/" + name));
  job = *patched;
  m_caches.jobs.put_newer(*patched);
  return {};
}

ReconcileResult Reconciler::reconcile(const std::string& key) {
  auto cached = m_caches.jobs.get(key);
  if (!cached) {
    if (m_metrics != nullptr) m_metrics->forget_job(k_kind, key);
    m_caches.expectations.forget(key);
    forget_pod_group(key);
    m_status.forget(key);
    return {};  // deleted: the garbage collector removes its children through ownerReferences
  }
  nlohmann::json job = std::move(*cached);
  if (!owns(job)) {
    if (m_metrics != nullptr) m_metrics->forget_job(k_kind, key);
    return {};
  }
  if (job.at("metadata").contains("deletionTimestamp")) return {};
  // The caches have not yet shown what the last pass created or deleted: acting now would
  // create twice or count a restart twice. The informer event that meets the expectation
  // enqueues the job again (and the expectation expires after its TTL if an event is lost).
  if (!m_caches.expectations.satisfied(key)) return {};
  return reconcile_job(std::move(job));
}

std::pair<std::vector<CachedChild>, std::vector<CachedChild>> Reconciler::children(
    const nlohmann::json& job) const {
  const std::string key = object_key(job);
  std::vector<CachedChild> pods = m_caches.pods.of_job(key);
  std::vector<CachedChild> services = m_caches.services.of_job(key);
  // Never touch what another job (or a predecessor with our name) owns.
  const std::string uid = job.at("metadata").value("uid", std::string{});
  auto foreign = [&uid](const CachedChild& c) { return c.owner_uid != uid; };
  pods.erase(std::remove_if(pods.begin(), pods.end(), foreign), pods.end());
  services.erase(std::remove_if(services.begin(), services.end(), foreign), services.end());
  return {std::move(pods), std::move(services)};
}

ReconcileResult Reconciler::reconcile_job(nlohmann::json job) {
  if (m_options.migrate_from) {
    if (auto recorded = record_style(job); !recorded) return failed(recorded.error());
  }
  Pass p;
  p.job = std::move(job);
  observe(p);
  if (m_metrics != nullptr) m_metrics->set_job_state(k_kind, p.key, job_state(p.d.status));
  if (p.d.delete_job) return delete_expired_job(p);
  plan_creations(p);
  if (auto synced = sync_gang(p); !synced) return failed(synced.error());
  m_caches.expectations.expect(p.key, static_cast<int>(p.new_services.size() + p.new_pods.size()),
                               static_cast<int>(p.d.delete_pods.size() + p.d.delete_services.size()));
  // A pass that stops half-way has writes the caches will never show: forget the expectations
  // (the next pass may then try a create again, which AlreadyExists makes harmless).
  auto fail = [&](Error e, bool retriable = true) {
    m_caches.expectations.forget(p.key);
    return failed(std::move(e), retriable);
  };
  if (auto r = record_recreations(p); !r) return fail(r.error());
  if (auto r = delete_children(p); !r) return fail(r.error());
  if (p.plans && !*p.plans) {
    event(p.job, "Warning", "PyTorchJobFailedValidation", p.plans->error().message);
    return fail(p.plans->error().context("planning pods of " + util::quote(p.key)), false);
  }
  auto live = still_live(p);
  if (!live) return fail(live.error());
  if (!*live) {
    m_caches.expectations.forget(p.key);
    return {};
  }
  if (auto r = create_children(p); !r) return fail(r.error());
  return finish(p);
}

void Reconciler::observe(Pass& p) {
  const auto& meta = p.job.at("metadata");
  p.ns = meta.value("namespace", std::string{});
  p.name = meta.value("name", std::string{});
  p.key = p.ns + "/" + p.name;
  p.uid = meta.value("uid", std::string{});
  auto [pods, services] = children(p.job);
  std::vector<model::pytorchjob::PodObservation> observed;
  for (auto& c : pods) {
    p.pod_names.insert(c.pod.name);
    observed.push_back(std::move(c.pod));
  }
  for (const auto& c : services) p.service_names.push_back(c.pod.name);
  p.policy = model::pytorchjob::job_policy_from_json(p.job);
  p.old_status = model::pytorchjob::job_status_from_json(p.job.value("status", nlohmann::json::object()));
  const auto now = std::chrono::floor<std::chrono::seconds>(m_clock.now());
  p.d = model::pytorchjob::decide_lifecycle(p.policy, p.old_status, observed, p.service_names, now);
  p.gang = model::pytorchjob::gang_for_job(p.job, m_options.gang);
  p.grouped = p.gang.kind != model::pytorchjob::GangKind::none && pod_groups_served(p.gang.kind);
  if (p.gang.kind != model::pytorchjob::GangKind::none && !p.grouped) note_missing_gang(p);
}

void Reconciler::note_missing_gang(Pass& p) {
  // The note stays on the Created condition, so nothing is rewritten on later passes.
  const auto& crd = model::pytorchjob::pod_group_api(p.gang.kind).crd_name;
  const std::string note = " Gang scheduling was asked for but the CRD " + util::quote(crd) +
                           " is missing; the pods are scheduled without a PodGroup.";
  for (auto& c : p.d.status.conditions) {
    if (c.type != "Created" || c.message.find(note) != std::string::npos) continue;
    c.message += note;
    p.d.events.push_back({"Warning", "GangSchedulingUnavailable",
                          "Gang scheduling was asked for but the CRD " + util::quote(crd) + " is missing"});
  }
}

ReconcileResult Reconciler::delete_expired_job(const Pass& p) {
  kube::DeleteOptions del;
  del.propagation_policy = "Background";
  del.precondition_uid = p.uid;
  auto r = m_client.remove(kube::resources::pytorchjobs(), p.ns, p.name, del);
  if (!r && !kube::is_not_found(r.error()))
    return failed(r.error().context("deleting expired job " + util::quote(p.key)));
  if (m_metrics != nullptr) m_metrics->forget_job(k_kind, p.key);
  m_caches.expectations.forget(p.key);
  return {};
}

void Reconciler::plan_creations(Pass& p) {
  if (!p.d.create_missing) return;
  p.plans = model::pytorchjob::plan_replica_pods(p.job, style_of(p.job));
  if (!*p.plans) return;
  const std::set<std::string> have_services(p.service_names.begin(), p.service_names.end());
  for (const auto& plan : **p.plans) {
    if (have_services.count(plan.service) == 0) p.new_services.push_back(&plan);
    // Pods deleted for a restart in this pass come back on a later one, once they are gone.
    const bool deleted_now =
        std::find(p.d.delete_pods.begin(), p.d.delete_pods.end(), plan.name) != p.d.delete_pods.end();
    if (p.pod_names.count(plan.name) == 0 && !deleted_now) p.new_pods.push_back(&plan);
  }
}

Expected<void> Reconciler::sync_gang(Pass& p) {
  if (!p.grouped) return {};
  const bool wanted = !model::pytorchjob::is_finished(p.d.status) && !p.policy.suspend;
  if (auto r = sync_pod_group(p.job, p.gang, wanted); !r) return r.error();
  if (!wanted || p.gang.kind != model::pytorchjob::GangKind::volcano || p.new_pods.empty()) return {};
  auto admitted = volcano_admitted(p.job);
  if (!admitted) return admitted.error();
  p.held = !*admitted;
  if (p.held) p.new_pods.clear();
  return {};
}

Expected<void> Reconciler::record_recreations(Pass& p) {
  // Recorded before deleting, with the pods counted: a crash in between leaves pods that the next
  // pass recognises as counted, so it deletes them without counting them again. A count that did not
  // change is not written, even if counted pods have gone since: that list is trimmed on the next write.
  if (p.d.recreations == p.policy.recreations) return {};
  namespace pj = model::pytorchjob;
  const nlohmann::json patch = {
      {"metadata",
       {{"annotations",
         {{pj::k_recreations_annotation, std::to_string(p.d.recreations)},
          {pj::k_counted_pods_annotation, pj::join_counted_pods(p.d.counted_pods)}}}}}};
  auto patched =
      m_client.patch(kube::resources::pytorchjobs(), p.ns, p.name, kube::PatchType::merge, patch.dump());
  if (!patched) return patched.error().context("recording re-creations of " + util::quote(p.key));
  p.job["metadata"]["resourceVersion"] = patched->at("metadata").at("resourceVersion");
  m_caches.jobs.put_newer(*patched);
  return {};
}

Expected<void> Reconciler::delete_children(const Pass& p) {
  for (const auto& pod : p.d.delete_pods) {
    auto r = m_client.remove(kube::resources::pods(), p.ns, pod);
    if (!r && !kube::is_not_found(r.error())) return r.error().context("deleting pod " + util::quote(pod));
    if (!r) m_caches.expectations.observe_deletion(p.key);
    event(p.job, "Normal", "SuccessfulDeletePod", "Deleted pod: " + pod);
  }
  for (const auto& svc : p.d.delete_services) {
    auto r = m_client.remove(kube::resources::services(), p.ns, svc);
    if (!r && !kube::is_not_found(r.error()))
      return r.error().context("deleting service " + util::quote(svc));
    if (!r) m_caches.expectations.observe_deletion(p.key);
    event(p.job, "Normal", "SuccessfulDeleteService", "Deleted service: " + svc);
  }
  return {};
}

Expected<bool> Reconciler::still_live(const Pass& p) {
  // The job and its children come on separate watches: a child's deletion by the garbage
  // collector can reach us before the job's own deletion (or its deletionTimestamp) does, and the
  // cached job then looks like one whose pods went missing. Before re-creating children, ask
  // the server. A first creation is not checked: a job deleted that early leaves children whose
  // owner uid is gone, which the garbage collector removes.
  const bool recreating = model::pytorchjob::find_condition(p.old_status, "Created") != nullptr;
  if ((p.new_pods.empty() && p.new_services.empty()) || !recreating) return true;
  auto live = m_client.get(kube::resources::pytorchjobs(), p.ns, p.name);
  if (!live) {
    if (kube::is_not_found(live.error())) return false;
    return live.error().context("reading job " + util::quote(p.key));
  }
  const auto& meta = live->at("metadata");
  return meta.value("uid", std::string{}) == p.uid && !meta.contains("deletionTimestamp");
}

Expected<void> Reconciler::create_children(const Pass& p) {
  for (const auto* plan : p.new_services) {
    auto r = m_client.create(kube::resources::services(), p.ns,
                             model::pytorchjob::desired_service(p.job, *plan, style_of(p.job)));
    if (!r && !kube::is_already_exists(r.error()))
      return r.error().context("creating service " + util::quote(plan->service));
    if (!r) m_caches.expectations.observe_creation(p.key);
    if (r) event(p.job, "Normal", "SuccessfulCreateService", "Created service: " + plan->service);
  }
  const model::trainjob::StatusTarget target{model::trainjob::StatusTarget::Kind::pytorchjob, p.ns, p.name};
  if (!p.new_pods.empty()) {
    if (auto ca = m_status.ensure_ca(p.job, target, "kubeflow.org/v1", "PyTorchJob"); !ca) return ca.error();
  }
  for (const auto* plan : p.new_pods) {
    auto pod = model::pytorchjob::desired_pod(p.job, *plan, style_of(p.job));
    m_status.inject(pod["spec"], target);
    if (p.grouped) model::pytorchjob::decorate_gang_pod(pod, p.name, plan->replica_type, p.gang);
    auto r = m_client.create(kube::resources::pods(), p.ns, pod);
    if (!r && !kube::is_already_exists(r.error()))
      return r.error().context("creating pod " + util::quote(plan->name));
    if (!r) m_caches.expectations.observe_creation(p.key);
    if (r) event(p.job, "Normal", "SuccessfulCreatePod", "Created pod: " + plan->name);
  }
  return {};
}

ReconcileResult Reconciler::finish(Pass& p) {
  for (const auto& e : p.d.events) event(p.job, e.type, e.reason, e.message);
  if (p.d.status != p.old_status) {
    p.job["status"] = model::pytorchjob::job_status_to_json(p.d.status);
    auto r = m_client.update_status(kube::resources::pytorchjobs(), p.ns, p.job);
    if (!r) return failed(r.error().context("updating status of " + util::quote(p.key)));
    m_caches.jobs.put_newer(*r);
    count_outcomes(p);
  }
  ReconcileResult out;
  if (p.d.requeue_after_seconds) out.requeue_after = std::chrono::seconds{*p.d.requeue_after_seconds};
  // PodGroups are not watched: while Volcano holds the group, look again every few seconds.
  constexpr std::chrono::seconds k_pod_group_poll{5};
  if (p.held && (!out.requeue_after || *out.requeue_after > k_pod_group_poll))
    out.requeue_after = k_pod_group_poll;
  return out;
}

void Reconciler::count_outcomes(const Pass& p) const {
  if (m_metrics == nullptr) return;
  const auto became = [&](const char* type) {
    const auto* now = model::pytorchjob::find_condition(p.d.status, type);
    const auto* before = model::pytorchjob::find_condition(p.old_status, type);
    return now != nullptr && now->status == "True" &&
           (before == nullptr || before->status != "True" ||
            before->last_transition_time != now->last_transition_time);
  };
  if (became("Succeeded")) m_metrics->count_job("successful", p.ns, k_kind);
  if (became("Failed")) m_metrics->count_job("failed", p.ns, k_kind);
  if (became("Restarting")) m_metrics->count_job("restarted", p.ns, k_kind);
}

Expected<bool> Reconciler::volcano_admitted(const nlohmann::json& job) {
  const auto& meta = job.at("metadata");
  const std::string name = meta.value("name", std::string{});
  const auto api = model::pytorchjob::pod_group_api(model::pytorchjob::GangKind::volcano);
  const kube::ResourceRef ref{api.group, api.version, api.plural, "PodGroup", true};
  auto pg = m_client.get(ref, meta.value("namespace", std::string{}), name);
  if (!pg) return pg.error().context("reading PodGroup " + util::quote(name));
  const auto phase = pg->value("status", nlohmann::json::object()).value("phase", std::string{});
  return !phase.empty() && phase != "Pending";
}

bool Reconciler::pod_groups_served(model::pytorchjob::GangKind kind) {
  constexpr auto k_recheck = std::chrono::minutes{1};
  const auto now = m_clock.steady_now();
  {
    std::lock_guard lock(m_gang_mutex);
    const auto it = m_served.find(kind);
    if (it != m_served.end() && now - it->second.second < k_recheck) return it->second.first;
  }
  const auto api = model::pytorchjob::pod_group_api(kind);
  auto doc = m_client.get_raw("/apis/" + api.group + "/" + api.version);
  bool served = false;
  if (doc) {
    const auto parsed = nlohmann::json::parse(*doc, nullptr, false);
    if (!parsed.is_discarded()) {
      for (const auto& r : parsed.value("resources", nlohmann::json::array())) {
        served = served || r.value("name", std::string{}) == api.plural;
      }
    }
  } else if (!kube::is_not_found(doc.error())) {
    return false;  // unknown (a transient error): ask again on the next pass
  }
  std::lock_guard lock(m_gang_mutex);
  m_served[kind] = {served, now};
  return served;
}

Expected<void> Reconciler::sync_pod_group(const nlohmann::json& job,
                                          const model::pytorchjob::GangScheduler& gang, bool wanted) {
  const auto& meta = job.at("metadata");
  const std::string ns = meta.value("namespace", std::string{});
  const std::string name = meta.value("name", std::string{});
  const std::string key = ns + "/" + name;
  const std::string uid = meta.value("uid", std::string{});
  {
    std::lock_guard lock(m_gang_mutex);
    const auto it = m_pod_groups.find(key);
    if (it != m_pod_groups.end() && it->second.first == uid && it->second.second == wanted) return {};
  }
  const auto api = model::pytorchjob::pod_group_api(gang.kind);
  const kube::ResourceRef ref{api.group, api.version, api.plural, "PodGroup", true};
  if (wanted) {
    auto r = m_client.create(ref, ns, model::pytorchjob::desired_pod_group(job, gang));
    if (!r && !kube::is_already_exists(r.error())) {
      return r.error().context("creating PodGroup " + util::quote(name));
    }
    if (r) event(job, "Normal", "SuccessfulCreatePodGroup", "Created PodGroup: " + name);
  } else {
    auto r = m_client.remove(ref, ns, name);
    if (!r && !kube::is_not_found(r.error()))
      return r.error().context("deleting PodGroup " + util::quote(name));
    if (r) event(job, "Normal", "SuccessfulDeletePodGroup", "Deleted PodGroup: " + name);
  }
  std::lock_guard lock(m_gang_mutex);
  m_pod_groups[key] = {uid, wanted};
  return {};
}

void Reconciler::forget_pod_group(const std::string& key) {
  std::lock_guard lock(m_gang_mutex);
  m_pod_groups.erase(key);
}

void Reconciler::event(const nlohmann::json& job, const std::string& type, const std::string& reason,
                       const std::string& message) {
  m_events.record(job, type, reason, message);
}

}  // namespace kpt::controller
