// bench_controller [jobs] [replicas]: creates `jobs` worker-only PyTorchJobs of `replicas`
// workers in the embedded API server, runs the controller in-process and reports the time until
// every pod exists, API writes per job against the minimum, and the peak RSS.
#include <sys/resource.h>

#include <cstdio>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>

#include "apiserver/api_server.hpp"
#include "controller/controller_main.hpp"
#include "controller/instrumented_client.hpp"
#include "controller/logger.hpp"
#include "controller/manifests.hpp"
#include "kube/http_transport.hpp"
#include "kube/rest_client.hpp"
#include "kube/yaml_json.hpp"

namespace {

using namespace kpt;

long peak_rss_kb() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return u.ru_maxrss;
}

std::unique_ptr<kube::ApiClient> client_for(const apiserver::ApiServer& server) {
  kube::ResolvedConfig config;
  config.server = server.url();
  return std::make_unique<kube::RestClient>(config, kube::make_curl_transport({}));
}

nlohmann::json job(int i, int replicas) {
  const auto tmpl = nlohmann::json::parse(R"({"spec": {"containers": [{"name": "pytorch", "image": "img"}]}})");
  return {{"apiVersion", "kubeflow.org/v1"},
          {"kind", "PyTorchJob"},
          {"metadata", {{"name", "job" + std::to_string(i)}, {"namespace", "default"}}},
          {"spec", {{"pytorchReplicaSpecs", {{"Worker", {{"replicas", replicas}, {"template", tmpl}}}}}}}};
}

std::size_t count_pods(kube::ApiClient& api) {
  auto listed = api.list(kube::resources::pods(), "default", {});
  return listed ? listed->items.size() : 0;
}

}  // namespace

int main(int argc, char** argv) {
  const int jobs = argc > 1 ? std::atoi(argv[1]) : 1000;
  const int replicas = argc > 2 ? std::atoi(argv[2]) : 4;
  apiserver::ServerOptions options;
  options.tls = false;
  apiserver::ApiServer server(options);
  if (!server.start(0)) return 2;
  auto api = client_for(server);
  auto crd = kube::yaml_to_json("crd.yaml", controller::crd_manifest());
  if (!crd || !api->create(kube::resources::crds(), "", *crd)) return 2;
  while (!api->list(kube::resources::pytorchjobs(), "default", {})) std::this_thread::sleep_for(std::chrono::milliseconds{10});
  for (int i = 0; i < jobs; ++i) {
    if (!api->create(kube::resources::pytorchjobs(), "default", job(i, replicas))) return 2;
  }
  const long rss_before = peak_rss_kb();

  auto raw = client_for(server);
  controller::Metrics counted;
  controller::InstrumentedClient client(*raw, counted);
  controller::ControllerConfig config;
  config.metrics_addr = "0";
  config.namespace_ = "default";
  config.workers = 4;
  config.reconciler.emit_events = false;
  controller::RealClock clock;
  std::ostringstream log_out;
  controller::Logger log(log_out, controller::LogFormat::text, clock);
  std::atomic<bool> stop{false};
  const auto start = std::chrono::steady_clock::now();
  std::thread runner([&] { controller::run_controller(client, config, clock, log, stop); });
  const std::size_t want = static_cast<std::size_t>(jobs) * replicas;
  while (count_pods(*api) < want) std::this_thread::sleep_for(std::chrono::milliseconds{200});
  const std::chrono::duration<double> took = std::chrono::steady_clock::now() - start;
  std::this_thread::sleep_for(std::chrono::seconds{2});  // let the status writes settle
  stop = true;
  runner.join();
  server.stop();

  const double writes = static_cast<double>(counted.api_writes());
  const int minimum = 2 * replicas + 1;  // Services + Pods + the Created status
  std::printf("jobs %d x replicas %d: every pod existed after %.2f s (%.0f pods/s)\n", jobs, replicas, took.count(),
              static_cast<double>(want) / took.count());
  std::printf("API writes per job: %.2f (minimum %d: %d Services, %d Pods, 1 status)\n", writes / jobs, minimum,
              replicas, replicas);
  std::printf("peak RSS: %ld KB before the controller started, %ld KB at the end (server + controller in one process)\n",
              rss_before, peak_rss_kb());
  return 0;
}
