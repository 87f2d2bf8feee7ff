#include "local/node.hpp"

#include "controller/stop_token.hpp"
#include "local/node_restart.hpp"
#include "local/pod_volumes.hpp"
#include "util/time.hpp"

#include <nlohmann/json.hpp>

#include <signal.h>

#include <algorithm>
#include <ctime>
#include <filesystem>
#include <thread>
namespace kpt::local {

namespace {
using nlohmann::json;

std::string key_of(const std::string& ns, const std::string& name) { return ns + "/" + name; }

// How often a pod whose env sources are missing is planned again (the kubelet retries its sync).
constexpr auto k_config_retry = std::chrono::seconds(2);
}  // namespace

LocalNode::LocalNode(kube::ApiClient& api, ProcessRunner& runner, NodeOptions options)
    : m_api(api),
      m_runner(runner),
      m_options(std::move(options)),
      m_logs(m_options.log_dir),
      m_hosts(m_options.env.hosts_file) {}

void LocalNode::watch_loop(const kube::ResourceRef& ref, const std::atomic<bool>& stop) {
  // A small informer: list, then watch from the list's resourceVersion; relist when the
  // watch ends with an error (410 Gone included) or the server closes it.
  while (!stop.load()) {
    auto listed = m_api.list(ref, "", {});
    if (!listed) {
      std::this_thread::sleep_for(std::chrono::milliseconds(500));
      continue;
    }
    for (const auto& item : listed->items) {
      if (ref.resource == "pods") {
        std::lock_guard lock(m_mutex);
        m_pending_pods.emplace_back(item, false);
      } else {
        on_service(item);
      }
    }
    kube::ListOptions opts;
    opts.resource_version = listed->resource_version;
    opts.timeout_seconds = 300;
    (void)m_api.watch(
        ref, "", opts,
        [&](const kube::WatchEvent& ev) {
          if (ev.type == kube::WatchEvent::Type::error || ev.type == kube::WatchEvent::Type::bookmark)
            return true;
          if (ref.resource == "pods") {
            std::lock_guard lock(m_mutex);
            m_pending_pods.emplace_back(ev.object, ev.type == kube::WatchEvent::Type::deleted);
          } else if (ev.type != kube::WatchEvent::Type::deleted) {
            on_service(ev.object);
          }
          return !stop.load();
        },
        &stop);
  }
}

void LocalNode::on_service(const nlohmann::json& svc) {
  const json meta = svc.value("metadata", json::object());
  std::lock_guard lock(m_mutex);
  if (m_hosts.add(meta.value("name", ""), meta.value("namespace", "default"))) (void)m_hosts.write();
}

bool LocalNode::add_host_names(const nlohmann::json& pod) {
  const json meta = pod.value("metadata", json::object());
  const std::string ns = meta.value("namespace", "default");
  bool added = m_hosts.add(meta.value("name", ""), ns);
  // A pod with a hostname in a headless Service's subdomain is `<hostname>.<subdomain>` in
  // cluster DNS: how JobSet pods (TrainJobs) find node 0.
  const json spec = pod.value("spec", json::object());
  const std::string hostname = spec.value("hostname", "");
  const std::string subdomain = spec.value("subdomain", "");
  if (!hostname.empty() && !subdomain.empty()) added = m_hosts.add(hostname + "." + subdomain, ns) || added;
  return added;
}

bool LocalNode::remove_host_names(const nlohmann::json& pod) {
  const json meta = pod.value("metadata", json::object());
  const std::string ns = meta.value("namespace", "default");
  bool removed = m_hosts.remove(meta.value("name", ""), ns);
  const json spec = pod.value("spec", json::object());
  const std::string fqdn = spec.value("hostname", "") + "." + spec.value("subdomain", "");
  if (fqdn.front() == '.' || fqdn.back() == '.') return removed;
  // A recreated pod (a JobSet restart) takes the same hostname: keep it while one is tracked.
  for (const auto& [key, t] : m_pods) {
    const json other = t.pod.value("spec", json::object());
    if (other.value("hostname", "") + "." + other.value("subdomain", "") == fqdn) return removed;
  }
  return m_hosts.remove(fqdn, ns) || removed;
}

void LocalNode::on_pod(const nlohmann::json& pod, bool deleted) {
  const json meta = pod.value("metadata", json::object());
  const std::string ns = meta.value("namespace", "default");
  const std::string name = meta.value("name", "");
  const std::string key = key_of(ns, name);
  auto it = m_pods.find(key);
  const bool terminating = deleted || meta.contains("deletionTimestamp");
  if (it != m_pods.end() && !meta.value("uid", "").empty() && it->second.run.uid != meta.value("uid", "")) {
    // Same name, new pod (a re-creation): the old one's processes go now, so the new pod,
    // which reuses its name and Service, can start in this same pass.
    for (auto& c : it->second.run.containers) {
      if (c.phase == ContainerRun::Phase::running && c.pid > 0) {
        m_runner.signal_group(c.pid, SIGKILL);
        (void)m_runner.poll(c.pid);
      }
    }
    m_pods.erase(it);
    it = m_pods.end();
  }
  if (it == m_pods.end()) {
    if (terminating) return;
    const std::string phase = pod.value("status", json::object()).value("phase", "");
    if (phase == "Succeeded" || phase == "Failed") return;  // finished before we (re)started
    if (add_host_names(pod)) (void)m_hosts.write();
    Tracked t;
    t.pod = pod;
    t.run = plan_run(t, util::now_rfc3339(), std::chrono::steady_clock::now());
    t.retry_at = std::chrono::steady_clock::now() + k_config_retry;
    // A pod we do not track that already ran: it ran under this node before a restart.
    if (const auto status = pod.value("status", json::object());
        ran_before(status) && t.run.config_error.empty()) {
      resume_after_node_restart(t.run, status, util::now_rfc3339(), std::chrono::steady_clock::now());
      t.run.start_time = status.value("startTime", t.run.start_time);
    }
    t.grace_seconds = pod.value("spec", json::object()).value("terminationGracePeriodSeconds", 30);
    t.ports = port_use(pod);
    t.seen = ++m_seen;
    // A pod that ran here before keeps its ports; a new one waits while another job holds them.
    if (!ran_before(pod.value("status", json::object()))) {
      if (const auto conflict = find_port_conflict(t.ports, held_ports()))
        t.run.unschedulable = unschedulable_message(*conflict);
    }
    it = m_pods.emplace(key, std::move(t)).first;
    publish_status(it->second);
    return;
  }
  if (terminating) it->second.run.deleting = true;
}

EnvSources LocalNode::fetch_env_sources(const nlohmann::json& pod) {
  EnvSources sources;
  const auto refs = env_references(pod);
  const std::string ns = pod.value("metadata", json::object()).value("namespace", "default");
  const kube::ResourceRef config_maps{"", "v1", "configmaps", "ConfigMap", true};
  const kube::ResourceRef secrets{"", "v1", "secrets", "Secret", true};
  for (const auto& name : refs.config_maps) {
    if (auto cm = m_api.get(config_maps, ns, name)) sources.config_maps[name] = std::move(*cm);
  }
  for (const auto& name : refs.secrets) {
    if (auto s = m_api.get(secrets, ns, name)) sources.secrets[name] = std::move(*s);
  }
  return sources;
}

std::vector<PortUse> LocalNode::held_ports() const {
  std::vector<PortUse> out;
  for (const auto& [key, t] : m_pods) {
    if (!t.run.unschedulable.empty() || t.ports.ports.empty()) continue;
    const bool running =
        std::any_of(t.run.containers.begin(), t.run.containers.end(),
                    [](const ContainerRun& c) { return c.phase == ContainerRun::Phase::running; });
    const std::string phase = pod_phase(t.run);
    if (running || (phase != "Succeeded" && phase != "Failed")) out.push_back(t.ports);
  }
  return out;
}

void LocalNode::admit_waiting() {
  std::vector<Tracked*> waiting;
  for (auto& [key, t] : m_pods)
    if (!t.run.unschedulable.empty() && !t.run.deleting) waiting.push_back(&t);
  if (waiting.empty()) return;
  std::sort(waiting.begin(), waiting.end(),
            [](const Tracked* a, const Tracked* b) { return a->seen < b->seen; });
  for (Tracked* t : waiting) {
    if (const auto conflict = find_port_conflict(t->ports, held_ports())) {
      t->run.unschedulable = unschedulable_message(*conflict);  // the holder may have changed
      continue;
    }
    t->run.unschedulable.clear();
    t->run.start_time = util::now_rfc3339();  // the kubelet's startTime: when it took the pod
  }
}

void LocalNode::retry_config(Tracked& t, SteadyTime now) {
  if (t.run.config_error.empty() || now < t.retry_at) return;
  t.retry_at = now + k_config_retry;
  PodRun fresh = plan_run(t, t.run.start_time, now);
  fresh.condition_since = std::move(t.run.condition_since);
  t.run = std::move(fresh);
}

void LocalNode::sample_logs(const Tracked& t, bool gone) {
  const auto now = std::chrono::system_clock::now();
  for (const auto& c : t.run.containers) {
    for (int run = gone ? 0 : c.restart_count; run <= c.restart_count; ++run) {
      const std::string file = m_logs.path(t.run.ns, t.run.name, t.run.uid, c.launch.name, run);
      if (gone) {
        m_log_clock.forget(file);
        continue;
      }
      if (c.phase == ContainerRun::Phase::waiting) continue;
      std::error_code ec;
      const auto size = std::filesystem::file_size(file, ec);
      if (!ec) m_log_clock.sample(file, static_cast<std::size_t>(size), now);
    }
  }
}

std::string LocalNode::volume_root(const std::string& uid) const { return m_options.volume_dir + "/" + uid; }

PodRun LocalNode::plan_run(Tracked& t, const std::string& start_time, SteadyTime now) {
  PodRun run = make_pod_run(t.pod, m_options.env, start_time, fetch_env_sources(t.pod));
  const auto files = projected_files(t.pod);
  if (!run.config_error.empty() || m_options.volume_dir.empty() || files.empty()) return run;
  auto written = write_projected_files(m_api, t.pod, files, volume_root(run.uid));
  if (!written) {
    run.config_error = "MountVolume.SetUp failed: " + written.error().message;
    return run;
  }
  std::vector<std::string> volumes;
  for (const auto& f : files) volumes.push_back(f.volume);
  std::vector<ContainerLaunch> launches;
  for (const auto& c : run.containers) launches.push_back(c.launch);
  remap_mounted_paths(launches, t.pod, volumes, volume_root(run.uid));
  for (std::size_t i = 0; i < launches.size(); ++i) run.containers[i].launch = std::move(launches[i]);
  t.tokens_due = now + written.value().value_or(std::chrono::hours(24));
  return run;
}

void LocalNode::refresh_tokens(Tracked& t, SteadyTime now) {
  if (!t.tokens_due || now < *t.tokens_due) return;
  auto written = write_projected_files(m_api, t.pod, projected_files(t.pod), volume_root(t.run.uid));
  t.tokens_due =
      now + (written ? written.value().value_or(std::chrono::hours(24)) : std::chrono::seconds(10));
}

void LocalNode::start_due(Tracked& t, SteadyTime now) {
  for (const auto index : due_starts(t.run, now)) {
    auto& c = t.run.containers[index];
    const int attempt = c.restart_count;
    if (auto ok = m_logs.prepare(t.run.ns, t.run.name, t.run.uid, c.launch.name, attempt); !ok) continue;
    ProcessSpec spec{c.launch.argv, c.launch.env, c.launch.workdir,
                     m_logs.path(t.run.ns, t.run.name, t.run.uid, c.launch.name, attempt)};
    auto pid = m_runner.start(spec);
    if (!pid) {
      ProcessExit failed;
      failed.exit_code = 128;
      failed.start_failed = true;
      failed.start_error = pid.error().message;
      record_start(t.run, index, 0, util::now_rfc3339());
      record_exit(t.run, index, failed, util::now_rfc3339(), now);
      continue;
    }
    record_start(t.run, index, *pid, util::now_rfc3339());
  }
}

void LocalNode::reap(Tracked& t, SteadyTime now) {
  for (std::size_t i = 0; i < t.run.containers.size(); ++i) {
    auto& c = t.run.containers[i];
    if (c.phase != ContainerRun::Phase::running || c.pid <= 0) continue;
    if (auto exit = m_runner.poll(c.pid)) record_exit(t.run, i, *exit, util::now_rfc3339(), now);
  }
}

void LocalNode::publish_status(Tracked& t) {
  if (t.run.deleting) return;
  mark_conditions(t.run, util::now_rfc3339());
  const json status = pod_status(t.run, m_options.env);
  const std::string serialized = status.dump();
  if (serialized == t.last_status) return;
  // Read-modify-write of /status; a conflict means someone else wrote: read again.
  for (int attempt = 0; attempt < 5; ++attempt) {
    auto current = m_api.get(kube::resources::pods(), t.run.ns, t.run.name);
    if (!current) return;  // gone: the deletion event will follow
    if ((*current)["metadata"].value("uid", "") != t.run.uid) return;
    (*current)["status"] = status;
    if (t.run.unschedulable.empty()) (*current)["spec"]["nodeName"] = m_options.env.node_name;
    auto written = m_api.update_status(kube::resources::pods(), t.run.ns, *current);
    if (written) {
      t.last_status = serialized;
      return;
    }
    if (!kube::is_conflict(written.error())) return;
  }
}

void LocalNode::sync_once(SteadyTime now) {
  std::vector<std::pair<json, bool>> events;
  {
    std::lock_guard lock(m_mutex);
    events.swap(m_pending_pods);
  }
  std::lock_guard lock(m_mutex);
  for (const auto& [pod, deleted] : events) on_pod(pod, deleted);
  admit_waiting();
  for (auto it = m_pods.begin(); it != m_pods.end();) {
    Tracked& t = it->second;
    reap(t, now);
    if (t.run.deleting) {
      bool any_alive = false;
      for (auto& c : t.run.containers) {
        if (c.phase != ContainerRun::Phase::running || c.pid <= 0) continue;
        any_alive = true;
        if (!t.kill_at) {
          m_runner.signal_group(c.pid, SIGTERM);
        } else if (now >= *t.kill_at) {
          m_runner.signal_group(c.pid, SIGKILL);
        }
      }
      if (!t.kill_at) t.kill_at = now + std::chrono::seconds(t.grace_seconds);
      if (!any_alive) {
        const json gone = t.pod;
        sample_logs(t, true);
        if (t.tokens_due) {
          std::error_code ignored;
          std::filesystem::remove_all(volume_root(t.run.uid), ignored);
        }
        it = m_pods.erase(it);
        if (remove_host_names(gone)) (void)m_hosts.write();
        continue;
      }
    } else {
      retry_config(t, now);
      refresh_tokens(t, now);
      start_due(t, now);
      publish_status(t);
      sample_logs(t, false);
    }
    ++it;
  }
}

void LocalNode::stop_all() {
  std::lock_guard lock(m_mutex);
  for (auto& [key, t] : m_pods) {
    for (auto& c : t.run.containers) {
      if (c.phase == ContainerRun::Phase::running && c.pid > 0) m_runner.signal_group(c.pid, SIGTERM);
    }
  }
}

void LocalNode::run(const std::atomic<bool>& stop) {
  std::thread pods([&] { watch_loop(kube::resources::pods(), stop); });
  std::thread services([&] { watch_loop(kube::resources::services(), stop); });
  while (!stop.load()) {
    sync_once(std::chrono::steady_clock::now());
    (void)controller::sleep_unless_stopped(stop, m_options.tick);  // a stop waits 20 ms, not a tick
  }
  stop_all();
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  while (std::chrono::steady_clock::now() < deadline) {
    bool alive = false;
    {
      std::lock_guard lock(m_mutex);
      for (auto& [key, t] : m_pods) {
        for (std::size_t i = 0; i < t.run.containers.size(); ++i) {
          auto& c = t.run.containers[i];
          if (c.phase != ContainerRun::Phase::running || c.pid <= 0) continue;
          if (m_runner.poll(c.pid))
            c.phase = ContainerRun::Phase::terminated;
          else
            alive = true;
        }
      }
    }
    if (!alive) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  {
    std::lock_guard lock(m_mutex);
    for (auto& [key, t] : m_pods) {
      for (auto& c : t.run.containers) {
        if (c.phase == ContainerRun::Phase::running && c.pid > 0) m_runner.signal_group(c.pid, SIGKILL);
      }
    }
  }
  pods.join();
  services.join();
}

std::optional<std::string> LocalNode::log_file(const std::string& ns, const std::string& pod,
                                               const std::string& container, bool previous) const {
  std::lock_guard lock(m_mutex);
  const auto it = m_pods.find(key_of(ns, pod));
  if (it == m_pods.end()) return std::nullopt;
  for (const auto& c : it->second.run.containers) {
    if (!container.empty() && c.launch.name != container) continue;
    // The current run's log index equals restart_count once it started; before a restart it
    // is restart_count - 1 while the container waits in back-off.
    const bool waiting_restart = c.phase == ContainerRun::Phase::waiting && c.restart_count > 0;
    int run = waiting_restart ? c.restart_count - 1 : c.restart_count;
    if (previous) --run;
    if (run < 0) return std::nullopt;
    return m_logs.path(ns, pod, it->second.run.uid, c.launch.name, run);
  }
  return std::nullopt;
}

Expected<ContainerLaunch> LocalNode::running_container(const std::string& ns, const std::string& pod,
                                                       const std::string& container) const {
  std::lock_guard lock(m_mutex);
  const auto it = m_pods.find(key_of(ns, pod));
  if (it == m_pods.end()) {
    return make_error(ErrorCode::not_found, "pod " + ns + "/" + pod + " is not running on this node");
  }
  for (const auto& c : it->second.run.containers) {
    if (c.launch.init || c.launch.name != container) continue;
    if (c.phase == ContainerRun::Phase::running) return c.launch;
  }
  return make_error(ErrorCode::not_found, "container not found (\"" + container + "\")");
}

bool LocalNode::container_running(const std::string& ns, const std::string& pod,
                                  const std::string& container) const {
  std::lock_guard lock(m_mutex);
  const auto it = m_pods.find(key_of(ns, pod));
  if (it == m_pods.end()) return false;
  for (const auto& c : it->second.run.containers) {
    if (!container.empty() && c.launch.name != container) continue;
    return c.phase != ContainerRun::Phase::terminated;
  }
  return false;
}

}  // namespace kpt::local
