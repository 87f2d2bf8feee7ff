#pragma once

#include "kube/api_client.hpp"
#include "local/hosts_file.hpp"
#include "local/log_clock.hpp"
#include "local/log_store.hpp"
#include "local/pod_run.hpp"
#include "local/port_admission.hpp"
#include "local/process_runner.hpp"

#include <nlohmann/json.hpp>

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
  /// Where pods' projected volumes are written (a folder per pod uid); empty: not written.
  std::string volume_dir;
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
  /// How a running container's processes run (env, working directory), for exec; the error is
  /// worded as the kubelet's (`container not found ("x")`).
  Expected<ContainerLaunch> running_container(const std::string& ns, const std::string& pod,
                                              const std::string& container) const;
  /// True while the container's current run is still going (for `follow`).
  bool container_running(const std::string& ns, const std::string& pod, const std::string& container) const;
  /// When the log lines were written (for `timestamps=true`).
  [[nodiscard]] const LogClock& log_clock() const { return m_log_clock; }

 private:
  struct Tracked {
    PodRun run;
    nlohmann::json pod;       // as first seen, to plan again while its env sources are missing
    SteadyTime retry_at{};    // when to plan a pod with a config error again
    std::string last_status;  // serialized, to write only when it changed
    std::optional<SteadyTime> kill_at;
    int grace_seconds = 30;
    PortUse ports;
    std::uint64_t seen = 0;  // arrival order: waiting pods are admitted first come, first served
    std::optional<SteadyTime> tokens_due;  // when its projected tokens are requested again
  };

  void sync_once(SteadyTime now);
  void on_pod(const nlohmann::json& pod, bool deleted);
  void on_service(const nlohmann::json& svc);
  /// Adds the names the pod answers to in cluster DNS; true when one is new. Holds m_mutex.
  bool add_host_names(const nlohmann::json& pod);
  bool remove_host_names(const nlohmann::json& pod);
  void start_due(Tracked& t, SteadyTime now);
  /// The ports of the pods that hold them now (admitted, not finished or still running).
  std::vector<PortUse> held_ports() const;
  /// Admits the pods that wait for ports, in arrival order, where their ports are free now.
  void admit_waiting();
  /// The ConfigMaps and Secrets the pod's env names, fetched now (missing ones left out).
  EnvSources fetch_env_sources(const nlohmann::json& pod);
  /// Plans a pod that could not start again, as the kubelet retries CreateContainerConfigError.
  void retry_config(Tracked& t, SteadyTime now);
  void reap(Tracked& t, SteadyTime now);
  /// The pod's run as planned now (env sources fetched), its projected volumes written first: a
  /// volume that cannot be written keeps it from starting, as the kubelet's FailedMount does.
  PodRun plan_run(Tracked& t, const std::string& start_time, SteadyTime now);
  /// Requests the pod's projected tokens again once they are due (pod_volumes.hpp).
  void refresh_tokens(Tracked& t, SteadyTime now);
  [[nodiscard]] std::string volume_root(const std::string& uid) const;
  /// Notes how long the pod's logs are now (LogClock); `gone`: forgets them.
  void sample_logs(const Tracked& t, bool gone);
  void publish_status(Tracked& t);
  void watch_loop(const kube::ResourceRef& ref, const std::atomic<bool>& stop);
  void stop_all();

  kube::ApiClient& m_api;
  ProcessRunner& m_runner;
  NodeOptions m_options;
  LogStore m_logs;
  LogClock m_log_clock;
  HostsFile m_hosts;
  mutable std::mutex m_mutex;
  std::map<std::string, Tracked> m_pods;  // key: ns/name
  std::vector<std::pair<nlohmann::json, bool>> m_pending_pods;
  std::uint64_t m_seen = 0;
};

}  // namespace kpt::local
