#include "controller/trainjob_reconciler.hpp"

#include "controller/expectations.hpp"
#include "controller/metrics.hpp"
#include "controller/object_cache.hpp"
#include "model/job_ownership.hpp"
#include "model/trainjob/build.hpp"
#include "model/trainjob/constants.hpp"
#include "model/trainjob/jobset_children.hpp"
#include "model/trainjob/lifecycle.hpp"
#include "model/trainjob/runtime_ref.hpp"
#include "util/sha1.hpp"
#include "util/strings.hpp"

#include <algorithm>
#include <charconv>
#include <memory>
#include <set>

namespace kpt::controller {

namespace tj = model::trainjob;

namespace {

/// A stable UUID-shaped id for an object that exists only in memory (the JobSet, its Jobs): their
/// uids reach pod labels (jobset-uid, controller-uid), so they must not change between passes.
std::string derived_uid(const std::string& seed) {
  const std::string h = util::sha1_hex(seed);
  return h.substr(0, 8) + "-" + h.substr(8, 4) + "-" + h.substr(12, 4) + "-" + h.substr(16, 4) + "-" +
         h.substr(20, 12);
}

/// The 5 characters the API server appends to a generateName, here derived from the TrainJob, the
/// restart attempt and the index, so a retried create meets AlreadyExists instead of making a
/// second pod (the alphabet is apimachinery's utilrand one: no vowels, no 0/1/3).
tj::PodNameSuffix deterministic_suffix(std::string seed) {
  return [seed = std::move(seed)](const std::string& generate_name, std::int64_t) {
    static constexpr std::string_view k_alphabet = "bcdfghjklmnpqrstvwxz2456789";
    const std::string h = util::sha1_hex(seed + "/" + generate_name);
    std::string out;
    for (std::size_t i = 0; i < 5; ++i) {
      unsigned v = 0;
      std::from_chars(h.data() + 2 * i, h.data() + 2 * i + 2, v, 16);
      out += k_alphabet[v % k_alphabet.size()];
    }
    return out;
  };
}

nlohmann::json trainjob_owner(const nlohmann::json& trainjob) {
  const auto& meta = trainjob.at("metadata");
  return nlohmann::json::array({{{"apiVersion", tj::k_api_version},
                                 {"kind", tj::k_kind_trainjob},
                                 {"name", meta.value("name", std::string{})},
                                 {"uid", meta.value("uid", std::string{})},
                                 {"controller", true},
                                 {"blockOwnerDeletion", true}}});
}

std::pair<std::int64_t, std::int64_t> restarts_of(const nlohmann::json& trainjob) {
  const auto annotations = trainjob.at("metadata").value("annotations", nlohmann::json::object());
  const auto it = annotations.find(k_jobset_restarts_annotation);
  if (it == annotations.end() || !it->is_string()) return {0, 0};
  const auto& s = it->get_ref<const std::string&>();
  std::int64_t restarts = 0, towards_max = 0;
  const auto slash = s.find('/');
  std::from_chars(s.data(), s.data() + std::min(slash, s.size()), restarts);
  if (slash != std::string::npos) std::from_chars(s.data() + slash + 1, s.data() + s.size(), towards_max);
  return {std::max<std::int64_t>(0, restarts), std::max<std::int64_t>(0, towards_max)};
}

/// The JobSet status as far as the TrainJob keeps it: the restart counts, the replicated job counts
/// and, once the TrainJob finished, the Completed/Failed condition it copied (so a finished job is
/// never re-derived from pods that are gone).
tj::JobSetStatus kept_jobset_status(const nlohmann::json& trainjob) {
  const tj::TrainJobStatus status = tj::trainjob_status_of(trainjob);
  tj::JobSetStatus js;
  std::tie(js.restarts, js.restarts_count_towards_max) = restarts_of(trainjob);
  js.replicated_jobs_status = status.jobs_status;
  for (const auto& [from, to] : {std::pair{"Complete", "Completed"}, std::pair{"Failed", "Failed"}}) {
    const tj::Condition* c = tj::find_condition(status.conditions, from);
    if (c == nullptr || c->status != "True" || c->reason == "DeadlineExceeded") continue;
    tj::Condition copy = *c;
    copy.type = to;
    js.conditions.push_back(copy);
    js.terminal_state = to;
  }
  return js;
}

bool spec_suspended(const nlohmann::json& object) {
  const auto spec = object.find("spec");
  if (spec == object.end() || !spec->is_object()) return false;
  const auto suspend = spec->find("suspend");
  return suspend != spec->end() && suspend->is_boolean() && suspend->get<bool>();
}

}  // namespace

tj::StatusTarget status_target(const nlohmann::json& trainjob) {
  const auto& meta = trainjob.at("metadata");
  return {tj::StatusTarget::Kind::trainjob, meta.value("namespace", std::string{}),
          meta.value("name", std::string{})};
}

namespace {

bool finished(const tj::TrainJobStatus& s) {
  return tj::is_true(s.conditions, "Complete") || tj::is_true(s.conditions, "Failed");
}

}  // namespace

/// One pass over one TrainJob: what the caches show, the in-memory JobSet and Jobs, and what the
/// three controllers decided.
struct TrainJobReconciler::Pass {
  nlohmann::json trainjob;
  std::string ns, name, key, uid;
  std::vector<CachedChild> pods;
  std::vector<std::string> service_names;
  bool built = false;  ///< the JobSet was rebuilt and its children decided
  bool create_service = false;
  nlohmann::json jobset;
  std::map<std::string, nlohmann::json> jobs;  ///< name -> created Job of the current attempt
  std::int64_t attempt = 0;
  tj::TrainJobDecision trainjob_decision;
  tj::JobSetDecision jobset_decision;
  std::vector<std::string> delete_pods;
  std::vector<std::string> delete_services;
  std::vector<nlohmann::json> new_pods;
};

TrainJobReconciler::TrainJobReconciler(kube::ApiClient& client, const util::Clock& clock,
                                       TrainJobOptions options, const TrainJobCaches& caches,
                                       Metrics* metrics)
    : m_client(client),
      m_clock(clock),
      m_options(options),
      m_caches(caches),
      m_metrics(metrics),
      m_events(client, clock, tj::k_api_version, tj::k_kind_trainjob, k_event_component, options.emit_events,
               options.instance),
      m_status(client, m_options.status_clients, k_trainer_field_manager) {}

bool TrainJobReconciler::owns(const nlohmann::json& trainjob) const {
  // A TrainJob of MultiKueue's is skipped by the model as by Trainer (decide_trainjob); one of
  // any other manager is not ours either.
  const std::string manager = model::external_manager(model::JobKind::trainjob, trainjob);
  if (!manager.empty() && manager != tj::k_managed_by_multikueue) return false;
  return m_options.job_selector.matches(trainjob);
}

ReconcileResult TrainJobReconciler::reconcile(const std::string& key) {
  auto cached = m_caches.trainjobs.get(key);
  if (!cached) {
    if (m_metrics != nullptr) m_metrics->forget_job(tj::k_kind_trainjob, key);
    m_caches.expectations.forget(key);
    std::lock_guard lock(m_mutex);
    m_runtimes.erase(key);
    m_applied.erase(key);
    m_status.forget(key);
    return {};  // deleted: its children go with it through their owner references
  }
  if (cached->at("metadata").contains("deletionTimestamp")) return {};
  if (!owns(*cached)) {
    if (m_metrics != nullptr) m_metrics->forget_job(tj::k_kind_trainjob, key);
    return {};
  }
  // Acting before the caches show the last pass's writes would create twice (see Reconciler).
  if (!m_caches.expectations.satisfied(key)) return {};
  if (m_options.via_jobset) return reconcile_via_jobset(std::move(*cached));
  return reconcile_trainjob(std::move(*cached));
}

ReconcileResult TrainJobReconciler::reconcile_trainjob(nlohmann::json trainjob) {
  Pass p;
  p.trainjob = std::move(trainjob);
  observe(p);
  const auto now = std::chrono::floor<std::chrono::seconds>(m_clock.now());
  const bool supported = tj::runtime_ref_of(p.trainjob).supported();
  // First as Trainer sees the JobSet the last pass left: skipped, failing, past its deadline, done.
  const tj::JobSetObservation kept{true, spec_suspended(p.trainjob), kept_jobset_status(p.trainjob)};
  auto first = tj::decide_trainjob(p.trainjob, kept, supported, m_options.release, now, m_options.fixes);
  if (first.skip) return {};
  if (first.error) return fail(p.trainjob, make_error(ErrorCode::usage, *first.error));
  if (first.delete_jobset) {
    plan_teardown(p);  // deleting the JobSet takes its Jobs, pods and Service with it
  } else if (!finished(tj::trainjob_status_of(p.trainjob))) {
    if (auto built = build(p); !built) return fail(p.trainjob, built.error());
    decide_children(p);
  }
  m_caches.expectations.expect(p.key, static_cast<int>(p.new_pods.size() + (p.create_service ? 1 : 0)),
                               static_cast<int>(p.delete_pods.size() + p.delete_services.size()));
  if (auto r = record_restarts(p); !r) return fail(p.trainjob, r.error());
  if (auto r = delete_children(p); !r) return fail(p.trainjob, r.error());
  if (!p.new_pods.empty()) {
    if (auto r =
            m_status.ensure_ca(p.trainjob, status_target(p.trainjob), tj::k_api_version, tj::k_kind_trainjob);
        !r)
      return fail(p.trainjob, r.error());
  }
  if (auto r = create_children(p); !r) return fail(p.trainjob, r.error());
  if (!p.built) return finish(p.trainjob, first);
  // Then as Trainer sees the JobSet this pass made.
  const tj::JobSetObservation made{true, spec_suspended(p.trainjob), p.jobset_decision.status};
  return finish(p.trainjob,
                tj::decide_trainjob(p.trainjob, made, true, m_options.release, now, m_options.fixes),
                p.jobset_decision.requeue_after_seconds);
}

void TrainJobReconciler::plan_teardown(Pass& p) const {
  for (const auto& c : p.pods) {
    if (!c.indexed.deleting) p.delete_pods.push_back(c.indexed.name);
  }
  p.delete_services = p.service_names;
}

void TrainJobReconciler::observe(Pass& p) const {
  const auto& meta = p.trainjob.at("metadata");
  p.ns = meta.value("namespace", std::string{});
  p.name = meta.value("name", std::string{});
  p.key = p.ns + "/" + p.name;
  p.uid = meta.value("uid", std::string{});
  auto owned = [&](const CachedChild& c) { return c.owner_uid == p.uid; };
  for (auto& c : m_caches.pods.of_job(p.key)) {
    if (owned(c)) p.pods.push_back(std::move(c));
  }
  for (const auto& c : m_caches.services.of_job(p.key)) {
    if (owned(c)) p.service_names.push_back(c.pod.name);
  }
  p.attempt = restarts_of(p.trainjob).first;
}

Expected<nlohmann::json> TrainJobReconciler::runtime_of(const nlohmann::json& trainjob) {
  const std::string key = object_key(trainjob);
  const std::string uid = trainjob.at("metadata").value("uid", std::string{});
  {
    std::lock_guard lock(m_mutex);
    const auto it = m_runtimes.find(key);
    if (it != m_runtimes.end() && it->second.first == uid) return it->second.second;
  }
  auto runtime = read_or_take_snapshot(trainjob);
  if (!runtime) return runtime.error();
  std::lock_guard lock(m_mutex);
  m_runtimes[key] = {uid, *runtime};
  return runtime;
}

Expected<nlohmann::json> TrainJobReconciler::read_or_take_snapshot(const nlohmann::json& trainjob) {
  const auto& meta = trainjob.at("metadata");
  const std::string ns = meta.value("namespace", std::string{});
  const std::string cm_name = meta.value("name", std::string{}) + tj::k_snapshot_suffix;
  auto cm = m_client.get(kube::resources::configmaps(), ns, cm_name);
  if (!cm && !kube::is_not_found(cm.error()))
    return cm.error().context("reading ConfigMap " + util::quote(cm_name));
  tj::AvailableRuntimes available;
  if (!cm) {
    const auto ref = tj::runtime_ref_of(trainjob);
    const bool cluster = ref.kind == tj::k_kind_cluster_training_runtime;
    auto live = cluster ? m_client.get(kube::resources::clustertrainingruntimes(), "", ref.name)
                        : m_client.get(kube::resources::trainingruntimes(), ns, ref.name);
    if (!live && !kube::is_not_found(live.error())) return live.error();
    if (live) (cluster ? available.cluster_training_runtimes : available.training_runtimes).push_back(*live);
    // A cluster without Trainer installed has none of its ClusterTrainingRuntimes: the release's own.
    available = tj::with_carried_runtimes(std::move(available), m_options.release);
  }
  auto resolved = tj::runtime_for_reconcile(trainjob, cm ? &*cm : nullptr, available, m_options.release);
  if (!resolved) return resolved.error();
  if (resolved->apply_snapshot) {
    auto created = m_client.create(kube::resources::configmaps(), ns,
                                   tj::runtime_snapshot_configmap(trainjob, resolved->runtime));
    if (!created && !kube::is_already_exists(created.error()))
      return created.error().context("creating ConfigMap " + util::quote(cm_name));
  }
  return resolved->runtime;
}

Expected<void> TrainJobReconciler::build(Pass& p) {
  auto runtime = runtime_of(p.trainjob);
  if (!runtime) return runtime.error();
  auto built = tj::build_jobset(p.trainjob, *runtime, m_options.release);
  if (!built) return built.error();
  m_status.inject_jobset(built->jobset, status_target(p.trainjob));
  p.jobset = tj::default_jobset(built->jobset);
  p.jobset["metadata"]["uid"] = derived_uid(p.uid + "/jobset");
  p.jobset["status"] = tj::to_json(kept_jobset_status(p.trainjob));
  for (auto& job : tj::desired_jobs(p.jobset)) {
    const std::string job_name = job.at("metadata").value("name", std::string{});
    p.jobs[job_name] =
        tj::created_job(job, derived_uid(p.uid + "/" + job_name + "/" + std::to_string(p.attempt)));
  }
  return {};
}

void TrainJobReconciler::decide_children(Pass& p) const {
  const auto now = std::chrono::floor<std::chrono::seconds>(m_clock.now());
  std::map<std::string, std::vector<tj::PodObservation>> by_job;
  std::set<std::string> stale;
  for (const auto& c : p.pods) {
    if (c.restart_attempt != p.attempt || p.jobs.count(c.job_name) == 0) {
      if (!c.indexed.deleting) stale.insert(c.indexed.name);
    } else {
      by_job[c.job_name].push_back(c.indexed);
    }
  }
  std::vector<tj::JobObservation> observed;
  std::map<std::string, tj::JobDecision> job_decisions;
  // The Job controller's pass over one Job, and the Job as JobSet then observes it.
  const auto decide = [&](const std::string& name, const std::vector<tj::PodObservation>& pods) {
    auto d = tj::decide_job(p.jobs.at(name), pods, now);
    auto job = p.jobs.at(name);
    job["status"] = tj::to_json(d.status);
    observed.push_back(tj::job_observation_of(job));
    job_decisions.emplace(name, std::move(d));
  };
  for (const auto& [name, pods] : by_job) decide(name, pods);
  p.jobset_decision = tj::decide_jobset(p.jobset, observed, now);
  if (!p.jobset_decision.create_jobs.empty()) {
    for (const auto& created : p.jobset_decision.create_jobs) decide(created.name, {});
    // JobSet would report the new Jobs a sync later, once the Job controller has created their pods;
    // creating both here, the status can say so now and save the intermediate all-zero write.
    p.jobset_decision.status = tj::decide_jobset(p.jobset, observed, now).status;
  }
  const bool restarting = p.jobset_decision.status.restarts != p.attempt;
  const bool finished = !p.jobset_decision.status.terminal_state.empty();
  std::set<std::string> deleted_jobs(p.jobset_decision.delete_jobs.begin(),
                                     p.jobset_decision.delete_jobs.end());
  for (const auto& [name, d] : job_decisions) {
    if (restarting || finished || deleted_jobs.count(name) > 0) {
      for (const auto& pod : by_job[name]) {
        if (!pod.deleting && pod.phase != "Succeeded" && pod.phase != "Failed") stale.insert(pod.name);
      }
      continue;
    }
    stale.insert(d.delete_pods.begin(), d.delete_pods.end());
    const auto suffix = deterministic_suffix(p.uid + "/" + std::to_string(p.attempt));
    for (const auto index : d.create_indexes) {
      auto pod = tj::desired_pod(p.jobs.at(name), index, suffix);
      pod["metadata"]["ownerReferences"] = trainjob_owner(p.trainjob);
      p.new_pods.push_back(std::move(pod));
    }
  }
  p.delete_pods.assign(stale.begin(), stale.end());
  p.create_service = p.jobset_decision.ensure_service && p.service_names.empty();
  p.built = true;
}

Expected<void> TrainJobReconciler::record_restarts(Pass& p) {
  // Recorded before the old attempt's pods go, so a crash in between never forgets a restart.
  const auto& s = p.jobset_decision.status;
  const auto [restarts, towards_max] = restarts_of(p.trainjob);
  if (s.restarts == restarts && s.restarts_count_towards_max == towards_max) return {};
  const std::string value = std::to_string(s.restarts) + "/" + std::to_string(s.restarts_count_towards_max);
  const nlohmann::json patch = {{"metadata", {{"annotations", {{k_jobset_restarts_annotation, value}}}}}};
  auto patched =
      m_client.patch(kube::resources::trainjobs(), p.ns, p.name, kube::PatchType::merge, patch.dump());
  if (!patched) return patched.error().context("recording restarts of " + util::quote(p.key));
  if (m_metrics != nullptr && s.restarts > restarts)
    m_metrics->count_job("restarted", p.ns, tj::k_kind_trainjob);
  p.trainjob["metadata"]["resourceVersion"] = patched->at("metadata").at("resourceVersion");
  m_caches.trainjobs.put_newer(*patched);
  return {};
}

Expected<void> TrainJobReconciler::delete_children(const Pass& p) {
  for (const auto& [ref, names] : {std::pair{kube::resources::pods(), &p.delete_pods},
                                   std::pair{kube::resources::services(), &p.delete_services}}) {
    for (const auto& name : *names) {
      auto r = m_client.remove(ref, p.ns, name);
      if (!r && !kube::is_not_found(r.error()))
        return r.error().context("deleting " + ref.kind + " " + util::quote(name));
      if (!r) m_caches.expectations.observe_deletion(p.key);
    }
  }
  return {};
}

Expected<void> TrainJobReconciler::create_children(const Pass& p) {
  if (p.create_service) {
    auto service = tj::headless_service(p.jobset);
    if (service) {
      (*service)["metadata"]["ownerReferences"] = trainjob_owner(p.trainjob);
      auto r = m_client.create(kube::resources::services(), p.ns, *service);
      if (!r && !kube::is_already_exists(r.error()))
        return r.error().context("creating service " + util::quote(p.name));
      if (!r) m_caches.expectations.observe_creation(p.key);
    } else {
      m_caches.expectations.observe_creation(p.key);  // nothing to wait for
    }
  }
  for (const auto& pod : p.new_pods) {
    const std::string name = pod.at("metadata").value("name", std::string{});
    auto r = m_client.create(kube::resources::pods(), p.ns, pod);
    if (!r && !kube::is_already_exists(r.error()))
      return r.error().context("creating pod " + util::quote(name));
    if (!r) m_caches.expectations.observe_creation(p.key);
  }
  return {};
}

ReconcileResult TrainJobReconciler::finish(nlohmann::json& trainjob, const tj::TrainJobDecision& d,
                                           std::optional<std::int64_t> also_requeue_after_seconds) {
  const std::string key = object_key(trainjob);
  const tj::TrainJobStatus before = tj::trainjob_status_of(trainjob);
  const std::string ns = trainjob.at("metadata").value("namespace", std::string{});
  if (m_metrics != nullptr) {
    const char* state = tj::is_true(d.status.conditions, "Complete")    ? "Complete"
                        : tj::is_true(d.status.conditions, "Failed")    ? "Failed"
                        : tj::is_true(d.status.conditions, "Suspended") ? "Suspended"
                                                                        : "Running";
    m_metrics->set_job_state(tj::k_kind_trainjob, key, state);
  }
  if (d.status != before) {
    if (m_metrics != nullptr) {
      if (tj::is_true(d.status.conditions, "Complete") && !tj::is_true(before.conditions, "Complete"))
        m_metrics->count_job("successful", ns, tj::k_kind_trainjob);
      if (tj::is_true(d.status.conditions, "Failed") && !tj::is_true(before.conditions, "Failed"))
        m_metrics->count_job("failed", ns, tj::k_kind_trainjob);
    }
    // The status server's trainerStatus is not ours to change: it goes back as it came.
    auto status = tj::to_json(d.status);
    if (trainjob.contains("status") && trainjob["status"].is_object() &&
        trainjob["status"].contains("trainerStatus"))
      status["trainerStatus"] = trainjob["status"]["trainerStatus"];
    trainjob["status"] = std::move(status);
    auto r = m_client.update_status(kube::resources::trainjobs(),
                                    trainjob.at("metadata").value("namespace", std::string{}), trainjob);
    if (!r) return {std::nullopt, r.error().context("updating status of " + util::quote(key)), true};
    m_caches.trainjobs.put_newer(*r);
  }
  ReconcileResult out;
  auto soonest = d.requeue_after_seconds;
  if (also_requeue_after_seconds && (!soonest || *also_requeue_after_seconds < *soonest))
    soonest = also_requeue_after_seconds;
  if (soonest) out.requeue_after = std::chrono::seconds{*soonest};
  // As Trainer joins its status error (a JobSet it cannot read) to the reconcile's: retried.
  if (d.error) out.error = make_error(ErrorCode::not_found, *d.error);
  return out;
}

ReconcileResult TrainJobReconciler::fail(const nlohmann::json& trainjob, Error e) {
  m_caches.expectations.forget(object_key(trainjob));
  const auto event = tj::resources_failed_event(e.message);
  m_events.record(trainjob, event.type, event.reason, event.message);
  return {std::nullopt, std::move(e), true};
}

}  // namespace kpt::controller
