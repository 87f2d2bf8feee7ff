#include "local/local_node.hpp"

#include "local/node_restart.hpp"
#include "local/pod_validation.hpp"
#include "local/pod_volumes.hpp"
#include "model/k8s/object_meta.hpp"
#include "util/json_access.hpp"
#include "util/time.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <set>
#include <thread>

namespace kpt::local {

namespace {
using nlohmann::json;

std::string key_of(const std::string& ns, const std::string& name) { return ns + "/" + name; }

// How often a pod whose env sources are missing is planned again (the kubelet retries its sync).
constexpr auto k_config_retry = std::chrono::seconds(2);

bool finished(const PodRun& run) {
  const std::string phase = pod_phase(run);
  return phase == "Succeeded" || phase == "Failed";
}

// The names a pod answers to in cluster DNS, in its namespace: its own name and, for a pod with a
// hostname in a headless Service's subdomain, `<hostname>.<subdomain>` (how JobSet pods, i.e.
// TrainJobs, find node 0). Both become lines of the hosts file: a newline in either would add lines
// of its own, so a subdomain name is given only when both parts are DNS labels.
struct PodHostNames {
  std::string ns;
  std::string pod;
  std::string hostname;
  std::string subdomain;
  [[nodiscard]] bool has_subdomain_name() const { return is_safe_name(hostname) && is_safe_name(subdomain); }
  [[nodiscard]] std::string subdomain_name() const { return hostname + "." + subdomain; }
};

PodHostNames host_names_of(const json& pod) {
  const json meta = pod.value("metadata", json::object());
  const json spec = pod.value("spec", json::object());
  return {meta.value("namespace", "default"), util::string_at(meta, "name"),
          util::string_at(spec, "hostname"), util::string_at(spec, "subdomain")};
}

}  // namespace

LocalNode::LocalNode(kube::ApiClient& api, ProcessRunner& runner, NodeOptions options)
    : m_api(api),
      m_runner(runner),
      m_options(std::move(options)),
      m_logs(m_options.log_dir),
      m_hosts(m_options.env.hosts_file),
      m_ledger(m_options.ledger_file),
      m_events(api, m_clock, "v1", "Pod", "kubelet", true) {
  if (m_options.job_networks && m_options.api_port > 0) m_relay = std::make_unique<ApiRelay>();
}

LocalNode::~LocalNode() {
  // The relay's threads go first: they accept on listeners that the networks own.
  m_relay.reset();
}

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
  if (m_hosts.add(util::string_at(meta, "name"), meta.value("namespace", "default"))) (void)m_hosts.write();
}

bool LocalNode::add_host_names(const nlohmann::json& pod) {
  const PodHostNames names = host_names_of(pod);
  bool added = m_hosts.add(names.pod, names.ns);
  if (names.has_subdomain_name()) added = m_hosts.add(names.subdomain_name(), names.ns) || added;
  return added;
}

bool LocalNode::remove_host_names(const nlohmann::json& pod) {
  const PodHostNames names = host_names_of(pod);
  bool removed = m_hosts.remove(names.pod, names.ns);
  if (!names.has_subdomain_name()) return removed;
  // A recreated pod (a JobSet restart) takes the same hostname: keep it while one is tracked.
  for (const auto& [key, t] : m_pods) {
    const PodHostNames other = host_names_of(t.pod);
    if (other.hostname == names.hostname && other.subdomain == names.subdomain) return removed;
  }
  return m_hosts.remove(names.subdomain_name(), names.ns) || removed;
}

void LocalNode::retire(std::map<std::string, Tracked>::iterator it) {
  Tracked t = std::move(it->second);
  m_pods.erase(it);
  t.run.deleting = true;
  m_terminating.push_back(std::move(t));
}

void LocalNode::on_pod(const nlohmann::json& pod, bool deleted) {
  const json meta = pod.value("metadata", json::object());
  const std::string key = key_of(meta.value("namespace", "default"), util::string_at(meta, "name"));
  auto it = m_pods.find(key);
  const bool terminating = deleted || meta.contains("deletionTimestamp");
  if (it != m_pods.end() && !util::string_at(meta, "uid").empty() &&
      it->second.run.uid != util::string_at(meta, "uid")) {
    // Same name, new pod (a re-creation): the old one stops with its grace period; the new
    // one, which reuses its name, Service and ports, starts once the old one's processes ended.
    retire(it);
    it = m_pods.end();
  }
  if (it == m_pods.end()) {
    if (!terminating) take_pod(key, pod);
    return;
  }
  if (terminating) retire(it);
}

void LocalNode::take_pod(const std::string& key, const nlohmann::json& pod) {
  const json status = pod.value("status", json::object());
  const std::string phase = util::string_at(status, "phase");
  if (phase == "Succeeded" || phase == "Failed") return;  // finished before we (re)started
  if (add_host_names(pod)) (void)m_hosts.write();
  const json spec = pod.value("spec", json::object());
  Tracked t;
  t.key = key;
  t.pod = pod;
  t.run = plan_run(t, util::now_rfc3339(), std::chrono::steady_clock::now());
  t.retry_at = std::chrono::steady_clock::now() + k_config_retry;
  // A pod we do not track that already ran: it ran under this node before a restart.
  const bool resumed = ran_before(status);
  if (resumed && t.run.config_error.empty()) {
    resume_after_node_restart(t.run, status, util::now_rfc3339(), std::chrono::steady_clock::now());
    t.run.start_time = status.value("startTime", t.run.start_time);
  }
  t.grace_seconds = spec.value("terminationGracePeriodSeconds", 30);
  t.host_network = spec.value("hostNetwork", false);
  t.ports = port_use(pod);
  // In a job network a pod's ports are its job's own; only pods on the host's network compete.
  if (m_options.job_networks && !t.host_network) t.ports.ports.clear();
  t.seen = ++m_seen;
  // A pod that ran here before keeps its ports; a new one waits while another job holds them.
  if (!resumed) {
    if (const auto conflict = find_port_conflict(t.ports, held_ports()))
      t.run.unschedulable = unschedulable_message(*conflict);
  }
  if (const auto deadline = spec.find("activeDeadlineSeconds");
      deadline != spec.end() && deadline->is_number_integer() && deadline->get<long long>() > 0) {
    const auto started = util::parse_time(t.run.start_time);
    const auto from =
        started ? std::chrono::system_clock::time_point(*started) : std::chrono::system_clock::now();
    t.deadline = from + std::chrono::seconds(deadline->get<long long>());
  }
  auto& tracked = m_pods.emplace(key, std::move(t)).first->second;
  report_not_enforced(tracked);
  publish_status(tracked);
}

void LocalNode::report_not_enforced(const Tracked& t) {
  if (!t.run.config_error.empty()) {
    m_events.record(t.pod, "Warning", "Failed", "Error: " + t.run.config_error);
    return;
  }
  std::set<std::string> written;
  if (!m_options.volume_dir.empty()) {
    for (const auto& f : projected_files(t.pod)) written.insert(f.volume);
  }
  std::vector<std::string> notes = pod_not_enforced(t.pod, written);
  for (const auto& c : t.run.containers) {
    for (const auto& note : c.launch.security.not_enforced)
      notes.push_back((c.launch.init ? "init container " : "container ") + c.launch.name + ": " + note);
  }
  for (const auto& note : notes) m_events.record(t.pod, "Warning", "NotEnforced", note);
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
  const auto holding = [](const Tracked& t) {
    if (!t.run.unschedulable.empty() || t.ports.ports.empty()) return false;
    const bool running =
        std::any_of(t.run.containers.begin(), t.run.containers.end(),
                    [](const ContainerRun& c) { return c.phase == ContainerRun::Phase::running; });
    return running || !finished(t.run);
  };
  for (const auto& [key, t] : m_pods)
    if (holding(t)) out.push_back(t.ports);
  for (const auto& t : m_terminating)
    if (holding(t)) out.push_back(t.ports);
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

void LocalNode::check_deadline(Tracked& t, SteadyTime now) {
  if (!t.deadline || !t.run.failure_reason.empty() || !t.run.unschedulable.empty() || finished(t.run)) return;
  if (std::chrono::system_clock::now() < *t.deadline) return;
  mark_deadline_exceeded(t.run);
  (void)stop_containers(t, now);
  m_events.record(t.pod, "Normal", "DeadlineExceeded", t.run.failure_message);
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
    if (model::k8s::uid_of(*current) != t.run.uid) return;
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
  // Pods whose object is gone: stopped with their grace period, then forgotten.
  bool forgot = false;
  for (auto it = m_terminating.begin(); it != m_terminating.end();) {
    reap(*it, now);
    if (stop_containers(*it, now)) {
      ++it;
      continue;
    }
    const json gone = it->pod;
    const std::string key = it->key;
    sample_logs(*it, true);
    if (it->tokens_due) {
      std::error_code ignored;
      std::filesystem::remove_all(volume_root(it->run.uid), ignored);
    }
    it = m_terminating.erase(it);
    forgot = true;
    if (m_pods.count(key) == 0) {
      end_execs(key);
      if (remove_host_names(gone)) (void)m_hosts.write();
    }
  }
  if (forgot) release_networks();
  admit_waiting();
  for (auto& [key, t] : m_pods) {
    reap(t, now);
    check_deadline(t, now);
    if (!t.run.failure_reason.empty()) (void)stop_containers(t, now);
    retry_config(t, now);
    refresh_tokens(t, now);
    // A re-created pod starts once its predecessor's processes are gone (its ports are free).
    const bool predecessor = std::any_of(m_terminating.begin(), m_terminating.end(),
                                         [&k = key](const Tracked& old) { return old.key == k; });
    if (!predecessor) start_due(t, now);
    publish_status(t);
    sample_logs(t, false);
  }
}

std::optional<std::string> LocalNode::log_file(const std::string& ns, const std::string& pod,
                                               const std::string& container, bool previous) const {
  if (!container.empty() && !is_safe_name(container)) return std::nullopt;  // never a path outside
  std::lock_guard lock(m_mutex);
  const auto it = m_pods.find(key_of(ns, pod));
  if (it == m_pods.end()) return std::nullopt;
  for (const auto& c : it->second.run.containers) {
    if (!container.empty() && c.launch.name != container) continue;
    if (!is_safe_name(c.launch.name)) return std::nullopt;
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
  auto target = exec_target(ns, pod, container);
  if (!target) return target.error();
  return std::move(target->launch);
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
