#pragma once

#include "kube/api_client.hpp"
#include "local/hosts_file.hpp"
#include "local/log_store.hpp"
#include "local/pod_run.hpp"
#include "local/process_runner.hpp"

#include <atomic>
#include <chrono>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace kpt::local {

struct NodeOptions {
  NodeEnvironment env;
  std::string log_dir;
  std::chrono::milliseconds tick{100};
  std::chrono::seconds default_grace{30};
};

/// The embedded node: runs every pod the API server holds as local processes, reports their
/// status as the kubelet does, keeps their logs, and stops them when the pod goes away.
/// It talks to the API server through ApiClient only, like a kubelet.
class LocalNode {
 public:
  LocalNode(kube::ApiClient& api, ProcessRunner& runner, NodeOptions options);

  /// Runs until `stop` becomes true, then stops every process (TERM, KILL after the grace).
  void run(const std::atomic<bool>& stop);

  /// The log file of a container: the current run, or the one before (`previous`).
  std::optional<std::string> log_file(const std::string& ns, const std::string& pod,
                                      const std::string& container, bool previous) const;
  /// True while the container's current run is still going (for `follow`).
  bool container_running(const std::string& ns, const std::string& pod, const std::string& container) const;

 private:
  struct Tracked {
    PodRun run;
    std::string last_status;  // serialized, to write only when it changed
    std::optional<SteadyTime> kill_at;
    int grace_seconds = 30;
  };

  void sync_once(SteadyTime now);
  void on_pod(const nlohmann::json& pod, bool deleted);
  void on_service(const nlohmann::json& svc);
  void start_due(Tracked& t, SteadyTime now);
  void reap(Tracked& t, SteadyTime now);
  void publish_status(Tracked& t);
  void watch_loop(const kube::ResourceRef& ref, const std::atomic<bool>& stop);
  void stop_all();

  kube::ApiClient& m_api;
  ProcessRunner& m_runner;
  NodeOptions m_options;
  LogStore m_logs;
  HostsFile m_hosts;
  mutable std::mutex m_mutex;
  std::map<std::string, Tracked> m_pods;  // key: ns/name
  std::vector<std::pair<nlohmann::json, bool>> m_pending_pods;
};

}  // namespace kpt::local
