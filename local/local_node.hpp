#pragma once

#include "controller/events.hpp"
#include "kube/api_client.hpp"
#include "local/api_relay.hpp"
#include "local/hosts_file.hpp"
#include "local/job_network.hpp"
#include "local/log_clock.hpp"
#include "local/log_store.hpp"
#include "local/pod_run.hpp"
#include "local/port_admission.hpp"
#include "local/process_ledger.hpp"
#include "local/process_runner.hpp"
#include "util/clock.hpp"

#include <nlohmann/json.hpp>

#include <atomic>
#include <chrono>
#include <map>
#include <memory>
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
  /// What the machine allows (probe_isolation): with namespaces, each pod runs in a PID
  /// namespace of its own, so nothing it starts outlives it.
  IsolationSupport isolation;
  /// Each job in a network namespace of its own (needs isolation.namespaces): jobs bind the
  /// same ports side by side. Otherwise pods share the host's network and wait for ports.
  bool job_networks = false;
  int api_port = 0;         ///< the API server's, reachable from job networks through a relay
  int status_port = 0;      ///< the controller's progress status server's, relayed as well
  std::string ledger_file;  ///< the processes of this node, for the next one after a crash
  /// Where pods' projected volumes are written (a folder per pod uid); empty: not written.
  std::string volume_dir;
};

/// How an exec joins a running container: its launch (env, working directory, security) and
/// the namespaces to enter, as /proc paths of the container's supervisor.
struct ExecTarget {
  ContainerLaunch launch;
  int supervisor_pid = 0;
  bool join_user = false;     ///< the container runs in a user namespace of the node's user
  bool join_network = false;  ///< the container runs in its job's network
  bool join_pid = false;      ///< the container runs in a PID namespace of its own
};

/// The embedded node: runs every pod the API server holds as local processes, reports their
/// status as the kubelet does, keeps their logs, and stops them when the pod goes away.
/// It talks to the API server through ApiClient only, like a kubelet.
class LocalNode {
 public:
  LocalNode(kube::ApiClient& api, ProcessRunner& runner, NodeOptions options);
  ~LocalNode();

  /// Ends what an earlier node left (its process ledger), then runs until `stop` becomes true,
  /// then stops every process: SIGTERM, SIGKILL after the pod's grace period (or the one
  /// set_stop_grace gave, when shorter).
  void run(const std::atomic<bool>& stop);

  /// Caps the grace period of the pods' stop when the node stops (`local down --grace`).
  void set_stop_grace(std::chrono::seconds grace) { m_stop_grace = static_cast<int>(grace.count()); }

  /// The log file of a container: the current run, or the one before (`previous`).
  std::optional<std::string> log_file(const std::string& ns, const std::string& pod,
                                      const std::string& container, bool previous) const;
  /// How a running container's processes run (env, working directory), for exec; the error is
  /// worded as the kubelet's (`container not found ("x")`).
  Expected<ContainerLaunch> running_container(const std::string& ns, const std::string& pod,
                                              const std::string& container) const;
  /// running_container plus the namespaces an exec enters.
  Expected<ExecTarget> exec_target(const std::string& ns, const std::string& pod,
                                   const std::string& container) const;
  /// Remembers an exec's supervisor, to end it with its pod (a pidfd: a reused pid is safe).
  void track_exec(const std::string& ns, const std::string& pod, int pid);
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
    std::string key;         // ns/name
    bool host_network = false;
    std::optional<std::chrono::system_clock::time_point> deadline;  // spec.activeDeadlineSeconds
    std::shared_ptr<JobNetwork> network;
    std::optional<SteadyTime> tokens_due;  // when its projected tokens are requested again
  };

  void sync_once(SteadyTime now);
  void on_pod(const nlohmann::json& pod, bool deleted);
  void on_service(const nlohmann::json& svc);
  /// Takes a new pod in: plans it, reports what it cannot honour, admits it or lets it wait.
  void take_pod(const std::string& key, const nlohmann::json& pod);
  /// Moves a pod whose object went away (or was replaced) to the pods being stopped.
  void retire(std::map<std::string, Tracked>::iterator it);
  /// Adds the names the pod answers to in cluster DNS; true when one is new. Holds m_mutex.
  bool add_host_names(const nlohmann::json& pod);
  bool remove_host_names(const nlohmann::json& pod);
  void start_due(Tracked& t, SteadyTime now);
  /// The network of the pod's job, made when its first pod starts. Holds m_mutex.
  Expected<std::shared_ptr<JobNetwork>> network_for(Tracked& t);
  /// Forgets the job networks no tracked pod uses any more.
  void release_networks();
  /// The ports of the pods that hold them now (admitted, not finished or still running).
  std::vector<PortUse> held_ports() const;
  /// Admits the pods that wait for ports, in arrival order, where their ports are free now.
  void admit_waiting();
  /// The ConfigMaps and Secrets the pod's env names, fetched now (missing ones left out).
  EnvSources fetch_env_sources(const nlohmann::json& pod);
  /// Plans a pod that could not start again, as the kubelet retries CreateContainerConfigError.
  void retry_config(Tracked& t, SteadyTime now);
  void reap(Tracked& t, SteadyTime now);
  /// Stops a pod's running containers: SIGTERM first, everything at once after the grace.
  /// True while any of them runs.
  bool stop_containers(Tracked& t, SteadyTime now);
  /// Fails a pod past its spec.activeDeadlineSeconds.
  void check_deadline(Tracked& t, SteadyTime now);
  /// The pod's run as planned now (env sources fetched), its projected volumes written first: a
  /// volume that cannot be written keeps it from starting, as the kubelet's FailedMount does.
  PodRun plan_run(Tracked& t, const std::string& start_time, SteadyTime now);
  /// Requests the pod's projected tokens again once they are due (pod_volumes.hpp).
  void refresh_tokens(Tracked& t, SteadyTime now);
  [[nodiscard]] std::string volume_root(const std::string& uid) const;
  /// Notes how long the pod's logs are now (LogClock); `gone`: forgets them.
  void sample_logs(const Tracked& t, bool gone);
  void publish_status(Tracked& t);
  /// Warning Events for what the node does not honour in a pod, once.
  void report_not_enforced(const Tracked& t);
  /// Ends the execs into a pod that is gone.
  void end_execs(const std::string& key);
  void watch_loop(const kube::ResourceRef& ref, const std::atomic<bool>& stop);
  /// Starts stopping every pod; returns when the last SIGKILL is due.
  SteadyTime stop_all();

  kube::ApiClient& m_api;
  ProcessRunner& m_runner;
  NodeOptions m_options;
  LogStore m_logs;
  LogClock m_log_clock;
  HostsFile m_hosts;
  ProcessLedger m_ledger;
  util::RealClock m_clock;
  controller::EventRecorder m_events;
  std::unique_ptr<ApiRelay> m_relay;
  std::atomic<int> m_stop_grace{-1};
  mutable std::mutex m_mutex;
  std::map<std::string, Tracked> m_pods;  // key: ns/name
  std::vector<Tracked> m_terminating;     // deleted or replaced: processes being stopped
  std::map<std::string, std::shared_ptr<JobNetwork>> m_networks;  // key: PortUse::group
  std::multimap<std::string, int> m_execs;                        // pod key -> pidfd
  std::vector<std::pair<nlohmann::json, bool>> m_pending_pods;
  std::uint64_t m_seen = 0;
};

}  // namespace kpt::local
