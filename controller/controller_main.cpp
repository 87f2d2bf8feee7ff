#include "controller/controller_main.hpp"

#include "controller/expectations.hpp"
#include "controller/health_server.hpp"
#include "controller/informer.hpp"
#include "controller/instrumented_client.hpp"
#include "controller/logger.hpp"
#include "controller/metrics.hpp"
#include "controller/object_cache.hpp"
#include "controller/status_handler.hpp"
#include "controller/work_queue.hpp"
#include "model/pytorchjob/labels.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <thread>
#include <vector>

namespace kpt::controller {

namespace {

/// Lists in pages: a re-list of thousands of pods never sits in memory whole.
constexpr std::int64_t k_list_page_size = 500;

std::string key_of(const nlohmann::json& obj) {
  const auto& meta = obj.value("metadata", nlohmann::json::object());
  return meta.value("namespace", std::string{}) + "/" + meta.value("name", std::string{});
}

using ReconcileFn = std::function<ReconcileResult(const std::string&)>;

void work(WorkQueue& queue, const ReconcileFn& reconcile, Metrics& metrics, const util::Clock& clock,
          Logger& log) {
  while (auto key = queue.get()) {
    const auto started = clock.steady_now();
    const auto r = reconcile(*key);
    const std::chrono::duration<double> took = clock.steady_now() - started;
    if (r.error) {
      metrics.observe_reconcile(r.retriable ? "retry" : "error", took);
      log.error("reconcile failed",
                {{"key", *key}, {"error", r.error->message}, {"retry", r.retriable ? "yes" : "no"}});
      if (r.retriable) {
        queue.add_rate_limited(*key);
      } else {
        queue.forget(*key);
      }
    } else {
      metrics.observe_reconcile(r.requeue_after ? "requeue" : "success", took);
      queue.forget(*key);
      if (r.requeue_after)
        queue.add_after(*key, std::chrono::duration_cast<std::chrono::milliseconds>(*r.requeue_after));
    }
    queue.done(*key);
    metrics.set_queue_depth(queue.depth());
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

std::string detect_training_operator(kube::ApiClient& client) {
  kube::ListOptions opts;
  opts.label_selector = "control-plane=kubeflow-training-operator";
  if (auto listed = client.list(kube::resources::deployments(), "", opts); listed && !listed->items.empty()) {
    return key_of(listed->items.front());
  }
  if (auto got = client.get(kube::resources::deployments(), "kubeflow", "training-operator"); got) {
    return "kubeflow/training-operator";
  }
  return {};
}

namespace {

/// One run of the controller: the caches, the queue, the reconciler and the informers that feed
/// them, all built before any thread starts (so /readyz never reads the informer list while it
/// grows), then the threads, then the wait for the stop or the loss of the lease.
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
            TrainJobCaches{m_trainjobs, m_tj_pods, m_tj_services, m_tj_jobsets, m_tj_expectations}) {
    if (config.kinds.pytorchjobs) {
      add_job_informer(kube::resources::pytorchjobs(), m_jobs, m_queue, m_expectations);
      const auto selector = pytorchjob_child_selector();
      add_child_informer(kube::resources::pods(), selector, m_pods, m_queue, m_expectations);
      add_child_informer(kube::resources::services(), selector, m_services, m_queue, m_expectations);
    }
    if (config.kinds.trainjobs) {
      add_job_informer(kube::resources::trainjobs(), m_trainjobs, m_tj_queue, m_tj_expectations);
      if (config.trainjob.via_jobset) {
        // Trainer's JobSets carry only the runtime's labels: matched by their TrainJob owner alone.
        add_child_informer(kube::resources::jobsets(), "", m_tj_jobsets, m_tj_queue, m_tj_expectations);
      } else {
        // Every pod a JobSet makes carries its name label; its headless Service has no labels
        // (kubernetes-sigs/jobset v0.8 pkg/controllers/jobset_controller.go), so Services are
        // matched by their TrainJob owner reference alone.
        add_child_informer(kube::resources::pods(), "jobset.sigs.k8s.io/jobset-name", m_tj_pods, m_tj_queue,
                           m_tj_expectations);
        add_child_informer(kube::resources::services(), "", m_tj_services, m_tj_queue, m_tj_expectations);
      }
    }
  }

  int run(std::atomic<bool>& stop, const std::function<void(int)>& on_listening);

 private:
  /// The informer of one job kind: each change goes into `jobs` and queues the job.
  void add_job_informer(const kube::ResourceRef& resource, JobCache& jobs, WorkQueue& queue,
                        Expectations& expectations);
  /// The informer of one kind of child (pods, Services, JobSets) into `cache`: each change meets
  /// `expectations` and queues its job.
  void add_child_informer(const kube::ResourceRef& resource, const std::string& selector, ChildCache& cache,
                          WorkQueue& queue, Expectations& expectations);
  std::string pytorchjob_child_selector() const;
  /// TrainJobs, and the pods and Services that carry JobSet's jobset-name label.
  /// Children: cache first, then meet expectations, then enqueue, so the pass the event triggers
  /// sees what the event said.
  static void on_child_change(const ChildChange& change, WorkQueue& queue, Expectations& expectations);
  bool ready() const;
  bool synced() const;
  void start_informers();
  /// Workers start once every cache holds a full list: a pass over a half-filled cache would try
  /// to create what already exists.
  void start_workers(const std::atomic<bool>& stop);
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
  std::vector<std::unique_ptr<Informer>> m_informers;
  std::atomic<bool> m_leading{false};
  std::atomic<bool> m_stop_informers{false};
  std::vector<std::thread> m_threads;
};

void ControllerRun::add_job_informer(const kube::ResourceRef& resource, JobCache& jobs, WorkQueue& queue,
                                     Expectations& expectations) {
  auto informer = std::make_unique<Informer>(
      m_client, resource, m_config.namespace_, "",
      [&jobs, &queue, &expectations](kube::WatchEvent::Type type, const nlohmann::json& job) {
        const auto key = jobs.apply(type, job);
        if (type == kube::WatchEvent::Type::deleted) expectations.forget(key);
        queue.add(key);
      },
      m_log, m_config.resync);
  informer->set_list_handler([&jobs, &queue](const std::vector<nlohmann::json>& page, bool first, bool last) {
    for (const auto& key : jobs.list_page(page, first, last)) queue.add(key);
  });
  informer->set_page_size(k_list_page_size);
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

void ControllerRun::add_child_informer(const kube::ResourceRef& resource, const std::string& selector,
                                       ChildCache& cache, WorkQueue& queue, Expectations& expectations) {
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
  m_informers.push_back(std::move(informer));
}

bool ControllerRun::synced() const {
  return std::all_of(m_informers.begin(), m_informers.end(), [](const auto& inf) { return inf->synced(); });
}

bool ControllerRun::ready() const {
  if (!m_leading.load()) return m_config.leader_elect;  // a standby is ready to take over
  return synced();
}

void ControllerRun::start_informers() {
  for (auto& inf : m_informers) {
    m_threads.emplace_back([informer = inf.get(), this] { informer->run(m_stop_informers); });
  }
}

void ControllerRun::start_workers(const std::atomic<bool>& stop) {
  while (!stop.load() && !synced()) std::this_thread::sleep_for(std::chrono::milliseconds{10});
  const ReconcileFn pytorchjob = [this](const std::string& key) { return m_reconciler.reconcile(key); };
  const ReconcileFn trainjob = [this](const std::string& key) { return m_tj_reconciler.reconcile(key); };
  for (int i = 0; i < std::max(1, m_config.workers); ++i) {
    if (m_config.kinds.pytorchjobs)
      m_threads.emplace_back([this, pytorchjob] { work(m_queue, pytorchjob, m_metrics, m_clock, m_log); });
    if (m_config.kinds.trainjobs)
      m_threads.emplace_back([this, trainjob] { work(m_tj_queue, trainjob, m_metrics, m_clock, m_log); });
  }
  m_log.info("controller started", {{"namespace", m_config.namespace_.empty() ? "*" : m_config.namespace_},
                                    {"workers", std::to_string(m_config.workers)}});
}

int ControllerRun::serve(std::atomic<bool>& stop, LeaderElector* elector) {
  if (elector != nullptr) return elector->keep(stop, m_log) ? 0 : 1;
  while (!stop.load()) std::this_thread::sleep_for(std::chrono::milliseconds{50});
  return 0;
}

void ControllerRun::shut_down() {
  m_log.info("shutting down");
  m_stop_informers = true;
  m_queue.shut_down();
  m_tj_queue.shut_down();
  for (auto& t : m_threads) t.join();
  m_threads.clear();
}

int ControllerRun::run(std::atomic<bool>& stop, const std::function<void(int)>& on_listening) {
  m_leading = !m_config.leader_elect;
  HealthServer health;
  if (m_config.metrics_addr != "0") {
    auto bound = health.start(
        m_config.metrics_addr, [this] { return ready(); }, m_metrics, m_log);
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
  }
  start_informers();
  start_workers(stop);
  const int exit_code = serve(stop, elector.get());
  shut_down();
  if (elector && exit_code == 0 && m_config.lease.release_on_stop) elector->release();
  return exit_code;
}

}  // namespace

int run_controller(kube::ApiClient& raw_client, const ControllerConfig& config, const util::Clock& clock,
                   Logger& log, std::atomic<bool>& stop, const std::function<void(int)>& on_listening) {
  Metrics metrics;
  InstrumentedClient client(raw_client, metrics);
  if (config.reconciler.managed_by.empty() && config.reconciler.job_selector.empty()) {
    if (const auto found = detect_training_operator(client); !found.empty()) {
      log.error("a Training Operator is running in this cluster ('" + found +
                "'); refusing to reconcile its jobs: pass --managed-by or --job-selector to say which jobs "
                "are ours");
      return 1;
    }
  }
  ControllerConfig effective = config;
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
