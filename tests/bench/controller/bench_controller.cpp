// bench_controller [jobs] [replicas]: creates `jobs` worker-only PyTorchJobs of `replicas`
// workers in the embedded API server and runs the controller against it in a process of its own
// (forked before the server starts, so the child is single-threaded at fork), then reports the
// time until every pod exists, API writes per job against the minimum, and the controller
// process's peak RSS (VmHWM) next to the server process's.
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <fstream>
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

/// A field of /proc/self/status in kB (VmHWM: peak resident set, VmRSS: current).
long proc_status_kb(const std::string& field) {
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind(field + ":", 0) == 0) return std::atol(line.c_str() + field.size() + 1);
  }
  return -1;
}

std::unique_ptr<kube::ApiClient> client_for(const std::string& url) {
  kube::ResolvedConfig config;
  config.server = url;
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

/// The controller process: reads the server URL from `in`, runs until `in` closes, then writes
/// "<writes> <VmHWM kB> <VmRSS kB>" to `out`.
int controller_child(int in, int out) {
  std::string url;
  char c = 0;
  while (::read(in, &c, 1) == 1 && c != '\n') url += c;
  const long hwm_at_start = proc_status_kb("VmHWM");
  auto raw = client_for(url);
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
  std::thread stopper([&] {
    char ignored = 0;
    while (::read(in, &ignored, 1) == 1) {
    }
    stop = true;
  });
  const int code = controller::run_controller(client, config, clock, log, stop);
  stopper.join();
  const std::string report = std::to_string(counted.api_writes()) + " " + std::to_string(proc_status_kb("VmHWM")) +
                             " " + std::to_string(proc_status_kb("VmRSS")) + " " + std::to_string(hwm_at_start) + "\n";
  (void)!::write(out, report.data(), report.size());
  return code;
}

}  // namespace

int main(int argc, char** argv) {
  const int jobs = argc > 1 ? std::atoi(argv[1]) : 1000;
  const int replicas = argc > 2 ? std::atoi(argv[2]) : 4;
  int to_child[2];
  int from_child[2];
  if (::pipe(to_child) != 0 || ::pipe(from_child) != 0) return 2;
  const pid_t pid = ::fork();
  if (pid < 0) return 2;
  if (pid == 0) {
    ::close(to_child[1]);
    ::close(from_child[0]);
    ::_exit(controller_child(to_child[0], from_child[1]));
  }
  ::close(to_child[0]);
  ::close(from_child[1]);

  apiserver::ServerOptions options;
  options.tls = false;
  apiserver::ApiServer server(options);
  if (!server.start(0)) return 2;
  auto api = client_for(server.url());
  auto crd = kube::yaml_to_json("crd.yaml", controller::crd_manifest());
  if (!crd || !api->create(kube::resources::crds(), "", *crd)) return 2;
  while (!api->list(kube::resources::pytorchjobs(), "default", {})) std::this_thread::sleep_for(std::chrono::milliseconds{10});
  for (int i = 0; i < jobs; ++i) {
    if (!api->create(kube::resources::pytorchjobs(), "default", job(i, replicas))) return 2;
  }

  const auto start = std::chrono::steady_clock::now();
  const std::string line = server.url() + "\n";
  (void)!::write(to_child[1], line.data(), line.size());
  const std::size_t want = static_cast<std::size_t>(jobs) * replicas;
  while (count_pods(*api) < want) std::this_thread::sleep_for(std::chrono::milliseconds{100});
  const std::chrono::duration<double> took = std::chrono::steady_clock::now() - start;
  std::this_thread::sleep_for(std::chrono::seconds{2});  // let the status writes settle
  ::close(to_child[1]);  // tells the controller to stop
  std::string report;
  char c = 0;
  while (::read(from_child[0], &c, 1) == 1) report += c;
  int status = 0;
  ::waitpid(pid, &status, 0);
  const long server_hwm = proc_status_kb("VmHWM");
  server.stop();

  long writes = 0;
  long hwm = 0;
  long rss = 0;
  long hwm_start = 0;
  std::istringstream(report) >> writes >> hwm >> rss >> hwm_start;
  const int minimum = 2 * replicas + 1;  // Services + Pods + the Created status
  std::printf("jobs %d x replicas %d: every pod existed after %.2f s (%.0f pods/s)\n", jobs, replicas, took.count(),
              static_cast<double>(want) / took.count());
  std::printf("API writes per job: %.2f (minimum %d: %d Services, %d Pods, 1 status)\n",
              static_cast<double>(writes) / jobs, minimum, replicas, replicas);
  std::printf("controller process: peak RSS (VmHWM) %ld KB, RSS at the end %ld KB (%ld KB before it connected)\n", hwm,
              rss, hwm_start);
  std::printf("API server process (benchmark driver included): peak RSS %ld KB\n", server_hwm);
  return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : 1;
}
