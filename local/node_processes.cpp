// The node's processes: starting containers in their sandbox, stopping them as the kubelet
// does, the job networks, the execs, and the node's own start and stop.
#include "local/local_node.hpp"
#include "local/supervisor.hpp"
#include "util/stop_token.hpp"
#include "util/time.hpp"

#include <poll.h>
#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <iostream>
#include <thread>

namespace kpt::local {

namespace {

int pidfd_open(int pid) { return static_cast<int>(::syscall(SYS_pidfd_open, pid, 0)); }

void pidfd_signal(int fd, int sig) { (void)::syscall(SYS_pidfd_send_signal, fd, sig, nullptr, 0); }

/// Whether the process behind a pidfd has ended (its pidfd reads as ready).
bool pidfd_ended(int fd) {
  pollfd p{fd, POLLIN, 0};
  return ::poll(&p, 1, 0) > 0;
}

}  // namespace

Expected<std::shared_ptr<JobNetwork>> LocalNode::network_for(Tracked& t) {
  if (!m_options.job_networks || t.host_network) return std::shared_ptr<JobNetwork>();
  if (t.network) return t.network;
  auto& shared = m_networks[t.ports.group];
  if (!shared) {
    auto made =
        JobNetwork::create(m_options.isolation.user_namespace, {m_options.api_port, m_options.status_port});
    if (!made) {
      m_networks.erase(t.ports.group);
      return made.error().context("creating the job's network");
    }
    shared = std::move(*made);
    if (m_relay) {
      for (const auto& l : shared->listeners()) m_relay->add(l.fd, l.port);
    }
  }
  t.network = shared;
  return shared;
}

void LocalNode::release_networks() {
  for (auto it = m_networks.begin(); it != m_networks.end();) {
    if (it->second.use_count() > 1) {
      ++it;
      continue;
    }
    if (m_relay) {
      for (const auto& l : it->second->listeners()) m_relay->remove(l.fd);
    }
    it = m_networks.erase(it);
  }
}

void LocalNode::start_due(Tracked& t, SteadyTime now) {
  for (const auto index : due_starts(t.run, now)) {
    auto& c = t.run.containers[index];
    const int attempt = c.restart_count;
    if (auto ok = m_logs.prepare(t.run.ns, t.run.name, t.run.uid, c.launch.name, attempt); !ok) continue;
    auto network = network_for(t);
    Expected<StartedProcess> started = StartedProcess{};
    if (!network) {
      started = network.error();
    } else {
      ProcessSpec spec;
      spec.argv = c.launch.argv;
      spec.env = c.launch.env;
      spec.workdir = c.launch.workdir;
      spec.log_path = m_logs.path(t.run.ns, t.run.name, t.run.uid, c.launch.name, attempt);
      spec.security = c.launch.security;
      spec.network = network->get();
      spec.pid_namespace = m_options.isolation.namespaces;
      spec.user_namespace = m_options.isolation.user_namespace;
      started = m_runner.start(spec);
    }
    if (!started) {
      ProcessExit failed;
      failed.exit_code = 128;
      failed.start_failed = true;
      failed.start_error = started.error().message;
      record_start(t.run, index, 0, util::now_rfc3339());
      record_exit(t.run, index, failed, util::now_rfc3339(), now);
      continue;
    }
    record_start(t.run, index, started->pid, util::now_rfc3339());
    c.inner_pid = started->inner_pid;
    m_ledger.add(started->pid);
    if (started->inner_pid > 0) m_ledger.add(started->inner_pid);
  }
}

void LocalNode::reap(Tracked& t, SteadyTime now) {
  for (std::size_t i = 0; i < t.run.containers.size(); ++i) {
    auto& c = t.run.containers[i];
    if (c.phase != ContainerRun::Phase::running || c.pid <= 0) continue;
    const int pid = c.pid;
    const int inner = c.inner_pid;
    if (auto exit = m_runner.poll(pid)) {
      record_exit(t.run, i, *exit, util::now_rfc3339(), now);
      m_ledger.remove(pid);
      if (inner > 0) m_ledger.remove(inner);
    }
  }
}

bool LocalNode::stop_containers(Tracked& t, SteadyTime now) {
  bool any_alive = false;
  for (auto& c : t.run.containers) {
    if (c.phase != ContainerRun::Phase::running || c.pid <= 0) continue;
    any_alive = true;
    if (!t.kill_at) {
      m_runner.signal(c.pid, SIGTERM);
    } else if (now >= *t.kill_at) {
      m_runner.kill(c.pid);
    }
  }
  if (any_alive && !t.kill_at) t.kill_at = now + std::chrono::seconds(t.grace_seconds);
  return any_alive;
}

void LocalNode::track_exec(const std::string& ns, const std::string& pod, int pid) {
  const int fd = pidfd_open(pid);
  if (fd < 0) return;
  std::lock_guard lock(m_mutex);
  for (auto it = m_execs.begin(); it != m_execs.end();) {  // forget the ended ones
    if (!pidfd_ended(it->second)) {
      ++it;
      continue;
    }
    ::close(it->second);
    it = m_execs.erase(it);
  }
  m_execs.emplace(ns + "/" + pod, fd);
}

void LocalNode::end_execs(const std::string& key) {
  const auto [first, last] = m_execs.equal_range(key);
  for (auto it = first; it != last; ++it) {
    pidfd_signal(it->second, k_kill_all_signal);
    ::close(it->second);
  }
  m_execs.erase(first, last);
}

Expected<ExecTarget> LocalNode::exec_target(const std::string& ns, const std::string& pod,
                                            const std::string& container) const {
  std::lock_guard lock(m_mutex);
  const auto it = m_pods.find(ns + "/" + pod);
  if (it == m_pods.end()) {
    return make_error(ErrorCode::not_found, "pod " + ns + "/" + pod + " is not running on this node");
  }
  for (const auto& c : it->second.run.containers) {
    if (c.launch.init || c.launch.name != container) continue;
    if (c.phase != ContainerRun::Phase::running) break;
    ExecTarget target;
    target.launch = c.launch;
    target.supervisor_pid = c.pid;
    target.join_user = m_options.isolation.namespaces && m_options.isolation.user_namespace;
    target.join_network = it->second.network != nullptr;
    target.join_pid = m_options.isolation.namespaces;
    return target;
  }
  return make_error(ErrorCode::not_found, "container not found (\"" + container + "\")");
}

SteadyTime LocalNode::stop_all() {
  // As the kubelet on a node shutdown: SIGTERM, then SIGKILL after each pod's grace period,
  // capped by `local down --grace`.
  const auto now = std::chrono::steady_clock::now();
  const int cap = m_stop_grace.load();
  SteadyTime latest = now;
  std::lock_guard lock(m_mutex);
  const auto stop = [&](Tracked& t) {
    if (cap >= 0) t.grace_seconds = std::min(t.grace_seconds, cap);
    if (t.kill_at && cap >= 0) t.kill_at = std::min(*t.kill_at, now + std::chrono::seconds(cap));
    if (stop_containers(t, now) && t.kill_at) latest = std::max(latest, *t.kill_at);
  };
  for (auto& [key, t] : m_pods) stop(t);
  for (auto& t : m_terminating) stop(t);
  return latest;
}

void LocalNode::run(const std::atomic<bool>& stop) {
  if (const int ended = ProcessLedger::end_leftovers(m_options.ledger_file); ended > 0)
    std::cerr << "ended " << ended << " process(es) that an earlier node left running\n";
  std::thread pods([&] { watch_loop(kube::resources::pods(), stop); });
  std::thread services([&] { watch_loop(kube::resources::services(), stop); });
  while (!stop.load()) {
    sync_once(std::chrono::steady_clock::now());
    (void)util::sleep_unless_stopped(stop, m_options.tick);  // a stop waits 20 ms, not a tick
  }
  // Bounded: a process that SIGKILL cannot end (stuck in the kernel) does not hold the node.
  const auto give_up = stop_all() + std::chrono::seconds(10);
  while (std::chrono::steady_clock::now() < give_up) {
    bool alive = false;
    {
      std::lock_guard lock(m_mutex);
      const auto now = std::chrono::steady_clock::now();
      for (auto& [key, t] : m_pods) {
        reap(t, now);
        alive = stop_containers(t, now) || alive;
      }
      for (auto& t : m_terminating) {
        reap(t, now);
        alive = stop_containers(t, now) || alive;
      }
    }
    if (!alive) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  {
    std::lock_guard lock(m_mutex);
    for (const auto& [key, fd] : m_execs) {
      pidfd_signal(fd, k_kill_all_signal);
      ::close(fd);
    }
    m_execs.clear();
  }
  pods.join();
  services.join();
}

}  // namespace kpt::local
