#include "controller/controller_main.hpp"

#include "controller/expectations.hpp"
#include "controller/informer.hpp"
#include "controller/instrumented_client.hpp"
#include "controller/logger.hpp"
#include "controller/metrics.hpp"
#include "controller/object_cache.hpp"
#include "controller/work_queue.hpp"
#include "model/pytorchjob/labels.hpp"

#include <httplib.h>
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

void work(WorkQueue& queue, Reconciler& reconciler, Metrics& metrics, const util::Clock& clock, Logger& log) {
  while (auto key = queue.get()) {
    const auto started = clock.steady_now();
    const auto r = reconciler.reconcile(*key);
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

  // Everything the informers feed exists before the health server starts, so /readyz never
  // reads the informer list while it grows.
  std::vector<std::unique_ptr<Informer>> informers;
  WorkQueue queue(clock);
  JobCache jobs;
  ChildCache pods(ChildCache::Kind::pods);
  ChildCache services(ChildCache::Kind::services);
  Expectations expectations(clock);
  const ReconcilerCaches caches{jobs, pods, services, expectations};
  Reconciler reconciler(client, clock, config.reconciler, caches, &metrics);

  auto job_informer = std::make_unique<Informer>(
      client, kube::resources::pytorchjobs(), config.namespace_, "",
      [&](kube::WatchEvent::Type type, const nlohmann::json& job) {
        const auto key = jobs.apply(type, job);
        if (type == kube::WatchEvent::Type::deleted) expectations.forget(key);
        queue.add(key);
      },
      log, config.resync);
  job_informer->set_list_handler([&](const std::vector<nlohmann::json>& page, bool first, bool last) {
    for (const auto& key : jobs.list_page(page, first, last)) queue.add(key);
  });
  informers.push_back(std::move(job_informer));

  // Children: cache first, then meet expectations, then enqueue, so the pass the event triggers
  // sees what the event said.
  auto on_change = [&](const ChildChange& change) {
    if (change.job_key.empty()) return;
    if (change.created) expectations.observe_creation(change.job_key);
    if (change.deleted) expectations.observe_deletion(change.job_key);
    queue.add(change.job_key);
  };
  auto selector = model::pytorchjob::job_selector("", config.reconciler.style);
  std::erase_if(selector, [](const auto& kv) { return kv.first.find("job-name") != std::string::npos; });
  for (auto* cache : {&pods, &services}) {
    auto informer = std::make_unique<Informer>(
        client, cache == &pods ? kube::resources::pods() : kube::resources::services(), config.namespace_,
        model::pytorchjob::selector_string(selector),
        [cache, on_change](kube::WatchEvent::Type type, const nlohmann::json& obj) {
          on_change(cache->apply(type, obj));
        },
        log, config.resync);
    informer->set_list_handler(
        [cache, on_change](const std::vector<nlohmann::json>& page, bool first, bool last) {
          for (const auto& change : cache->list_page(page, first, last)) on_change(change);
        });
    informer->set_page_size(k_list_page_size);
    informers.push_back(std::move(informer));
  }
  informers.front()->set_page_size(k_list_page_size);

  std::atomic<bool> leading{!config.leader_elect};
  httplib::Server http;
  std::thread http_thread;
  if (config.metrics_addr != "0") {
    http.Get("/healthz",
             [](const httplib::Request&, httplib::Response& res) { res.set_content("ok", "text/plain"); });
    http.Get("/readyz", [&](const httplib::Request&, httplib::Response& res) {
      bool ready = leading.load() || config.leader_elect;  // a standby is ready to take over
      for (const auto& inf : informers) ready = ready && (inf->synced() || !leading.load());
      res.status = ready ? 200 : 503;
      res.set_content(ready ? "ok" : "not ready", "text/plain");
    });
    http.Get("/metrics", [&](const httplib::Request&, httplib::Response& res) {
      res.set_content(metrics.render(), "text/plain; version=0.0.4");
    });
    const auto colon = config.metrics_addr.rfind(':');
    std::string host = colon == std::string::npos ? "" : config.metrics_addr.substr(0, colon);
    const int port =
        std::stoi(colon == std::string::npos ? config.metrics_addr : config.metrics_addr.substr(colon + 1));
    if (host.empty()) host = "0.0.0.0";
    const int bound = port == 0 ? http.bind_to_any_port(host) : (http.bind_to_port(host, port) ? port : -1);
    if (bound < 0) {
      log.error("cannot listen on '" + config.metrics_addr + "'");
      return 1;
    }
    http_thread = std::thread([&http] { http.listen_after_bind(); });
    log.info("serving health and metrics", {{"addr", host + ":" + std::to_string(bound)}});
    if (on_listening) on_listening(bound);
  }
  auto stop_http = [&] {
    if (http_thread.joinable()) {
      http.stop();
      http_thread.join();
    }
  };

  std::unique_ptr<LeaderElector> elector;
  if (config.leader_elect) {
    elector = std::make_unique<LeaderElector>(client, clock, config.lease);
    if (!elector->acquire(stop, log)) {
      stop_http();
      return 0;
    }
    leading = true;
  }

  std::atomic<bool> stop_informers{false};
  std::vector<std::thread> threads;
  for (auto& inf : informers) threads.emplace_back([&inf, &stop_informers] { inf->run(stop_informers); });
  // Workers start once every cache holds a full list: a pass over a half-filled cache would try
  // to create what already exists.
  auto synced = [&] {
    return std::all_of(informers.begin(), informers.end(), [](const auto& inf) { return inf->synced(); });
  };
  while (!stop.load() && !synced()) std::this_thread::sleep_for(std::chrono::milliseconds{10});
  for (int i = 0; i < std::max(1, config.workers); ++i) {
    threads.emplace_back([&] { work(queue, reconciler, metrics, clock, log); });
  }
  log.info("controller started", {{"namespace", config.namespace_.empty() ? "*" : config.namespace_},
                                  {"workers", std::to_string(config.workers)}});

  int exit_code = 0;
  if (elector) {
    if (!elector->keep(stop, log)) exit_code = 1;  // lost: stop at once, never write as a non-leader
  } else {
    while (!stop.load()) std::this_thread::sleep_for(std::chrono::milliseconds{50});
  }
  log.info("shutting down");
  stop_informers = true;
  queue.shut_down();
  for (auto& t : threads) t.join();
  if (elector && exit_code == 0 && config.lease.release_on_stop) elector->release();
  stop_http();
  return exit_code;
}

}  // namespace kpt::controller
