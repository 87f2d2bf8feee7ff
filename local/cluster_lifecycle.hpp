#pragma once

#include "kube/api_client.hpp"
#include "local/cluster_paths.hpp"
#include "util/expected.hpp"

#include <chrono>
#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace kpt::local {

/// What the state directory says about its server.
struct ClusterStatus {
  enum class State {
    stopped,   ///< no process holds the state directory's lock (stale pid files are ignored)
    starting,  ///< a process holds the lock but has not written its port yet
    running,   ///< a process holds the lock and has written its port
  } state = State::stopped;
  int pid = 0;
  int port = 0;

  [[nodiscard]] bool running() const { return state == State::running; }
};

/// The file to execute to run this program again. `/proc/self/exe`, unless the program was started
/// by naming it to the dynamic loader (`ld-linux-x86-64.so.2 [--argv0 NAME] PROGRAM`, as the release
/// archive's launcher does to load its own glibc): then /proc/self/exe is the loader and `argv0` is
/// what starts the program (the launcher). `interpreter_base` is the auxiliary vector's AT_BASE,
/// which is 0 when the kernel ran the loader itself rather than as the program's interpreter.
std::string self_executable(unsigned long interpreter_base, const std::string& argv0);

/// self_executable() of the running process.
std::string running_executable();

struct LifecycleOptions {
  std::string self_exe = running_executable();  ///< the binary whose `local serve` is the server
  int port = 0;                                 ///< 0: a free loopback port
  bool server_only = false;                     ///< only the API server: no controller, no node
  std::size_t watch_history = 0;                ///< passed to `local serve`; 0: its default
  std::chrono::seconds event_ttl{0};            ///< passed to `local serve`; 0: its default (1 h)
  std::string pod_network;                      ///< passed to `local serve`; empty: its default (auto)
  std::chrono::milliseconds start_timeout{30'000};
  std::chrono::milliseconds stop_timeout{15'000};
  std::chrono::milliseconds probe_timeout{5'000};  ///< how long a probe waits for an answer
};

/// How ensure_up() found or made the cluster.
struct UpResult {
  int pid = 0;
  int port = 0;
  bool started = false;  ///< false: it was already up and answering
};

/// How stop() stops the pods.
struct StopOptions {
  /// Caps every pod's terminationGracePeriodSeconds (`local down --grace`).
  std::optional<std::chrono::seconds> grace;
  /// The longest grace period of the running pods: how much longer than stop_timeout to wait.
  std::chrono::seconds pods_grace{0};
};

/// How stop() found the cluster.
struct StopResult {
  bool was_running = false;
  int pid = 0;
};

/// The local cluster's lifecycle, for `local up|down|status` and `run --local` alike: the one
/// place that starts (`self_exe local serve` detached), probes, waits for and stops the
/// background server of a state directory. A server holds an flock on the directory's lock
/// file while it lives, so a reused pid is never taken for a server, and two servers never
/// share one state directory.
class ClusterLifecycle {
 public:
  explicit ClusterLifecycle(ClusterPaths paths, LifecycleOptions options = {});

  [[nodiscard]] const ClusterPaths& paths() const { return m_paths; }
  [[nodiscard]] ClusterStatus status() const;

  /// An authenticated GET /version over TLS, verifying the server with the state's CA.
  [[nodiscard]] Expected<void> probe(int port) const;

  /// Returns a cluster that answers: the running one, else a fresh one (state prepared, server
  /// spawned, waited for). A server that holds the lock but does not answer is wedged: it is
  /// killed and replaced.
  Expected<UpResult> ensure_up() const;

  /// Sends SIGTERM and waits for the server to exit (its node stops the pods first: SIGTERM,
  /// SIGKILL after their grace period); removes stale pid and port files.
  Expected<StopResult> stop(const StopOptions& options = {}) const;

  /// Stops the cluster and wipes what it stored: every object (the database), pod logs and
  /// names. The CA and token stay, so kubeconfigs written before keep working after `local up`.
  Expected<StopResult> reset(const StopOptions& options = {}) const;

  /// A client for the running cluster (port file, token and CA of the state directory).
  [[nodiscard]] Expected<std::unique_ptr<kube::ApiClient>> client() const;

  /// Writes a kubeconfig for the cluster at `port`.
  [[nodiscard]] Expected<void> write_kubeconfig(const std::string& path, int port) const;

 private:
  [[nodiscard]] Expected<int> spawn() const;
  [[nodiscard]] Expected<UpResult> wait_ready(int child) const;
  [[nodiscard]] ClusterStatus wait_while_starting(ClusterStatus s) const;
  [[nodiscard]] Expected<void> wait_exit(int pid, std::chrono::milliseconds timeout) const;
  void remove_stale_files() const;

  ClusterPaths m_paths;
  LifecycleOptions m_options;
};

/// The lock a serving process holds on its state directory, released when it is destroyed
/// (or the process dies, kill -9 included).
class ServeLock {
 public:
  /// Takes the lock and writes the pid file; fails when another process serves the directory.
  static Expected<ServeLock> acquire(const ClusterPaths& paths);
  ServeLock(ServeLock&& other) noexcept;
  ServeLock& operator=(ServeLock&&) = delete;
  ServeLock(const ServeLock&) = delete;
  ~ServeLock();

 private:
  explicit ServeLock(int fd) : m_fd(fd) {}
  int m_fd = -1;
};

/// A client for the API server at `port` with the state directory's CA and `token`; no
/// kubeconfig is consulted.
Expected<std::unique_ptr<kube::ApiClient>> client_for(const ClusterPaths& paths, int port,
                                                      const std::string& token);

}  // namespace kpt::local
