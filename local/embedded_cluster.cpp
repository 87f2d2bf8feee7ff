#include "local/embedded_cluster.hpp"

#include "apiserver/api_server.hpp"
#include "controller/controller_main.hpp"
#include "controller/crd.hpp"
#include "controller/logger.hpp"
#include "kube/rest_client.hpp"
#include "local/node.hpp"
#include "local/node_log_provider.hpp"
#include "model/pytorchjob/env_style.hpp"
#include "util/clock.hpp"
#include "util/file_io.hpp"

#include <nlohmann/json.hpp>

#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <thread>

namespace kpt::local {

namespace {

using nlohmann::json;

std::string find_nss_wrapper() {
  for (const char* dir :
       {"/usr/lib/x86_64-linux-gnu", "/usr/lib/aarch64-linux-gnu", "/usr/lib64", "/usr/lib"}) {
    const std::string candidate = std::string(dir) + "/libnss_wrapper.so";
    if (::access(candidate.c_str(), R_OK) == 0) return candidate;
  }
  return {};
}

Expected<std::unique_ptr<kube::ApiClient>> client_for(const apiserver::LocalPaths& paths, int port,
                                                      const std::string& token) {
  // kube::ConnectionFlags carries the token only in memory; it never reaches a log.
  kube::ConnectionFlags flags;
  flags.server = "https://127.0.0.1:" + std::to_string(port);
  flags.token = token;
  flags.certificate_authority = paths.ca_file;
  flags.namespace_ = "default";
  // No kubeconfig is consulted: an empty environment has no KUBECONFIG and no HOME.
  return kube::make_client(flags, {}, {});
}

Expected<void> install_crd(kube::ApiClient& client) {
  auto created = client.create(kube::resources::crds(), "", controller::pytorchjob_crd());
  if (!created && !kube::is_already_exists(created.error())) return created.error();
  return {};
}

}  // namespace

Expected<std::unique_ptr<kube::ApiClient>> local_client(const apiserver::LocalPaths& paths) {
  auto port_text = util::read_file(paths.port_file);
  if (!port_text) return make_error(ErrorCode::not_found, "the local cluster is not running");
  auto token = util::read_file(paths.token_file);
  if (!token) return token.error().context("reading '" + paths.token_file + "'");
  const int port = std::atoi(port_text->c_str());
  if (port <= 0) return make_error(ErrorCode::io, "bad port file '" + paths.port_file + "'");
  std::string t = *token;
  while (!t.empty() && (t.back() == '\n' || t.back() == '\r')) t.pop_back();
  return client_for(paths, port, t);
}

int serve_cluster(const ClusterOptions& options) {
  // Block the stop signals before any thread starts, so only sigwait() sees them.
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGTERM);
  sigaddset(&set, SIGINT);
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
  const auto& paths = options.paths;

  auto ca = util::read_file(paths.ca_file);
  auto cert = util::read_file(paths.cert_file);
  auto key = util::read_file(paths.key_file);
  auto token = util::read_file(paths.token_file);
  if (!ca || !cert || !key || !token) {
    std::cerr << "error: the state directory '" << paths.state_dir << "' lacks certificates or token\n";
    return 2;
  }
  apiserver::ServerOptions server_options;
  server_options.certificates = apiserver::ServerCertificates{*ca, {}, *cert, *key};
  server_options.token = *token;
  apiserver::ApiServer server(server_options);
  auto port = server.start(options.port);
  if (!port) {
    std::cerr << "error: " << port.error().message << "\n";
    return 2;
  }

  auto node_client = client_for(paths, *port, *token);
  auto controller_client = client_for(paths, *port, *token);
  if (!node_client || !controller_client) {
    std::cerr << "error: " << (node_client ? controller_client.error() : node_client.error()).message << "\n";
    return 2;
  }
  if (auto crd = install_crd(**controller_client); !crd) {
    std::cerr << "error: installing the PyTorchJob CRD: " << crd.error().message << "\n";
    return 2;
  }

  NodeOptions node_options;
  node_options.env.home = std::getenv("HOME") != nullptr ? std::getenv("HOME") : "/";
  node_options.env.nss_wrapper_library = find_nss_wrapper();
  node_options.env.hosts_file = paths.state_dir + "/hosts";
  node_options.env.workdir = options.default_workdir.empty() ? paths.state_dir : options.default_workdir;
  node_options.log_dir = paths.state_dir + "/logs";
  std::filesystem::create_directories(node_options.log_dir);
  if (node_options.env.nss_wrapper_library.empty()) {
    std::cerr << "warning: libnss-wrapper is not installed: Service names will not resolve for local pods "
                 "(apt-get install -y libnss-wrapper)\n";
  }
  auto runner = make_posix_runner();
  LocalNode node(**node_client, *runner, node_options);
  server.set_log_provider(std::make_shared<NodeLogProvider>(node));

  util::RealClock clock;
  controller::Logger logger(std::cerr, controller::LogFormat::text, clock);
  controller::ControllerConfig config;
  if (auto style = model::pytorchjob::parse_style(options.env_style)) config.reconciler.style = *style;
  config.metrics_addr = "0";
  config.workers = 2;

  std::atomic<bool> stop{false};
  std::atomic<int> controller_exit{0};
  std::thread node_thread([&] { node.run(stop); });
  std::thread controller_thread([&] {
    controller_exit = controller::run_controller(**controller_client, config, clock, logger, stop);
  });

  // The port file last: `local up` waits for it, and by then everything is serving.
  std::ofstream(paths.pid_file, std::ios::trunc) << ::getpid() << "\n";
  std::ofstream(paths.port_file, std::ios::trunc) << *port << "\n";
  std::cerr << "serving on " << server.url() << " with the controller and the local node\n";

  int sig = 0;
  sigwait(&set, &sig);
  std::cerr << "stopping on signal " << sig << "\n";
  stop = true;
  const auto stopping = std::chrono::steady_clock::now();
  auto took = [&] {
    return std::to_string(std::chrono::duration_cast<std::chrono::milliseconds>(
                              std::chrono::steady_clock::now() - stopping)
                              .count()) +
           " ms";
  };
  controller_thread.join();
  std::cerr << "controller stopped after " << took() << "\n";
  node_thread.join();
  std::cerr << "node stopped after " << took() << "\n";
  server.stop();
  std::cerr << "server stopped after " << took() << "\n";
  ::unlink(paths.port_file.c_str());
  ::unlink(paths.pid_file.c_str());
  return 0;
}

}  // namespace kpt::local
