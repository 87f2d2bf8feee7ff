#include "controller/reconciler.hpp"

#include "controller/expectations.hpp"
#include "controller/metrics.hpp"
#include "model/pytorchjob/desired_state.hpp"
#include "model/pytorchjob/env.hpp"
#include "model/pytorchjob/labels.hpp"
#include "model/pytorchjob/lifecycle.hpp"
#include "model/pytorchjob/lifecycle_json.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <set>

namespace kpt::controller {

namespace {

constexpr const char* k_operator_managed_by = "kubeflow.org/training-operator";

std::string job_state(const model::pytorchjob::JobStatus& s) {
  return s.conditions.empty() ? std::string("Pending") : s.conditions.back().type;
}

bool labels_match(const nlohmann::json& obj, const std::string& selector) {
  if (selector.empty()) return true;
  const auto& meta = obj.at("metadata");
  const auto labels = meta.value("labels", nlohmann::json::object());
  std::size_t start = 0;
  while (start <= selector.size()) {
    const auto end = std::min(selector.find(',', start), selector.size());
    const auto term = selector.substr(start, end - start);
    const auto eq = term.find('=');
    if (eq == std::string::npos) return false;
    const auto key = term.substr(0, eq);
    if (!labels.contains(key) || labels[key] != term.substr(eq + 1)) return false;
    start = end + 1;
  }
  return true;
}

ReconcileResult failed(Error e, bool retriable = true) { return {std::nullopt, std::move(e), retriable}; }

}  // namespace

std::pair<std::string, std::string> split_key(const std::string& key) {
  const auto slash = key.find('/');
  if (slash == std::string::npos) return {"", key};
  return {key.substr(0, slash), key.substr(slash + 1)};
}

Reconciler::Reconciler(kube::ApiClient& client, const util::Clock& clock, ReconcilerOptions options,
                       Metrics* metrics, const ReconcilerCaches* caches)
    : m_client(client), m_clock(clock), m_options(std::move(options)), m_metrics(metrics), m_caches(caches) {}

bool Reconciler::owns(const nlohmann::json& job) const {
  std::string managed_by;
  const auto& spec = job.contains("spec") ? job["spec"] : nlohmann::json::object();
  if (spec.contains("runPolicy") && spec["runPolicy"].is_object()) {
    managed_by = spec["runPolicy"].value("managedBy", std::string{});
  }
  if (m_options.managed_by.empty()) {
    if (!managed_by.empty() && managed_by != k_operator_managed_by) return false;
  } else if (managed_by != m_options.managed_by) {
    return false;
  }
  return labels_match(job, m_options.job_selector);
}

ReconcileResult Reconciler::reconcile(const std::string& key) {
  const auto [ns, name] = split_key(key);
  nlohmann::json job;
  if (m_caches != nullptr) {
    auto cached = m_caches->jobs.get(key);
    if (!cached) {
      if (m_metrics != nullptr) m_metrics->forget_job(key);
      m_caches->expectations.forget(key);
      forget_pod_group(key);
      return {};  // deleted: the garbage collector removes its children through ownerReferences
    }
    job = std::move(*cached);
  } else {
    auto got = m_client.get(kube::resources::pytorchjobs(), ns, name);
    if (!got) {
      if (kube::is_not_found(got.error())) {
        if (m_metrics != nullptr) m_metrics->forget_job(key);
        forget_pod_group(key);
        return {};
      }
      return failed(got.error().context("reading PyTorchJob '" + key + "'"));
    }
    job = std::move(got).value();
  }
  if (!owns(job)) {
    if (m_metrics != nullptr) m_metrics->forget_job(key);
    return {};
  }
  if (job.at("metadata").contains("deletionTimestamp")) return {};
  // The caches have not yet shown what the last pass created or deleted: acting now would
  // create twice or count a restart twice. The informer event that meets the expectation
  // enqueues the job again (and the expectation expires after its TTL if an event is lost).
  if (m_caches != nullptr && !m_caches->expectations.satisfied(key)) return {};
  return reconcile_job(std::move(job));
}

Expected<std::pair<std::vector<CachedChild>, std::vector<CachedChild>>> Reconciler::children(
    const nlohmann::json& job) {
  const auto& meta = job.at("metadata");
  const std::string ns = meta.value("namespace", std::string{});
  const std::string name = meta.value("name", std::string{});
  const std::string key = ns + "/" + name;
  std::vector<CachedChild> pods;
  std::vector<CachedChild> services;
  if (m_caches != nullptr) {
    pods = m_caches->pods.of_job(key);
    services = m_caches->services.of_job(key);
  } else {
    kube::ListOptions opts;
    opts.label_selector =
        model::pytorchjob::selector_string(model::pytorchjob::job_selector(name, m_options.style));
    auto listed_pods = m_client.list(kube::resources::pods(), ns, opts);
    if (!listed_pods) return listed_pods.error().context("listing pods of '" + key + "'");
    auto listed_services = m_client.list(kube::resources::services(), ns, opts);
    if (!listed_services) return listed_services.error().context("listing services of '" + key + "'");
    ChildCache pod_view(ChildCache::Kind::pods);
    (void)pod_view.list_page(listed_pods->items, true, true);
    pods = pod_view.of_job(key);
    ChildCache service_view(ChildCache::Kind::services);
    (void)service_view.list_page(listed_services->items, true, true);
    services = service_view.of_job(key);
  }
  // Never touch what another job (or a predecessor with our name) owns.
  const std::string uid = meta.value("uid", std::string{});
  auto foreign = [&uid](const CachedChild& c) { return c.owner_uid != uid; };
  pods.erase(std::remove_if(pods.begin(), pods.end(), foreign), pods.end());
  services.erase(std::remove_if(services.begin(), services.end(), foreign), services.end());
  return std::make_pair(std::move(pods), std::move(services));
}

ReconcileResult Reconciler::reconcile_job(nlohmann::json job) {
  const auto& meta = job.at("metadata");
  const std::string ns = meta.value("namespace", std::string{});
  const std::string name = meta.value("name", std::string{});
  const std::string key = ns + "/" + name;
  const std::string uid = meta.value("uid", std::string{});

  auto kids = children(job);
  if (!kids) return failed(kids.error());
  std::vector<model::pytorchjob::PodObservation> observed;
  std::set<std::string> pod_names;
  for (auto& c : kids->first) {
    pod_names.insert(c.pod.name);
    observed.push_back(std::move(c.pod));
  }
  std::vector<std::string> service_names;
  for (const auto& c : kids->second) service_names.push_back(c.pod.name);

  const auto policy = model::pytorchjob::job_policy_from_json(job);
  const auto old_status =
      model::pytorchjob::job_status_from_json(job.value("status", nlohmann::json::object()));
  const auto now = std::chrono::floor<std::chrono::seconds>(m_clock.now());
  auto d = model::pytorchjob::decide_lifecycle(policy, old_status, observed, service_names, now);

  // Gang scheduling: a PodGroup while the job runs; without its CRD, say so once (an Event and a
  // note on the Created condition, which then stays, so nothing is rewritten) and run ungrouped.
  const auto gang = model::pytorchjob::gang_for_job(job, m_options.gang);
  const bool grouped = gang.kind != model::pytorchjob::GangKind::none && pod_groups_served(gang.kind);
  if (gang.kind != model::pytorchjob::GangKind::none && !grouped) {
    const std::string note = " Gang scheduling was asked for but the CRD '" +
                             model::pytorchjob::pod_group_api(gang.kind).crd_name +
                             "' is missing; the pods are scheduled without a PodGroup.";
    for (auto& c : d.status.conditions) {
      if (c.type != "Created" || c.message.find(note) != std::string::npos) continue;
      c.message += note;
      d.events.push_back({"Warning", "GangSchedulingUnavailable",
                          "Gang scheduling was asked for but the CRD '" +
                              model::pytorchjob::pod_group_api(gang.kind).crd_name + "' is missing"});
    }
  }
  if (m_metrics != nullptr) m_metrics->set_job_state(key, job_state(d.status));

  if (d.delete_job) {
    kube::DeleteOptions del;
    del.propagation_policy = "Background";
    del.precondition_uid = uid;
    auto r = m_client.remove(kube::resources::pytorchjobs(), ns, name, del);
    if (!r && !kube::is_not_found(r.error()))
      return failed(r.error().context("deleting expired job '" + key + "'"));
    if (m_metrics != nullptr) m_metrics->forget_job(key);
    if (m_caches != nullptr) m_caches->expectations.forget(key);
    return {};
  }

  // Everything this pass will create, decided before the first write so that the expectations
  // are recorded before any informer event can meet them.
  std::optional<Expected<std::vector<model::pytorchjob::ReplicaPodPlan>>> plans;
  std::vector<const model::pytorchjob::ReplicaPodPlan*> new_services;
  std::vector<const model::pytorchjob::ReplicaPodPlan*> new_pods;
  if (d.create_missing) {
    plans = model::pytorchjob::plan_replica_pods(job, m_options.style);
    if (*plans) {
      const std::set<std::string> have_services(service_names.begin(), service_names.end());
      for (const auto& plan : **plans) {
        if (have_services.count(plan.service) == 0) new_services.push_back(&plan);
        // Pods deleted for a restart in this pass come back on a later one, once they are gone.
        const bool deleted_now =
            std::find(d.delete_pods.begin(), d.delete_pods.end(), plan.name) != d.delete_pods.end();
        if (pod_names.count(plan.name) == 0 && !deleted_now) new_pods.push_back(&plan);
      }
    }
  }
  bool held = false;  // Volcano has not admitted the PodGroup yet: no pods for now
  if (grouped) {
    const bool wanted = !model::pytorchjob::is_finished(d.status) && !policy.suspend;
    if (auto r = sync_pod_group(job, gang, wanted); !r) return failed(r.error());
    if (wanted && gang.kind == model::pytorchjob::GangKind::volcano && !new_pods.empty()) {
      auto admitted = volcano_admitted(job);
      if (!admitted) return failed(admitted.error());
      held = !*admitted;
      if (held) new_pods.clear();
    }
  }
  Expectations* expectations = m_caches != nullptr ? &m_caches->expectations : nullptr;
  if (expectations != nullptr) {
    expectations->expect(key, static_cast<int>(new_services.size() + new_pods.size()),
                         static_cast<int>(d.delete_pods.size() + d.delete_services.size()));
  }
  // A pass that stops half-way has writes the caches will never show: forget the expectations
  // (the next pass may then try a create again, which AlreadyExists makes harmless).
  auto fail = [&](Error e, bool retriable = true) {
    if (expectations != nullptr) expectations->forget(key);
    return failed(std::move(e), retriable);
  };

  // Record re-creations before deleting, so a crash in between over-counts rather than under-counts.
  if (d.recreations != policy.recreations) {
    const nlohmann::json patch = {
        {"metadata",
         {{"annotations", {{model::pytorchjob::k_recreations_annotation, std::to_string(d.recreations)}}}}}};
    auto patched =
        m_client.patch(kube::resources::pytorchjobs(), ns, name, kube::PatchType::merge, patch.dump());
    if (!patched) return fail(patched.error().context("recording re-creations of '" + key + "'"));
    job["metadata"]["resourceVersion"] = patched->at("metadata").at("resourceVersion");
    if (m_caches != nullptr) m_caches->jobs.put_newer(*patched);
  }
  for (const auto& pod : d.delete_pods) {
    auto r = m_client.remove(kube::resources::pods(), ns, pod);
    if (!r && !kube::is_not_found(r.error())) return fail(r.error().context("deleting pod '" + pod + "'"));
    if (!r && expectations != nullptr) expectations->observe_deletion(key);
    event(job, "Normal", "SuccessfulDeletePod", "Deleted pod: " + pod);
  }
  for (const auto& svc : d.delete_services) {
    auto r = m_client.remove(kube::resources::services(), ns, svc);
    if (!r && !kube::is_not_found(r.error()))
      return fail(r.error().context("deleting service '" + svc + "'"));
    if (!r && expectations != nullptr) expectations->observe_deletion(key);
    event(job, "Normal", "SuccessfulDeleteService", "Deleted service: " + svc);
  }

  if (plans && !*plans) {
    event(job, "Warning", "PyTorchJobFailedValidation", plans->error().message);
    return fail(plans->error().context("planning pods of '" + key + "'"), false);
  }
  for (const auto* plan : new_services) {
    auto r = m_client.create(kube::resources::services(), ns,
                             model::pytorchjob::desired_service(job, *plan, m_options.style));
    if (!r && !kube::is_already_exists(r.error())) {
      return fail(r.error().context("creating service '" + plan->service + "'"));
    }
    if (!r && expectations != nullptr) expectations->observe_creation(key);
    if (r) event(job, "Normal", "SuccessfulCreateService", "Created service: " + plan->service);
  }
  for (const auto* plan : new_pods) {
    auto pod = model::pytorchjob::desired_pod(job, *plan, m_options.style);
    if (grouped) model::pytorchjob::decorate_gang_pod(pod, name, plan->replica_type, gang);
    auto r = m_client.create(kube::resources::pods(), ns, pod);
    if (!r && !kube::is_already_exists(r.error()))
      return fail(r.error().context("creating pod '" + plan->name + "'"));
    if (!r && expectations != nullptr) expectations->observe_creation(key);
    if (r) event(job, "Normal", "SuccessfulCreatePod", "Created pod: " + plan->name);
  }

  for (const auto& e : d.events) event(job, e.type, e.reason, e.message);
  if (d.status != old_status) {
    job["status"] = model::pytorchjob::job_status_to_json(d.status);
    auto r = m_client.update_status(kube::resources::pytorchjobs(), ns, job);
    if (!r) return failed(r.error().context("updating status of '" + key + "'"));
    if (m_caches != nullptr) m_caches->jobs.put_newer(*r);
  }
  ReconcileResult out;
  if (d.requeue_after_seconds) out.requeue_after = std::chrono::seconds{*d.requeue_after_seconds};
  // PodGroups are not watched: while Volcano holds the group, look again every few seconds.
  constexpr std::chrono::seconds k_pod_group_poll{5};
  if (held && (!out.requeue_after || *out.requeue_after > k_pod_group_poll))
    out.requeue_after = k_pod_group_poll;
  return out;
}

Expected<bool> Reconciler::volcano_admitted(const nlohmann::json& job) {
  const auto& meta = job.at("metadata");
  const std::string name = meta.value("name", std::string{});
  const auto api = model::pytorchjob::pod_group_api(model::pytorchjob::GangKind::volcano);
  const kube::ResourceRef ref{api.group, api.version, api.plural, "PodGroup", true};
  auto pg = m_client.get(ref, meta.value("namespace", std::string{}), name);
  if (!pg) return pg.error().context("reading PodGroup '" + name + "'");
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
      return r.error().context("creating PodGroup '" + name + "'");
    }
    if (r) event(job, "Normal", "SuccessfulCreatePodGroup", "Created PodGroup: " + name);
  } else {
    auto r = m_client.remove(ref, ns, name);
    if (!r && !kube::is_not_found(r.error())) return r.error().context("deleting PodGroup '" + name + "'");
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
  if (!m_options.emit_events) return;
  const auto& meta = job.at("metadata");
  const auto stamp = std::chrono::floor<std::chrono::seconds>(m_clock.now());
  const auto wall = util::format_time(stamp);
  const auto nanos =
      std::chrono::duration_cast<std::chrono::nanoseconds>(m_clock.now().time_since_epoch()).count();
  char suffix[40];
  std::snprintf(suffix, sizeof suffix, ".%llx%lx", static_cast<unsigned long long>(nanos), ++m_event_seq);
  const nlohmann::json ev = {
      {"apiVersion", "v1"},
      {"kind", "Event"},
      {"metadata",
       {{"name", meta.value("name", std::string{}) + suffix}, {"namespace", meta.value("namespace", "")}}},
      {"involvedObject",
       {{"apiVersion", "kubeflow.org/v1"},
        {"kind", "PyTorchJob"},
        {"name", meta.value("name", std::string{})},
        {"namespace", meta.value("namespace", std::string{})},
        {"uid", meta.value("uid", std::string{})}}},
      {"reason", reason},
      {"message", message},
      {"type", type},
      {"source", {{"component", "pytorchjob-controller"}}},
      {"firstTimestamp", wall},
      {"lastTimestamp", wall},
      {"count", 1}};
  // Events are best effort: a failure to record one never fails the reconcile.
  (void)m_client.create(kube::resources::events(), meta.value("namespace", std::string{}), ev);
}

}  // namespace kpt::controller
