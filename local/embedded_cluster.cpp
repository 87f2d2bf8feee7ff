#include "local/embedded_cluster.hpp"

#include "apiserver/api_handler.hpp"
#include "apiserver/certs.hpp"
#include "controller/controller_main.hpp"
#include "controller/logger.hpp"
#include "local/cluster_lifecycle.hpp"
#include "local/local_node.hpp"
#include "local/node_exec_provider.hpp"
#include "local/node_log_provider.hpp"
#include "local/torch_probe.hpp"
#include "model/k8s/object_meta.hpp"
#include "model/pytorchjob/env_style.hpp"
#include "model/trainjob/runtime_catalog.hpp"
#include "model/trainjob/status_request.hpp"
#include "schema/carried/carried_crds.hpp"
#include "util/clock.hpp"
#include "util/file_io.hpp"
#include "util/json_access.hpp"
#include "util/messages.hpp"
#include "util/strings.hpp"

#include <nlohmann/json.hpp>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <pwd.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <optional>
#include <thread>

namespace kpt::local {

namespace {

using SteadyClock = std::chrono::steady_clock;

/// The serving certificate and token that `local up` wrote into the state directory.
Expected<apiserver::ServerOptions> server_options_from(const ClusterPaths& paths) {
  auto ca = util::read_file(paths.ca_file);
  auto cert = util::read_file(paths.cert_file);
  auto key = util::read_file(paths.key_file);
  auto token = util::read_file(paths.token_file);
  if (!ca || !cert || !key || !token) {
    return make_error(ErrorCode::usage,
                      "the state directory '" + paths.state_dir + "' lacks certificates or token");
  }
  apiserver::ServerOptions options;
  options.certificates = apiserver::ServerCertificates{*ca, {}, *cert, *key};
  options.token = *token;
  options.database = paths.database_file;
  auto access = std::make_shared<apiserver::RotatingFile>(paths.access_log_file, std::uint64_t{16} << 20);
  options.access_log = [access](const std::string& line) { access->write_line(line); };
  return options;
}

/// Installs a CRD, or brings an older stored one up to this binary's definition.
Expected<void> install_crd(kube::ApiClient& client, const nlohmann::json& wanted_crd) {
  auto created = client.create(kube::resources::crds(), "", wanted_crd);
  if (created || !kube::is_already_exists(created.error())) {
    return created ? Expected<void>{} : Expected<void>{created.error()};
  }
  auto current = client.get(kube::resources::crds(), "", wanted_crd["metadata"]["name"]);
  if (!current) return current.error();
  nlohmann::json wanted = wanted_crd;
  wanted["metadata"]["resourceVersion"] = model::k8s::meta_string(*current, "resourceVersion");
  auto updated = client.update(kube::resources::crds(), "", wanted);
  if (!updated) return updated.error();
  return {};
}

/// The ClusterTrainingRuntimes a Trainer install creates (torch-distributed and the rest), so a
/// TrainJob names its runtime as on a cluster. One the user changed or deleted is left alone.
Expected<void> install_runtimes(kube::ApiClient& client) {
  const kube::ResourceRef runtimes = kube::resources::clustertrainingruntimes();
  if (auto present = client.list(runtimes, "", {}); present && !present->items.empty()) return {};
  for (const auto& runtime : model::trainjob::carried_runtimes(model::trainjob::k_newest_trainer_release)) {
    auto created = client.create(runtimes, "", runtime);
    if (!created && !kube::is_already_exists(created.error()))
      return created.error().context("creating ClusterTrainingRuntime " +
                                     util::quote(model::k8s::meta_string(runtime, "name")));
  }
  return {};
}

/// The local cluster shows each job's progress in `kubectl get` (docs/progress.md): a printer
/// column before Age, over the TrainJob's status.trainerStatus and the PyTorchJob's annotation of
/// ours. Columns only: the schemas stay the real CRDs'.
nlohmann::json with_progress_column(nlohmann::json crd) {
  const bool trainjob =
      util::string_at(util::member(util::member(crd, "spec"), "names"), "kind") == "TrainJob";
  if (!trainjob && util::string_at(util::member(util::member(crd, "spec"), "names"), "kind") != "PyTorchJob")
    return crd;
  const std::string annotation = model::trainjob::k_progress_annotation;
  std::string escaped;
  for (const char c : annotation) escaped += c == '.' ? std::string("\\.") : std::string(1, c);
  const nlohmann::json column = {{"name", "Progress %"},
                                 {"type", trainjob ? "integer" : "string"},
                                 {"description", "Training progress the trainer reported (TrainJobStatus)"},
                                 {"jsonPath", trainjob ? ".status.trainerStatus.progressPercentage"
                                                       : ".metadata.annotations." + escaped}};
  for (auto& version : crd["spec"]["versions"]) {
    auto& columns = version["additionalPrinterColumns"];
    if (!columns.is_array()) columns = nlohmann::json::array();
    const auto age = std::find_if(columns.begin(), columns.end(), [](const nlohmann::json& c) {
      return util::string_at(c, "name") == "Age";
    });
    columns.insert(age, column);
  }
  return crd;
}

/// Our PyTorchJob CRD, the Trainer v2 CRDs and Trainer's default runtimes.
Expected<void> install_apis(kube::ApiClient& client) {
  if (auto crd = install_crd(client, with_progress_column(schema::pytorchjob_crd())); !crd)
    return crd.error().context("installing the PyTorchJob CRD");
  for (const auto& crd : schema::trainer_crds()) {
    if (auto installed = install_crd(client, with_progress_column(crd)); !installed)
      return installed.error().context(
          "installing the " + util::string_at(util::member(util::member(crd, "spec"), "names"), "kind") +
          " CRD");
  }
  return install_runtimes(client);
}

std::optional<unsigned> primary_group_of(unsigned uid) {
  passwd entry{};
  passwd* found = nullptr;
  char buf[4096];
  if (::getpwuid_r(uid, &entry, buf, sizeof buf, &found) != 0 || found == nullptr) return std::nullopt;
  return static_cast<unsigned>(found->pw_gid);
}

std::ostream& log_of(const ClusterOptions& options) {
  return options.log != nullptr ? *options.log : std::cerr;
}

Expected<NodeOptions> node_options_for(const ClusterOptions& options, int port) {
  NodeOptions node;
  node.isolation = probe_isolation();
  if (options.pod_network == "job" && !node.isolation.namespaces) {
    return make_error(ErrorCode::usage,
                      "--pod-network job: this machine gives the node no network namespaces (" +
                          node.isolation.unavailable + ")");
  }
  node.job_networks = node.isolation.namespaces && options.pod_network != "host";
  node.api_port = port;
  node.ledger_file = options.paths.ledger_file;
  node.env.user = NodeUser{::geteuid(), ::getegid(), primary_group_of};
  const char* home = std::getenv("HOME");
  node.env.home = home != nullptr ? home : "/";
  node.env.nss_wrapper_library = find_nss_wrapper();
  node.env.hosts_file = options.paths.hosts_file;
  node.env.workdir = options.default_workdir.empty() ? options.paths.state_dir : options.default_workdir;
  node.log_dir = options.paths.pod_log_dir;
  node.volume_dir = options.paths.state_dir + "/volumes";
  const auto [torch, python] = probe_local_torch(node.env.path);
  node.env.torchrun_env = torchrun_workaround_env(torch, python);
  if (!node.env.torchrun_env.empty()) {
    util::print_note(log_of(options),
                     "torch " + torch + " on Python " + python +
                         ": torchrun pods get PET_REDIRECTS=1 PET_TEE=1 (its defaults fail to "
                         "start workers there)");
  }
  return node;
}

/// A loopback port free now, for the controller's status server: chosen before the node starts,
/// so that the node relays it into job networks as it relays the API server's.
Expected<int> free_loopback_port() {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof addr;
  const bool ok = fd >= 0 && ::bind(fd, reinterpret_cast<const sockaddr*>(&addr), sizeof addr) == 0 &&
                  ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) == 0;
  const int err = errno;
  if (fd >= 0) ::close(fd);
  if (!ok)
    return make_error(ErrorCode::io, std::string("choosing the status server's port: ") + std::strerror(err));
  return static_cast<int>(ntohs(addr.sin_port));
}

/// The controller as `local up` runs it: TrainJobStatus on, its status server on a free loopback
/// port with a certificate of its own for `localhost`, the name the pods are given.
Expected<controller::ControllerConfig> controller_config_for(const ClusterOptions& options, int status_port) {
  controller::ControllerConfig config;
  if (auto style = model::pytorchjob::parse_style(options.env_style)) config.reconciler.style = *style;
  config.metrics_addr = "0";
  config.workers = 2;
  // Like any other instance of ours, it takes the default lease (default/kubectl-pytorch-controller),
  // so that a `kubectl pytorch controller` run against this cluster stands by instead of reconciling
  // the same jobs. Its identity is the same at every start, so a restart takes its own lease back
  // at once instead of waiting for it to expire.
  config.leader_elect = true;
  config.lease.identity = "kubectl-pytorch-local-cluster";
  config.embedded = true;
  config.features.train_job_status = true;
  config.status_server.bind_host = "127.0.0.1";
  config.status_server.port = status_port;
  config.status_server.advertise_host = "localhost";
  auto certs = apiserver::generate_certificates({"localhost"}, {"127.0.0.1"});
  if (!certs) return certs.error().context("generating the status server's certificate");
  config.status_server.tls = {certs->cert_pem, certs->key_pem, certs->ca_cert_pem};
  return config;
}

}  // namespace

std::string find_nss_wrapper() {
  for (const char* dir :
       {"/usr/lib/x86_64-linux-gnu", "/usr/lib/aarch64-linux-gnu", "/usr/lib64", "/usr/lib"}) {
    const std::string candidate = std::string(dir) + "/libnss_wrapper.so";
    if (::access(candidate.c_str(), R_OK) == 0) return candidate;
  }
  return {};
}

struct EmbeddedCluster::Parts {
  std::optional<ServeLock> lock;
  std::unique_ptr<apiserver::ApiServer> server;
  std::unique_ptr<kube::ApiClient> node_client;
  std::unique_ptr<kube::ApiClient> controller_client;
  std::unique_ptr<ProcessRunner> runner;
  std::unique_ptr<LocalNode> node;
  util::RealClock clock;
  std::unique_ptr<controller::Logger> logger;
  std::atomic<bool> stop{false};
  std::thread node_thread;
  std::thread controller_thread;

  Expected<int> start_server(const ClusterOptions& options);
  Expected<void> start_node_and_controller(const ClusterOptions& options, int port, const std::string& token);
  void read_stop_grace(const ClusterPaths& paths);
  void shut_down(std::ostream& log);
};

Expected<int> EmbeddedCluster::Parts::start_server(const ClusterOptions& options) {
  auto server_options = server_options_from(options.paths);
  if (!server_options) return server_options.error();
  if (options.watch_history > 0) server_options->store.history_window = options.watch_history;
  server_options->event_ttl = options.event_ttl;
  server = std::make_unique<apiserver::ApiServer>(std::move(*server_options));
  // doctor, validate and env learn from /version that our controller runs the jobs here.
  if (!options.server_only) server->handler().set_version_build("controller");
  return server->start(options.port);
}

Expected<void> EmbeddedCluster::Parts::start_node_and_controller(const ClusterOptions& options, int port,
                                                                 const std::string& token) {
  auto nc = client_for(options.paths, port, token);
  if (!nc) return nc.error();
  auto cc = client_for(options.paths, port, token);
  if (!cc) return cc.error();
  node_client = std::move(*nc);
  controller_client = std::move(*cc);
  if (auto apis = install_apis(*controller_client); !apis) return apis.error();

  const auto status_port = free_loopback_port();
  if (!status_port) return status_port.error();
  auto made = node_options_for(options, port);
  if (!made) return made.error();
  made->status_port = *status_port;
  const NodeOptions& node_options = *made;
  std::filesystem::create_directories(node_options.log_dir);
  const std::string mode = node_mode_text(node_options.isolation, node_options.job_networks);
  log_of(options) << mode << "\n";
  if (auto w = write_private(options.paths.node_mode_file, mode + "\n", 0644); !w) return w.error();
  if (node_options.env.nss_wrapper_library.empty()) {
    util::print_warning(log_of(options), k_no_name_resolution_warning);
  }
  runner = make_posix_runner();
  node = std::make_unique<LocalNode>(*node_client, *runner, node_options);
  server->set_log_provider(std::make_shared<NodeLogProvider>(*node));
  server->set_exec_provider(std::make_shared<NodeExecProvider>(*node));
  logger = std::make_unique<controller::Logger>(log_of(options), controller::LogFormat::text, clock);
  auto config = controller_config_for(options, *status_port);
  if (!config) return config.error();
  node_thread = std::thread([this] { node->run(stop); });
  controller_thread = std::thread([this, config = std::move(*config)] {
    (void)controller::run_controller(*controller_client, config, clock, *logger, stop);
  });
  return {};
}

void EmbeddedCluster::Parts::read_stop_grace(const ClusterPaths& paths) {
  auto text = util::read_file(paths.stop_grace_file, 64);
  ::unlink(paths.stop_grace_file.c_str());
  if (!text || !node) return;
  const long long seconds = std::atoll(text->c_str());
  if (seconds >= 0) node->set_stop_grace(std::chrono::seconds(seconds));
}

void EmbeddedCluster::Parts::shut_down(std::ostream& log) {
  stop = true;
  // The controller's and the node's watches would otherwise each wait for libcurl's idle progress
  // call (about once a second) to notice `stop`.
  if (server) server->end_streams();
  const auto stopping = SteadyClock::now();
  const auto took = [&] {
    const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(SteadyClock::now() - stopping);
    return std::to_string(ms.count()) + " ms";
  };
  if (controller_thread.joinable()) {
    controller_thread.join();
    log << "controller stopped after " << took() << "\n";
  }
  if (node_thread.joinable()) {
    node_thread.join();
    log << "node stopped after " << took() << "\n";
  }
  if (server) {
    server->stop();
    log << "server stopped after " << took() << "\n";
  }
}

EmbeddedCluster::EmbeddedCluster(ClusterOptions options)
    : m_options(std::move(options)), m_parts(std::make_unique<Parts>()) {}

EmbeddedCluster::~EmbeddedCluster() { stop(); }

Expected<int> EmbeddedCluster::start() {
  auto lock = ServeLock::acquire(m_options.paths);
  if (!lock) return lock.error();
  m_parts->lock.emplace(std::move(*lock));
  auto port = m_parts->start_server(m_options);
  if (!port) return port.error();
  if (!m_options.server_only) {
    auto token = read_token(m_options.paths);
    if (!token) return token.error();
    if (auto started = m_parts->start_node_and_controller(m_options, *port, *token); !started)
      return started.error();
  }
  // The port file last: `local up` waits for it, and by then everything is serving.
  if (auto w = write_private(m_options.paths.port_file, std::to_string(*port) + "\n", 0644); !w)
    return w.error();
  log_of(m_options) << "serving on " << m_parts->server->url()
                    << (m_options.server_only ? "\n" : " with the controller and the local node\n");
  return port;
}

void EmbeddedCluster::stop() {
  if (!m_parts->lock) return;
  m_parts->read_stop_grace(m_options.paths);
  m_parts->shut_down(log_of(m_options));
  ::unlink(m_options.paths.port_file.c_str());
  ::unlink(m_options.paths.pid_file.c_str());
  m_parts = std::make_unique<Parts>();  // releases the lock last
}

apiserver::ApiServer& EmbeddedCluster::server() { return *m_parts->server; }

std::string node_mode_text(const IsolationSupport& support, bool job_networks) {
  std::string text = "pods: ";
  text += job_networks ? "each job in a network namespace of its own (loopback, and the API server through "
                         "the node), so jobs bind the same ports side by side"
                       : "on the host's network, so jobs that declare the same port run one after the other";
  if (support.namespaces) return text + "; each pod in a PID namespace of its own";
  return text + "; each pod's processes tracked by the node (this machine allows the node no namespaces: " +
         support.unavailable + ")";
}

Expected<void> serve_cluster(const ClusterOptions& options) {
  // Block the stop signals before any thread starts, so only sigwait() sees them.
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGTERM);
  sigaddset(&set, SIGINT);
  pthread_sigmask(SIG_BLOCK, &set, nullptr);

  EmbeddedCluster cluster(options);
  if (auto port = cluster.start(); !port) return port.error();
  int sig = 0;
  sigwait(&set, &sig);
  log_of(options) << "stopping on signal " << sig << "\n";
  cluster.stop();
  return {};
}

}  // namespace kpt::local
