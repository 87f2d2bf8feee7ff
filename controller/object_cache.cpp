#include "controller/object_cache.hpp"

#include "model/pytorchjob/lifecycle_json.hpp"
#include "util/json_access.hpp"

#include <nlohmann/json.hpp>

#include <charconv>

namespace kpt::controller {

namespace {

/// The controlling owner reference of `kind`: {job key, uid}; empty key when there is none.
std::pair<std::string, std::string> controller_owner(const nlohmann::json& meta, const char* kind) {
  const auto refs = meta.find("ownerReferences");
  if (refs == meta.end() || !refs->is_array()) return {};
  for (const auto& ref : *refs) {
    if (!ref.is_object()) continue;
    if (util::string_at(ref, "kind") == kind && ref.value("controller", false)) {
      return {meta.value("namespace", std::string{}) + "/" + ref.value("name", std::string{}),
              ref.value("uid", std::string{})};
    }
  }
  return {};
}

std::string resource_version_of(const nlohmann::json& obj) {
  const auto& meta = obj.at("metadata");
  const auto it = meta.find("resourceVersion");
  return it != meta.end() && it->is_string() ? it->get<std::string>() : std::string{};
}

/// resourceVersions are opaque to clients, but both etcd and the embedded server issue increasing
/// integers; only when both parse is an older one recognised (and then not stored).
bool is_older(const std::string& candidate, const std::string& stored) {
  auto rv = [](const std::string& s) -> std::optional<unsigned long long> {
    unsigned long long v = 0;
    const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (s.empty() || ec != std::errc{} || end != s.data() + s.size()) return std::nullopt;
    return v;
  };
  const auto a = rv(candidate);
  const auto b = rv(stored);
  return a && b && *a < *b;
}

bool is_older(const nlohmann::json& candidate, const nlohmann::json& stored) {
  return is_older(resource_version_of(candidate), resource_version_of(stored));
}

std::int64_t label_int(const nlohmann::json& labels, const char* key) {
  const auto it = labels.find(key);
  if (it == labels.end() || !it->is_string()) return 0;
  const auto& s = it->get_ref<const std::string&>();
  std::int64_t v = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  return ec == std::errc{} && end == s.data() + s.size() ? v : 0;
}

/// What the TrainJob reconciler reads of one of its pods.
void observe_trainjob_pod(const nlohmann::json& pod, CachedChild& child) {
  const auto& meta = pod.at("metadata");
  const auto labels = meta.value("labels", nlohmann::json::object());
  const auto annotations = meta.value("annotations", nlohmann::json::object());
  auto& o = child.indexed;
  o.name = meta.value("name", std::string{});
  o.index = label_int(annotations, "batch.kubernetes.io/job-completion-index");
  o.deleting = meta.contains("deletionTimestamp");
  const auto status = pod.value("status", nlohmann::json::object());
  o.phase = status.value("phase", std::string{"Pending"});
  for (const auto& c : status.value("conditions", nlohmann::json::array())) {
    if (c.is_object() && util::string_at(c, "type") == "Ready")
      o.ready = util::string_at(c, "status") == "True";
  }
  for (const char* list : {"initContainerStatuses", "containerStatuses"}) {
    for (const auto& c : status.value(list, nlohmann::json::array())) {
      const auto count = c.is_object() ? c.find("restartCount") : c.end();
      if (count != c.end() && count->is_number_integer()) o.restarts += count->get<std::int64_t>();
    }
  }
  child.job_name = labels.value("batch.kubernetes.io/job-name", std::string{});
  child.restart_attempt = label_int(labels, "jobset.sigs.k8s.io/restart-attempt");
}

}  // namespace

std::string object_key(const nlohmann::json& obj) {
  const auto meta = obj.find("metadata");
  if (meta == obj.end() || !meta->is_object()) return "/";
  return meta->value("namespace", std::string{}) + "/" + meta->value("name", std::string{});
}

ChildChange ChildCache::apply(kube::WatchEvent::Type type, const nlohmann::json& obj) {
  std::lock_guard lock(m_mutex);
  return apply_locked(type, obj);
}

ChildChange ChildCache::apply_locked(kube::WatchEvent::Type type, const nlohmann::json& obj) {
  const auto meta = obj.find("metadata");
  if (meta == obj.end() || !meta->is_object()) return {};
  const bool of_trainjob = m_kind != Kind::pods && m_kind != Kind::services;
  auto [job_key, uid] = controller_owner(*meta, of_trainjob ? "TrainJob" : "PyTorchJob");
  if (job_key.empty()) return {};
  ChildChange change;
  change.job_key = job_key;
  const std::string name = meta->value("name", std::string{});
  if (type == kube::WatchEvent::Type::deleted) {
    const auto it = m_by_job.find(job_key);
    if (it != m_by_job.end() && it->second.erase(name) > 0) {
      change.deleted = true;
      --m_size;
      if (it->second.empty()) m_by_job.erase(it);
    }
    return change;
  }
  CachedChild child;
  child.owner_uid = std::move(uid);
  if (m_kind == Kind::pods) {
    child.pod = model::pytorchjob::pod_observation_from_json(obj);
  } else if (m_kind == Kind::trainjob_pods) {
    observe_trainjob_pod(obj, child);
  } else if (m_kind == Kind::trainjob_jobsets) {
    child.pod.name = name;
    child.jobset = model::trainjob::observe_jobset(&obj);
    child.resource_version = resource_version_of(obj);
  } else {
    child.pod.name = name;
  }
  auto& children = m_by_job[job_key];
  if (const auto it = children.find(name); it != children.end()) {
    // A watch event older than the answer of our own write (put_newer) must not undo it.
    if (!is_older(child.resource_version, it->second.resource_version)) it->second = std::move(child);
    return change;
  }
  children.emplace(name, std::move(child));
  change.created = true;
  ++m_size;
  return change;
}

std::vector<ChildChange> ChildCache::list_page(const std::vector<nlohmann::json>& items, bool first,
                                               bool last) {
  std::lock_guard lock(m_mutex);
  if (first) m_listed.clear();
  std::vector<ChildChange> changes;
  changes.reserve(items.size());
  for (const auto& obj : items) {
    auto change = apply_locked(kube::WatchEvent::Type::added, obj);
    if (change.job_key.empty()) continue;
    m_listed.emplace(change.job_key, obj["metadata"].value("name", std::string{}));
    changes.push_back(std::move(change));
  }
  if (!last) return changes;
  for (auto job = m_by_job.begin(); job != m_by_job.end();) {
    for (auto child = job->second.begin(); child != job->second.end();) {
      if (m_listed.count({job->first, child->first}) > 0) {
        ++child;
        continue;
      }
      changes.push_back({job->first, false, true});
      child = job->second.erase(child);
      --m_size;
    }
    job = job->second.empty() ? m_by_job.erase(job) : std::next(job);
  }
  m_listed.clear();
  return changes;
}

void ChildCache::put_newer(const nlohmann::json& obj) {
  std::lock_guard lock(m_mutex);
  const auto meta = obj.find("metadata");
  if (meta == obj.end() || !meta->is_object()) return;
  const bool of_trainjob = m_kind != Kind::pods && m_kind != Kind::services;
  const auto job_key = controller_owner(*meta, of_trainjob ? "TrainJob" : "PyTorchJob").first;
  const auto job = m_by_job.find(job_key);
  if (job == m_by_job.end()) return;
  const auto child = job->second.find(meta->value("name", std::string{}));
  if (child == job->second.end() || is_older(resource_version_of(obj), child->second.resource_version))
    return;
  (void)apply_locked(kube::WatchEvent::Type::modified, obj);
}

std::vector<CachedChild> ChildCache::of_job(const std::string& job_key) const {
  std::lock_guard lock(m_mutex);
  std::vector<CachedChild> out;
  if (const auto it = m_by_job.find(job_key); it != m_by_job.end()) {
    out.reserve(it->second.size());
    for (const auto& [name, child] : it->second) out.push_back(child);
  }
  return out;
}

std::size_t ChildCache::size() const {
  std::lock_guard lock(m_mutex);
  return m_size;
}

JobCache::JobCache() = default;
JobCache::~JobCache() = default;

void JobCache::store_locked(const nlohmann::json& job, bool only_if_present) {
  const auto key = object_key(job);
  auto it = m_jobs.find(key);
  if (it == m_jobs.end()) {
    if (only_if_present) return;
    it = m_jobs.emplace(key, nullptr).first;
  } else if (is_older(job, *it->second)) {
    return;
  }
  auto copy = std::make_unique<nlohmann::json>(job);
  (*copy)["metadata"].erase("managedFields");
  it->second = std::move(copy);
}

std::string JobCache::apply(kube::WatchEvent::Type type, const nlohmann::json& job) {
  std::lock_guard lock(m_mutex);
  auto key = object_key(job);
  if (type == kube::WatchEvent::Type::deleted) {
    m_jobs.erase(key);
  } else {
    store_locked(job, false);
  }
  return key;
}

std::vector<std::string> JobCache::list_page(const std::vector<nlohmann::json>& items, bool first,
                                             bool last) {
  std::lock_guard lock(m_mutex);
  if (first) m_listed.clear();
  std::vector<std::string> keys;
  for (const auto& job : items) {
    auto key = object_key(job);
    m_jobs.erase(key);  // the list is authoritative
    store_locked(job, false);
    m_listed.insert(key);
    keys.push_back(std::move(key));
  }
  if (!last) return keys;
  for (auto it = m_jobs.begin(); it != m_jobs.end();) {
    if (m_listed.count(it->first) > 0) {
      ++it;
      continue;
    }
    keys.push_back(it->first);
    it = m_jobs.erase(it);
  }
  m_listed.clear();
  return keys;
}

void JobCache::put_newer(const nlohmann::json& job) {
  std::lock_guard lock(m_mutex);
  store_locked(job, true);
}

std::optional<nlohmann::json> JobCache::get(const std::string& key) const {
  std::lock_guard lock(m_mutex);
  const auto it = m_jobs.find(key);
  if (it == m_jobs.end()) return std::nullopt;
  return *it->second;
}

std::size_t JobCache::size() const {
  std::lock_guard lock(m_mutex);
  return m_jobs.size();
}

}  // namespace kpt::controller
