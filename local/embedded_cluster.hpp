#pragma once

#include "apiserver/api_server.hpp"
#include "local/cluster_paths.hpp"
#include "local/job_network.hpp"
#include "util/expected.hpp"

#include <chrono>
#include <cstddef>
#include <iosfwd>
#include <memory>
#include <string>

namespace kpt::local {

struct ClusterOptions {
  ClusterPaths paths;
  int port = 0;                 ///< 0: a free loopback port
  bool server_only = false;     ///< only the API server: no controller, no node
  std::string default_workdir;  ///< for pods without the workdir annotation
  std::string env_style = "worker-only";
  std::size_t watch_history = 0;  ///< events kept for watch resumption; 0: the store's default (10,000)
  std::chrono::seconds event_ttl{3600};  ///< how long an Event lives after its last write (--event-ttl)
  /// Where pods' network is: "job" (a network namespace per job), "host" (the host's: jobs
  /// that use the same port wait for each other) or "auto" (job where the machine allows it).
  std::string pod_network = "auto";
  /// Where the cluster says what it does (serving on, the node's mode, stopped after); nullptr: std::cerr.
  std::ostream* log = nullptr;
};

/// The line `local up` prints about how the node runs pods on this machine.
std::string node_mode_text(const IsolationSupport& support, bool job_networks);

/// The embedded cluster in this process: the API server, our controller and the local node.
/// The controller and the node talk to the server over HTTPS with the generated token, exactly
/// as they would to a real cluster.
class EmbeddedCluster {
 public:
  explicit EmbeddedCluster(ClusterOptions options);
  ~EmbeddedCluster();
  EmbeddedCluster(const EmbeddedCluster&) = delete;
  EmbeddedCluster& operator=(const EmbeddedCluster&) = delete;

  /// Takes the state directory's lock, serves, starts the controller and the node, and writes
  /// the port file last (what `local up` waits for). Returns the bound port.
  Expected<int> start();
  /// Stops the controller, the node (and its pods), then the server; removes the pid and port
  /// files and releases the lock. Idempotent.
  void stop();

  apiserver::ApiServer& server();

 private:
  struct Parts;
  ClusterOptions m_options;
  std::unique_ptr<Parts> m_parts;
};

/// Debian's libnss_wrapper.so, through which local pods resolve Service and pod names (the node
/// preloads it into them); empty when it is not installed.
std::string find_nss_wrapper();

/// What the node (in the server's log) and `run --local` (to its user) say when there is no
/// libnss_wrapper.so: the job runs all the same, but its ranks cannot reach each other by name.
inline constexpr const char* k_no_name_resolution_warning =
    "libnss-wrapper is not installed: the local node resolves no Service names, so ranks that "
    "rendezvous at MASTER_ADDR cannot find each other (apt-get install -y libnss-wrapper)";

/// `local serve`: an EmbeddedCluster until SIGTERM or SIGINT; the error when it cannot start.
Expected<void> serve_cluster(const ClusterOptions& options);

}  // namespace kpt::local
