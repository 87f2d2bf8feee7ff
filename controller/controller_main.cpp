#include "controller/controller_main.hpp"

#include "controller/controller_guard.hpp"
#include "controller/events.hpp"
#include "controller/expectations.hpp"
#include "controller/health_server.hpp"
#include "controller/informer.hpp"
#include "controller/instrumented_client.hpp"
#include "controller/kind_status.hpp"
#include "controller/logger.hpp"
#include "controller/metrics.hpp"
#include "controller/object_cache.hpp"
#include "controller/status_handler.hpp"
#include "controller/work_queue.hpp"
#include "model/k8s/object_meta.hpp"
#include "model/pytorchjob/labels.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <mutex>
#include <thread>
#include <vector>

namespace kpt::controller {

namespace {

/// Lists in pages: a re-list of thousands of pods never sits in memory whole.
constexpr std::int64_t k_list_page_size = 500;

std::string key_of(const nlohmann::json& obj) {
  return model::k8s::namespace_of(obj) + "/" + model::k8s::name_of(obj);
}

using ReconcileFn = std::function<ReconcileResult(const std::string&)>;

/// One kind the controller reconciles, with everything that decides whether it runs: its informers,
/// its queue and reconcile function, and what the guard said of it.
struct KindRun {
  std::string kind;        ///< "pytorchjobs", "trainjobs" (health, logs, the kind-state metric)
  std::string controller;  ///< "pytorchjob", "trainjob" (controller-runtime's controller label)
  WorkQueue* queue = nullptr;
  ReconcileFn reconcile;
  std::vector<Informer*> informers;
  bool workers_started = false;
  std::atomic<bool> paused{false};  ///< blocked by the guard: keys wait, nothing is reconciled
  std::string blocked_by;           ///< the guard's message (supervisor thread only)
};

/// How long a key of a blocked kind waits before it is looked at again.
constexpr std::chrono::seconds k_blocked_retry{5};
/// How long the guard waits before it reads again after a transient error.
constexpr std::chrono::milliseconds k_guard_retry{200};

void work(KindRun& k, Metrics& metrics, const util::Clock& clock, Logger& log) {
  WorkQueue& queue = *k.queue;
  while (auto key = queue.get()) {
    if (k.paused.load()) {
      queue.add_after(*key, k_blocked_retry);
      queue.done(*key);
      continue;
    }
    metrics.add_active_worker(k.controller, 1);
    const auto started = clock.steady_now();
    const auto r = k.reconcile(*key);
    const std::chrono::duration<double> took = clock.steady_now() - started;
    metrics.add_active_worker(k.controller, -1);
    if (r.error) {
      metrics.observe_reconcile(k.controller, r.retriable ? "requeue" : "error", took);
      log.error("reconcile failed",
                {{"key", *key}, {"error", r.error->message}, {"retry", r.retriable ? "yes" : "no"}});
      if (r.retriable) {
        queue.add_rate_limited(*key);
        metrics.count_queue_retry(k.controller);
      } else {
        queue.forget(*key);
      }
    } else {
      metrics.observe_reconcile(k.controller, r.requeue_after ? "requeue_after" : "success", took);
      queue.forget(*key);
      if (r.requeue_after) {
        queue.add_after(*key, std::chrono::duration_cast<std::chrono::milliseconds>(*r.requeue_after));
        metrics.count_queue_retry(k.controller);
      }
    }
    queue.done(*key);
    metrics.set_queue_depth(k.controller, queue.depth());
  }
}

}  // namespace

std::optional<ControllerKinds> parse_kinds(const std::string& text) {
  ControllerKinds kinds{false, false, false, false};
  std::size_t start = 0;
  while (start <= text.size()) {
    const auto end = std::min(text.find(',', start), text.size());
    const auto kind = text.substr(start, end - start);
    if (kind == "pytorchjobs") {
      kinds.pytorchjobs = kinds.pytorchjobs_asked = true;
    } else if (kind == "trainjobs") {
      kinds.trainjobs = kinds.trainjobs_asked = true;
    } else {
      return std::nullopt;
    }
    start = end + 1;
  }
  return kinds;
}

bool served(kube::ApiClient& client, const kube::ResourceRef& ref) {
  auto doc = client.get_raw(ref.group_version_path());
  if (!doc) return false;
  const auto parsed = nlohmann::json::parse(*doc, nullptr, false);
  if (parsed.is_discarded() || !parsed.is_object()) return false;
  for (const auto& r : parsed.value("resources", nlohmann::json::array())) {
    if (r.is_object() && r.value("name", std::string{}) == ref.resource) return true;
  }
  return false;
}

Expected<ControllerKinds> effective_kinds(const ControllerKinds& wanted, bool pytorchjobs_served,
                                          bool trainjobs_served) {
  if (wanted.pytorchjobs_asked && !pytorchjobs_served) {
    return make_error(
        ErrorCode::usage,
        "the API server does not serve pytorchjobs.kubeflow.org: install the CRD (kubectl pytorch "
        "controller manifests) or leave pytorchjobs out of --kinds");
  }
  if (wanted.trainjobs_asked && !trainjobs_served) {
    return make_error(
        ErrorCode::usage,
        "the API server does not serve trainjobs.trainer.kubeflow.org: install the Trainer CRDs "
        "(kubectl pytorch controller manifests --trainer) or leave trainjobs out of --kinds");
  }
  ControllerKinds kinds = wanted;
  if (!wanted.trainjobs_asked) kinds.trainjobs = wanted.trainjobs && trainjobs_served;
  // A Trainer-only cluster: waiting for a PyTorchJob list that never comes would stall TrainJobs too.
  if (!wanted.pytorchjobs_asked)
    kinds.pytorchjobs = wanted.pytorchjobs && (pytorchjobs_served || !kinds.trainjobs);
  return kinds;
}

Expected<void> check_via_jobset(const ControllerKinds& wanted, bool trainjobs_served, bool jobsets_served,
                                const std::string& jobset_version) {
  if (!wanted.trainjobs) {
    return make_error(ErrorCode::usage,
                      "--via-jobset reconciles TrainJobs: add trainjobs to --kinds or drop --via-jobset");
  }
  if (!trainjobs_served) {
    return make_error(ErrorCode::usage,
                      "the API server does not serve trainjobs.trainer.kubeflow.org, which --via-jobset "
                      "reconciles: install "
                      "the Trainer CRDs (kubectl pytorch controller manifests --trainer --via-jobset) or "
                      "drop --via-jobset");
  }
  if (!jobsets_served) {
    return make_error(
        ErrorCode::usage,
        "the API server does not serve jobsets.jobset.x-k8s.io, which --via-jobset creates: "
        "install JobSet (kubectl apply --server-side -f https://github.com/kubernetes-sigs/jobset/"
        "releases/download/" +
            jobset_version + "/manifests.yaml) or run without --via-jobset to create the pods directly");
  }
  return {};
}

namespace {

/// One run of the controller: the caches, the queues, the reconcilers and the informers that feed
/// them, all built before any thread starts, then the threads: the informers, a supervisor that
/// starts each kind's workers once its caches are full (each kind on its own: one whose list is
/// forbidden never holds the others back) and asks the guard again and again whether another
/// controller runs the jobs, and the wait for the stop or the loss of the lease.
class ControllerRun {
 public:
  ControllerRun(kube::ApiClient& client, const ControllerConfig& config, const util::Clock& clock,
                Logger& log, Metrics& metrics)
      : m_client(client),
        m_config(config),
        m_clock(clock),
        m_log(log),
        m_metrics(metrics),
        m_queue(clock),
        m_tj_queue(clock),
        m_expectations(clock),
        m_tj_expectations(clock),
        m_reconciler(client, clock, config.reconciler,
                     ReconcilerCaches{m_jobs, m_pods, m_services, m_expectations}, &metrics),
        m_tj_reconciler(
            client, clock, config.trainjob,
            TrainJobCaches{m_trainjobs, m_tj_pods, m_tj_services, m_tj_jobsets, m_tj_expectations}, &metrics),
        m_lease_events(client, clock, "coordination.k8s.io/v1", "Lease", k_event_component,
                       config.reconciler.emit_events, config.lease.identity) {
    if (config.kinds.pytorchjobs) {
      auto& k = add_kind("pytorchjobs", "pytorchjob", m_queue,
                         [this](const std::string& key) { return m_reconciler.reconcile(key); });
      add_job_informer(k, kube::resources::pytorchjobs(), "PyTorchJob", m_jobs, m_expectations);
      const auto selector = pytorchjob_child_selector();
      add_child_informer(k, kube::resources::pods(), selector, m_pods, m_expectations);
      add_child_informer(k, kube::resources::services(), selector, m_services, m_expectations);
    }
    if (config.kinds.trainjobs) {
      auto& k = add_kind("trainjobs", "trainjob", m_tj_queue,
                         [this](const std::string& key) { return m_tj_reconciler.reconcile(key); });
      add_job_informer(k, kube::resources::trainjobs(), "TrainJob", m_trainjobs, m_tj_expectations);
      if (config.trainjob.via_jobset) {
        // Trainer's JobSets carry only the runtime's labels: matched by their TrainJob owner alone.
        add_child_informer(k, kube::resources::jobsets(), "", m_tj_jobsets, m_tj_expectations);
      } else {
        // Every pod a JobSet makes carries its name label; its headless Service has no labels
        // (kubernetes-sigs/jobset v0.8 pkg/controllers/jobset_controller.go), so Services are
        // matched by their TrainJob owner reference alone.
        add_child_informer(k, kube::resources::pods(), "jobset.sigs.k8s.io/jobset-name", m_tj_pods,
                           m_tj_expectations);
        add_child_informer(k, kube::resources::services(), "", m_tj_services, m_tj_expectations);
      }
    }
  }

  int run(std::atomic<bool>& stop, const std::function<void(int)>& on_listening);

 private:
  KindRun& add_kind(const std::string& kind, const std::string& controller, WorkQueue& queue, ReconcileFn fn);
  /// The informer of one job kind: each change goes into `jobs` and queues the job; jobs seen
  /// for the first time and jobs deleted are counted as the operator counts them.
  void add_job_informer(KindRun& k, const kube::ResourceRef& resource, const std::string& kind_name,
                        JobCache& jobs, Expectations& expectations);
  /// The informer of one kind of child (pods, Services, JobSets) into `cache`: each change meets
  /// `expectations` and queues its job.
  void add_child_informer(KindRun& k, const kube::ResourceRef& resource, const std::string& selector,
                          ChildCache& cache, Expectations& expectations);
  std::string pytorchjob_child_selector() const;
  /// Children: cache first, then meet expectations, then enqueue, so the pass the event triggers
  /// sees what the event said.
  static void on_child_change(const ChildChange& change, WorkQueue& queue, Expectations& expectations);
  [[nodiscard]] Health health() const;
  void start_informers();
  void start_workers(KindRun& k);
  /// Asks the guard and pauses or resumes each kind; false when it blocks every kind.
  bool check_guard();
  /// One look at every kind: the guard's word, a forbidden list, full caches (then its workers
  /// start); a change of state is logged, counted and told on the Lease.
  void supervise_once();
  void supervise(const std::atomic<bool>& stop);
  void report(KindRun& k, KindState state, const std::string& message);
  /// A Warning Event on our Lease (what `kubectl describe lease` shows), when there is one.
  void lease_event(const std::string& reason, const std::string& message);
  /// Blocks until `stop` or, leading through a lease, until it is lost (exit code 1: stop at once,
  /// never write as a non-leader).
  int serve(std::atomic<bool>& stop, LeaderElector* elector);
  void shut_down();

  kube::ApiClient& m_client;
  const ControllerConfig& m_config;
  const util::Clock& m_clock;
  Logger& m_log;
  Metrics& m_metrics;
  WorkQueue m_queue;
  WorkQueue m_tj_queue;  ///< TrainJob keys: a PyTorchJob and a TrainJob may share a name
  JobCache m_jobs;
  ChildCache m_pods{ChildCache::Kind::pods};
  ChildCache m_services{ChildCache::Kind::services};
  JobCache m_trainjobs;
  ChildCache m_tj_pods{ChildCache::Kind::trainjob_pods};
  ChildCache m_tj_services{ChildCache::Kind::trainjob_services};
  ChildCache m_tj_jobsets{ChildCache::Kind::trainjob_jobsets};
  Expectations m_expectations;
  Expectations m_tj_expectations;
  Reconciler m_reconciler;
  TrainJobReconciler m_tj_reconciler;
  EventRecorder m_lease_events;
  std::vector<std::unique_ptr<Informer>> m_informers;
  std::vector<std::unique_ptr<KindRun>> m_kinds;
  mutable std::mutex m_report_mutex;
  std::vector<KindReport> m_reports;  ///< one per kind, in m_kinds' order
  std::atomic<bool> m_leading{false};
  std::atomic<bool> m_stop_informers{false};
  std::chrono::steady_clock::time_point m_next_guard{};
  std::vector<std::thread> m_threads;  ///< the informers (main thread only)
  std::thread m_supervisor;
  /// The workers: started by the supervisor, joined once it has ended.
  std::vector<std::thread> m_worker_threads;
};

KindRun& ControllerRun::add_kind(const std::string& kind, const std::string& controller, WorkQueue& queue,
                                 ReconcileFn fn) {
  auto k = std::make_unique<KindRun>();
  k->kind = kind;
  k->controller = controller;
  k->queue = &queue;
  k->reconcile = std::move(fn);
  m_kinds.push_back(std::move(k));
  m_reports.push_back({kind, KindState::waiting, ""});
  m_metrics.set_kind_state(kind, "waiting");
  m_metrics.set_workers(controller, std::max(1, m_config.workers), 0);
  return *m_kinds.back();
}

void ControllerRun::add_job_informer(KindRun& k, const kube::ResourceRef& resource,
                                     const std::string& kind_name, JobCache& jobs,
                                     Expectations& expectations) {
  WorkQueue& queue = *k.queue;
  Metrics& metrics = m_metrics;
  const std::string controller = k.controller;
  auto informer = std::make_unique<Informer>(
      m_client, resource, m_config.namespace_, "",
      [&jobs, &queue, &expectations, &metrics, kind_name, controller](kube::WatchEvent::Type type,
                                                                      const nlohmann::json& job) {
        const bool known = type != kube::WatchEvent::Type::added || jobs.get(key_of(job)).has_value();
        const auto key = jobs.apply(type, job);
        const std::string ns = key.substr(0, key.find('/'));
        if (type == kube::WatchEvent::Type::added && !known) metrics.count_job("created", ns, kind_name);
        if (type == kube::WatchEvent::Type::deleted) {
          expectations.forget(key);
          metrics.count_job("deleted", ns, kind_name);
        }
        queue.add(key);
        metrics.count_queue_add(controller);
      },
      m_log, m_config.resync);
  informer->set_list_handler([&jobs, &queue, &metrics, kind_name, controller](
                                 const std::vector<nlohmann::json>& page, bool first, bool last) {
    for (const auto& job : page) {
      if (!jobs.get(key_of(job))) metrics.count_job("created", model::k8s::namespace_of(job), kind_name);
    }
    for (const auto& key : jobs.list_page(page, first, last)) {
      queue.add(key);
      metrics.count_queue_add(controller);
    }
  });
  informer->set_page_size(k_list_page_size);
  k.informers.push_back(informer.get());
  m_informers.push_back(std::move(informer));
}

void ControllerRun::on_child_change(const ChildChange& change, WorkQueue& queue, Expectations& expectations) {
  if (change.job_key.empty()) return;
  if (change.created) expectations.observe_creation(change.job_key);
  if (change.deleted) expectations.observe_deletion(change.job_key);
  queue.add(change.job_key);
}

std::string ControllerRun::pytorchjob_child_selector() const {
  auto selector = model::pytorchjob::job_selector("", m_config.reconciler.style);
  std::erase_if(selector, [](const auto& kv) { return kv.first.find("job-name") != std::string::npos; });
  return model::pytorchjob::selector_string(selector);
}

void ControllerRun::add_child_informer(KindRun& k, const kube::ResourceRef& resource,
                                       const std::string& selector, ChildCache& cache,
                                       Expectations& expectations) {
  WorkQueue& queue = *k.queue;
  auto informer = std::make_unique<Informer>(
      m_client, resource, m_config.namespace_, selector,
      [&cache, &queue, &expectations](kube::WatchEvent::Type type, const nlohmann::json& obj) {
        on_child_change(cache.apply(type, obj), queue, expectations);
      },
      m_log, m_config.resync);
  informer->set_list_handler(
      [&cache, &queue, &expectations](const std::vector<nlohmann::json>& page, bool first, bool last) {
        for (const auto& change : cache.list_page(page, first, last))
          on_child_change(change, queue, expectations);
      });
  informer->set_page_size(k_list_page_size);
  k.informers.push_back(informer.get());
  m_informers.push_back(std::move(informer));
}

Health ControllerRun::health() const {
  std::lock_guard lock(m_report_mutex);
  return evaluate_health(m_reports, m_leading.load(), m_config.leader_elect);
}

void ControllerRun::start_informers() {
  for (auto& inf : m_informers) {
    m_threads.emplace_back([informer = inf.get(), this] { informer->run(m_stop_informers); });
  }
}

void ControllerRun::start_workers(KindRun& k) {
  k.workers_started = true;
  for (int i = 0; i < std::max(1, m_config.workers); ++i)
    m_worker_threads.emplace_back([this, &k] { work(k, m_metrics, m_clock, m_log); });
}

void ControllerRun::lease_event(const std::string& reason, const std::string& message) {
  if (!m_config.leader_elect) return;
  auto lease = m_client.get(kube::resources::leases(), m_config.lease.namespace_, m_config.lease.name);
  if (lease) m_lease_events.record(*lease, "Warning", reason, message);
}

void ControllerRun::report(KindRun& k, KindState state, const std::string& message) {
  std::size_t i = 0;
  while (m_kinds[i].get() != &k) ++i;
  {
    std::lock_guard lock(m_report_mutex);
    if (m_reports[i].state == state && m_reports[i].message == message) return;
    m_reports[i].state = state;
    m_reports[i].message = message;
  }
  m_metrics.set_kind_state(k.kind, to_string(state));
  if (state == KindState::reconciling) {
    m_log.info("reconciling " + k.kind,
               {{"namespace", m_config.namespace_.empty() ? "*" : m_config.namespace_},
                {"workers", std::to_string(m_config.workers)}});
  } else if (state == KindState::forbidden || state == KindState::blocked) {
    m_log.error(k.kind + " not reconciled: " + message);
    lease_event(state == KindState::forbidden ? "KindForbidden" : "KindBlocked",
                k.kind + " not reconciled: " + message);
  }
}

bool ControllerRun::check_guard() {
  GuardScope scope;
  scope.ns = m_config.namespace_;
  scope.pytorchjobs = m_config.kinds.pytorchjobs;
  scope.trainjobs = m_config.kinds.trainjobs;
  scope.selector = m_config.reconciler.job_selector;
  scope.leader_elect = m_config.leader_elect;
  scope.lease_namespace = m_config.lease.namespace_;
  scope.lease_name = m_config.lease.name;
  scope.embedded = m_config.embedded;
  GuardVerdict v = m_config.skip_controller_check ? GuardVerdict{} : check_other_controllers(m_client, scope);
  // A blip (a 5xx, a cut connection) is no verdict: two more looks before failing closed.
  for (int again = 0; again < 2 && v.transient; ++again) {
    std::this_thread::sleep_for(k_guard_retry);
    v = check_other_controllers(m_client, scope);
  }
  bool any_free = false;
  for (auto& k : m_kinds) {
    k->blocked_by = k->kind == "pytorchjobs" ? v.pytorchjobs : v.trainjobs;
    k->paused = !k->blocked_by.empty();
    any_free = any_free || k->blocked_by.empty();
  }
  m_next_guard = m_clock.steady_now() + m_config.guard_period;
  return any_free || m_kinds.empty();
}

void ControllerRun::supervise_once() {
  if (m_clock.steady_now() >= m_next_guard) check_guard();
  for (auto& k : m_kinds) {
    if (!k->blocked_by.empty()) {
      report(*k, KindState::blocked, k->blocked_by);
      continue;
    }
    std::optional<std::string> forbidden;
    bool synced = true;
    for (const auto* inf : k->informers) {
      synced = synced && inf->synced();
      const auto e = inf->list_error();
      if (!forbidden && e && is_forbidden(*e)) forbidden = forbidden_message(k->kind, inf->resource(), *e);
    }
    if (forbidden && !k->workers_started) {
      report(*k, KindState::forbidden, *forbidden);
      continue;
    }
    if (!synced) {
      report(*k, KindState::waiting, "");
      continue;
    }
    // Workers start once every cache of the kind holds a full list: a pass over a half-filled
    // cache would try to create what already exists.
    if (!k->workers_started) start_workers(*k);
    report(*k, KindState::reconciling, "");
  }
}

void ControllerRun::supervise(const std::atomic<bool>& stop) {
  while (!stop.load() && !m_stop_informers.load()) {
    supervise_once();
    std::this_thread::sleep_for(std::chrono::milliseconds{10});
  }
}

int ControllerRun::serve(std::atomic<bool>& stop, LeaderElector* elector) {
  if (elector != nullptr) return elector->keep(stop, m_log) ? 0 : 1;
  while (!stop.load()) std::this_thread::sleep_for(std::chrono::milliseconds{50});
  return 0;
}

void ControllerRun::shut_down() {
  m_log.info("shutting down");
  m_stop_informers = true;
  // The supervisor first: it may be starting workers, and none may start once they are joined.
  if (m_supervisor.joinable()) m_supervisor.join();
  m_queue.shut_down();
  m_tj_queue.shut_down();
  for (auto& t : m_worker_threads) t.join();
  m_worker_threads.clear();
  for (auto& t : m_threads) t.join();
  m_threads.clear();
}

int ControllerRun::run(std::atomic<bool>& stop, const std::function<void(int)>& on_listening) {
  m_leading = !m_config.leader_elect;
  const std::string lease = m_config.lease.namespace_ + "/" + m_config.lease.name;
  if (m_config.leader_elect) m_metrics.set_leader(lease, false);
  HealthServer health_server;
  if (m_config.metrics_addr != "0") {
    auto bound = health_server.start(
        m_config.metrics_addr, [this] { return health(); }, m_metrics, m_log);
    if (!bound) {
      m_log.error(bound.error().message);
      return 1;
    }
    if (on_listening) on_listening(*bound);
  }
  std::unique_ptr<LeaderElector> elector;
  if (m_config.leader_elect) {
    elector = std::make_unique<LeaderElector>(m_client, m_clock, m_config.lease);
    if (!elector->acquire(stop, m_log)) return 0;
    m_leading = true;
    m_metrics.set_leader(lease, true);
  }
  if (!check_guard() && !m_config.embedded) {
    for (const auto& k : m_kinds) m_log.error("refusing to reconcile " + k->kind + ": " + k->blocked_by);
    if (elector && m_config.lease.release_on_stop) elector->release();
    return 1;
  }
  start_informers();
  m_supervisor = std::thread([this, &stop] { supervise(stop); });
  const int exit_code = serve(stop, elector.get());
  m_metrics.set_leader(lease, false);
  shut_down();
  if (elector && exit_code == 0 && m_config.lease.release_on_stop) elector->release();
  return exit_code;
}

}  // namespace

int run_controller(kube::ApiClient& raw_client, const ControllerConfig& config, const util::Clock& clock,
                   Logger& log, std::atomic<bool>& stop, const std::function<void(int)>& on_listening) {
  Metrics metrics;
  metrics.set_build_info(config.version, config.revision);
  InstrumentedClient client(raw_client, metrics);
  ControllerConfig effective = config;
  effective.reconciler.instance = effective.trainjob.instance = config.lease.identity;
  effective.trainjob.job_selector = config.reconciler.job_selector;
  const bool pytorchjobs_there = served(client, kube::resources::pytorchjobs());
  const bool trainjobs_there = served(client, kube::resources::trainjobs());
  auto kinds = effective_kinds(config.kinds, pytorchjobs_there, trainjobs_there);
  if (!kinds) {
    log.error(kinds.error().message);
    return 1;
  }
  effective.kinds = *kinds;
  if (config.trainjob.via_jobset) {
    const auto& jobset_version = model::trainjob::features_of(config.trainjob.release).jobset_version;
    if (auto ok = check_via_jobset(config.kinds, trainjobs_there, served(client, kube::resources::jobsets()),
                                   jobset_version);
        !ok) {
      log.error(ok.error().message);
      return 1;
    }
  }
  if (config.kinds.trainjobs && !kinds->trainjobs)
    log.info("the API server does not serve TrainJobs; reconciling PyTorchJobs only");
  if (config.kinds.pytorchjobs && !kinds->pytorchjobs)
    log.info("the API server does not serve PyTorchJobs; reconciling TrainJobs only");
  if (kinds->pytorchjobs && !pytorchjobs_there)
    log.info("waiting for the API server to serve pytorchjobs.kubeflow.org");
  // Trainer's status server serves on every replica, leader or not, before the lease is sought.
  ApiTokenReviewer reviewer(client);
  StatusHandler status_handler(client, reviewer, log);
  StatusServer status_server;
  if (config.features.train_job_status) {
    const auto& o = config.status_server;
    auto bound = status_server.start(o.bind_host, o.port, o.tls, status_handler, log);
    if (!bound) {
      log.error(bound.error().message);
      return 1;
    }
    const StatusClientConfig clients{model::trainjob::status_server_base(o.advertise_host, *bound),
                                     o.tls.ca_pem};
    effective.reconciler.status_clients = clients;
    effective.trainjob.status_clients = clients;
  }
  ControllerRun run(client, effective, clock, log, metrics);
  return run.run(stop, on_listening);
}

}  // namespace kpt::controller
