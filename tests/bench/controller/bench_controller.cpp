// bench_controller [jobs] [replicas] [--exec BINARY] [--trainjobs] [--database FILE]: creates `jobs`
// worker-only PyTorchJobs of `replicas` workers (or, with --trainjobs, TrainJobs of the torch-distributed
// runtime with `replicas` nodes) in the embedded API server and runs the controller against it in a process
// of its own, then reports the time until every pod exists (counted from a pod watch), API writes per job
// against the minimum, and the controller process's peak RSS (VmHWM) next to the server's. Without --exec the
// controller is the library, forked before the server starts (the child is single-threaded at fork); with
// --exec it is `BINARY controller --kubeconfig ...` (the shipped plugin), its writes read from its /metrics
// and its VmHWM from /proc/PID/status. With --database the API server keeps its objects in that SQLite file
// (created; the local cluster's store) instead of memory only.
#include "apiserver/api_server.hpp"
#include "controller/controller_main.hpp"
#include "controller/instrumented_client.hpp"
#include "controller/logger.hpp"
#include "kube/http_transport.hpp"
#include "kube/rest_client.hpp"
#include "schema/carried/carried_crds.hpp"

#include <nlohmann/json.hpp>

#include <fcntl.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>
#include <thread>
#include <vector>

namespace {

using namespace kpt;

/// A field of /proc/<pid>/status in kB (VmHWM: peak resident set, VmRSS: current).
long proc_status_kb(const std::string& field, const std::string& pid = "self") {
  std::ifstream in("/proc/" + pid + "/status");
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
  const auto tmpl =
      nlohmann::json::parse(R"({"spec": {"containers": [{"name": "pytorch", "image": "img"}]}})");
  return {{"apiVersion", "kubeflow.org/v1"},
          {"kind", "PyTorchJob"},
          {"metadata", {{"name", "job" + std::to_string(i)}, {"namespace", "default"}}},
          {"spec", {{"pytorchReplicaSpecs", {{"Worker", {{"replicas", replicas}, {"template", tmpl}}}}}}}};
}

nlohmann::json trainjob(int i, int nodes) {
  return {{"apiVersion", "trainer.kubeflow.org/v1alpha1"},
          {"kind", "TrainJob"},
          {"metadata", {{"name", "job" + std::to_string(i)}, {"namespace", "default"}}},
          {"spec",
           {{"runtimeRef", {{"name", "torch-distributed"}}},
            {"trainer", {{"numNodes", nodes}, {"image", "img"}, {"command", {"torchrun", "train.py"}}}}}}};
}

/// The CRDs, then `jobs` jobs of `replicas` pods each; false on any failure.
bool create_jobs(kube::ApiClient& api, bool trainjobs, int jobs, int replicas) {
  std::vector<nlohmann::json> crds;
  if (trainjobs) {
    crds = schema::trainer_crds();
  } else {
    crds.push_back(schema::pytorchjob_crd());
  }
  for (const auto& crd : crds) {
    if (!api.create(kube::resources::crds(), "", crd)) return false;
  }
  const auto& resource = trainjobs ? kube::resources::trainjobs() : kube::resources::pytorchjobs();
  while (!api.list(resource, "default", {})) std::this_thread::sleep_for(std::chrono::milliseconds{10});
  for (int i = 0; i < jobs; ++i) {
    if (!api.create(resource, "default", trainjobs ? trainjob(i, replicas) : job(i, replicas))) return false;
  }
  return true;
}

/// Blocks until `want` pods were added (a watch: no repeated full lists that would load the server).
void wait_for_pods(kube::ApiClient& api, std::size_t want) {
  std::size_t added = 0;
  std::string rv;
  if (auto listed = api.list(kube::resources::pods(), "default", {})) {
    added = listed->items.size();
    rv = listed->resource_version;
  }
  while (added < want) {
    kube::ListOptions opts;
    opts.resource_version = rv;
    opts.timeout_seconds = 60;
    (void)api.watch(
        kube::resources::pods(), "default", opts,
        [&](const kube::WatchEvent& ev) {
          if (ev.type == kube::WatchEvent::Type::added) ++added;
          if (ev.object.contains("metadata")) rv = ev.object["metadata"].value("resourceVersion", rv);
          return added < want;
        },
        nullptr);
  }
}

int free_port() {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof addr;
  if (::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 ||
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
    ::close(fd);
    return -1;
  }
  ::close(fd);
  return ntohs(addr.sin_port);
}

/// Sum of the write verbs of kpt_controller_api_requests_total in a /metrics text.
long writes_from_metrics(const std::string& text) {
  long n = 0;
  std::istringstream in(text);
  std::string line;
  for (const char* verb : {"create", "update", "update_status", "patch", "delete"}) {
    in.clear();
    in.seekg(0);
    const std::string prefix = std::string("kpt_controller_api_requests_total{verb=\"") + verb + "\"";
    while (std::getline(in, line)) {
      if (line.rfind(prefix, 0) == 0) n += std::atol(line.c_str() + line.rfind(' ') + 1);
    }
  }
  return n;
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
  util::RealClock clock;
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
  const std::string report =
      std::to_string(counted.api_writes()) + " " + std::to_string(proc_status_kb("VmHWM")) + " " +
      std::to_string(proc_status_kb("VmRSS")) + " " + std::to_string(hwm_at_start) + "\n";
  (void)!::write(out, report.data(), report.size());
  return code;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  std::string exec_binary;
  if (const auto it = std::find(args.begin(), args.end(), "--exec");
      it != args.end() && it + 1 != args.end()) {
    exec_binary = *(it + 1);
    args.erase(it, it + 2);
  }
  bool trainjobs = false;
  if (const auto it = std::find(args.begin(), args.end(), "--trainjobs"); it != args.end()) {
    trainjobs = true;
    args.erase(it);
  }
  std::string database;
  if (const auto it = std::find(args.begin(), args.end(), "--database");
      it != args.end() && it + 1 != args.end()) {
    database = *(it + 1);
    args.erase(it, it + 2);
  }
  const int jobs = args.size() > 0 ? std::atoi(args[0].c_str()) : 1000;
  const int replicas = args.size() > 1 ? std::atoi(args[1].c_str()) : 4;
  int to_child[2];
  int from_child[2];
  if (::pipe(to_child) != 0 || ::pipe(from_child) != 0) return 2;
  pid_t pid = -1;
  if (exec_binary.empty()) {
    pid = ::fork();
    if (pid < 0) return 2;
    if (pid == 0) {
      ::close(to_child[1]);
      ::close(from_child[0]);
      ::_exit(controller_child(to_child[0], from_child[1]));
    }
    ::close(to_child[0]);
    ::close(from_child[1]);
  }

  apiserver::ServerOptions options;
  options.tls = false;
  options.database = database;
  apiserver::ApiServer server(options);
  if (!server.start(0)) return 2;
  auto api = client_for(server.url());
  if (!create_jobs(*api, trainjobs, jobs, replicas)) return 2;

  const int metrics_port = exec_binary.empty() ? 0 : free_port();
  std::vector<std::string> command;
  if (!exec_binary.empty()) {
    char dir[] = "/tmp/bench-controller-XXXXXX";
    if (::mkdtemp(dir) == nullptr) return 2;
    const std::string kubeconfig = std::string(dir) + "/kubeconfig";
    std::ofstream(kubeconfig)
        << "apiVersion: v1\nkind: Config\nclusters:\n- name: bench\n  cluster:\n    server: " << server.url()
        << "\ncontexts:\n- name: bench\n  context:\n    cluster: bench\n    user: bench\n"
           "    namespace: default\ncurrent-context: bench\nusers:\n- name: bench\n  user: {}\n";
    command = {exec_binary,
               "controller",
               "--kubeconfig",
               kubeconfig,
               "--workers",
               "4",
               "--no-events",
               "--metrics-addr",
               "127.0.0.1:" + std::to_string(metrics_port),
               "--log-format",
               "json"};
  }
  int log_fd = -1;  // the controller's log goes to a file beside the kubeconfig
  std::string log_path;
  if (!command.empty()) {
    log_path = command[3].substr(0, command[3].rfind('/')) + "/controller.log";
    log_fd = ::open(log_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  }
  std::vector<char*> exec_argv;
  for (auto& a : command) exec_argv.push_back(a.data());
  exec_argv.push_back(nullptr);

  const auto start = std::chrono::steady_clock::now();
  if (exec_binary.empty()) {
    const std::string line = server.url() + "\n";
    (void)!::write(to_child[1], line.data(), line.size());
  } else {
    pid = ::fork();
    if (pid < 0) return 2;
    if (pid == 0) {
      if (log_fd >= 0) ::dup2(log_fd, 2);
      ::execv(exec_argv[0], exec_argv.data());
      ::_exit(127);
    }
  }
  const std::size_t want = static_cast<std::size_t>(jobs) * replicas;
  wait_for_pods(*api, want);
  const std::chrono::duration<double> took = std::chrono::steady_clock::now() - start;
  std::this_thread::sleep_for(std::chrono::seconds{2});  // let the status writes settle

  long writes = 0;
  long hwm = 0;
  long rss = 0;
  long hwm_start = 0;
  int status = 0;
  if (exec_binary.empty()) {
    ::close(to_child[1]);  // tells the controller to stop
    std::string report;
    char c = 0;
    while (::read(from_child[0], &c, 1) == 1) report += c;
    ::waitpid(pid, &status, 0);
    std::istringstream(report) >> writes >> hwm >> rss >> hwm_start;
  } else {
    kube::ResolvedConfig metrics_config;
    metrics_config.server = "http://127.0.0.1:" + std::to_string(metrics_port);
    kube::RestClient metrics_client(metrics_config, kube::make_curl_transport({}));
    auto text = metrics_client.get_raw("/metrics");
    writes = text ? writes_from_metrics(*text) : -1;
    hwm = proc_status_kb("VmHWM", std::to_string(pid));
    rss = proc_status_kb("VmRSS", std::to_string(pid));
    ::kill(pid, SIGTERM);
    ::waitpid(pid, &status, 0);
  }
  const long server_hwm = proc_status_kb("VmHWM");
  server.stop();

  std::printf("%s %d x %s %d: every pod existed after %.2f s (%.0f pods/s)\n",
              trainjobs ? "trainjobs" : "jobs", jobs, trainjobs ? "nodes" : "replicas", replicas,
              took.count(), static_cast<double>(want) / took.count());
  if (trainjobs) {
    // The runtime snapshot ConfigMap, the headless Service, the pods, the jobsStatus.
    std::printf("API writes per job: %.2f (minimum %d: 1 ConfigMap, 1 Service, %d Pods, 1 status)\n",
                static_cast<double>(writes) / jobs, replicas + 3, replicas);
  } else {
    std::printf("API writes per job: %.2f (minimum %d: %d Services, %d Pods, 1 status)\n",
                static_cast<double>(writes) / jobs, 2 * replicas + 1, replicas, replicas);
  }
  if (exec_binary.empty()) {
    std::printf(
        "controller process (library, forked): peak RSS (VmHWM) %ld KB, RSS at the end %ld KB (%ld KB before "
        "it connected)\n",
        hwm, rss, hwm_start);
  } else {
    std::printf(
        "controller process ('%s controller'): peak RSS (VmHWM) %ld KB, RSS at the end %ld KB (log: %s)\n",
        exec_binary.c_str(), hwm, rss, log_path.c_str());
  }
  std::printf("API server process (benchmark driver included): peak RSS %ld KB\n", server_hwm);
  return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : 1;
}
