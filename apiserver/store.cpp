#include "apiserver/store.hpp"

#include "model/k8s/object_meta.hpp"
#include "util/json_access.hpp"

#include <algorithm>
#include <cstdlib>
#include <ctime>
#include <random>

namespace kpt::apiserver {

namespace {

std::string object_key(const std::string& ns, const std::string& name) { return ns + "/" + name; }

/// The storage key of an object: "<group>/<plural>/<namespace>/<name>"; resource is "<group>/<plural>".
std::string storage_key(const std::string& resource, const std::string& ns, const std::string& name) {
  return resource + "/" + ns + "/" + name;
}

struct KeyParts {
  std::string resource, ns, name;
};

/// Splits a storage key; names and namespaces never hold a '/', the group never does either.
std::optional<KeyParts> split_key(const std::string& key) {
  const auto group_end = key.find('/');
  const auto plural_end = group_end == std::string::npos ? group_end : key.find('/', group_end + 1);
  const auto ns_end = plural_end == std::string::npos ? plural_end : key.find('/', plural_end + 1);
  if (ns_end == std::string::npos) return std::nullopt;
  return KeyParts{key.substr(0, plural_end), key.substr(plural_end + 1, ns_end - plural_end - 1),
                  key.substr(ns_end + 1)};
}

std::uint64_t rv_of(const nlohmann::json& obj) {
  const auto& meta = obj.value("metadata", nlohmann::json::object());
  const std::string rv = util::string_at(meta, "resourceVersion");
  return rv.empty() ? 0 : std::strtoull(rv.c_str(), nullptr, 10);
}

/// The storage is compacted in steps of this many revisions past the history window, so a
/// compaction's cost is spread over many writes.
constexpr std::uint64_t k_compact_step = 1000;

}  // namespace

std::string new_uid() {
  thread_local std::mt19937_64 rng{std::random_device{}()};
  const std::uint64_t a = rng();
  const std::uint64_t b = rng();
  char buf[37];
  std::snprintf(buf, sizeof buf, "%08x-%04x-4%03x-%04x-%012llx", static_cast<unsigned>(a >> 32),
                static_cast<unsigned>((a >> 16) & 0xffff), static_cast<unsigned>(a & 0xfff),
                static_cast<unsigned>(0x8000 | ((b >> 48) & 0x3fff)),
                static_cast<unsigned long long>(b & 0xffffffffffffULL));
  return buf;
}

Store::Store(StoreOptions options) : m_options(std::move(options)), m_storage(make_memory_storage()) {
  if (!m_options.clock) m_options.clock = std::make_shared<util::RealClock>();
}

Expected<void> Store::open(std::unique_ptr<Storage> storage) {
  std::lock_guard lock(m_mutex);
  auto revisions = storage->revisions();
  if (!revisions) return revisions.error();
  m_storage = std::move(storage);
  m_objects.clear();
  m_history.clear();
  m_by_uid.clear();
  m_by_owner.clear();
  m_expiry_of.clear();
  m_expiry_queue.clear();
  m_compacted_rv = m_storage->compacted();
  m_storage_compacted = m_compacted_rv;
  m_rv = std::max<std::uint64_t>(1, m_compacted_rv);
  for (const auto& revision : *revisions) replay(revision);
  return {};
}

void Store::replay(const Revision& revision) {
  m_rv = std::max(m_rv, revision.id);
  const auto parts = split_key(revision.key);
  auto obj = nlohmann::json::parse(revision.value, nullptr, false);
  if (!parts || obj.is_discarded()) return;  // not ours to serve; kept, never rewritten
  auto& objects = m_objects[parts->resource];
  const auto key = object_key(parts->ns, parts->name);
  const auto it = objects.find(key);
  nlohmann::json previous = it != objects.end() ? it->second : nlohmann::json();
  std::string type = "ADDED";
  if (revision.deleted) {
    type = "DELETED";
    // Compaction may have dropped every earlier revision of the key (its creation was older than the
    // mark, its deletion is not): the deletion's own copy of the object is what is unindexed then.
    reindex(parts->resource, previous.is_object() ? previous : obj, nullptr);
    if (it != objects.end()) objects.erase(it);
    set_expiry(revision.key, 0);
  } else {
    if (!revision.created) type = "MODIFIED";
    reindex(parts->resource, previous, obj);
    objects[key] = obj;
    set_expiry(revision.key, revision.expires_at);
  }
  if (revision.id <= m_compacted_rv) return;
  m_history.push_back({revision.id, type, parts->resource, parts->ns, std::move(obj),
                       type == "MODIFIED" ? std::move(previous) : nlohmann::json()});
  while (m_history.size() > m_options.history_window) {
    m_compacted_rv = m_history.front().rv;
    m_history.pop_front();
  }
}

std::optional<Error> Store::persist(const StoreEvent& event, std::int64_t expires_at) {
  const auto& meta = event.object["metadata"];
  Revision revision;
  revision.expires_at = expires_at;
  revision.id = event.rv;
  revision.key = storage_key(event.resource, event.ns, util::string_at(meta, "name"));
  revision.created = event.type == "ADDED";
  revision.deleted = event.type == "DELETED";
  revision.value = event.object.dump();
  revision.prev_revision = event.type == "MODIFIED" ? rv_of(event.previous) : 0;
  if (auto written = m_storage->append(revision); !written) {
    return make_api_error(500, "InternalError", "storing the object: " + written.error().message);
  }
  if (m_compacted_rv >= m_storage_compacted + k_compact_step) {
    // A failed compaction only leaves more rows behind; the next step retries.
    if (m_storage->compact(m_compacted_rv)) m_storage_compacted = m_compacted_rv;
  }
  return std::nullopt;
}

Expected<nlohmann::json> Store::mutate(const std::string& resource, const std::string& ns,
                                       const std::string& name, const Mutator& fn, bool dry_run) {
  std::lock_guard lock(m_mutex);
  auto& objects = m_objects[resource];
  const auto key = object_key(ns, name);
  const auto it = objects.find(key);
  std::optional<nlohmann::json> current;
  if (it != objects.end()) current = it->second;
  auto result = fn(current);
  if (!result) return result;
  nlohmann::json obj = std::move(result.value());
  const std::uint64_t rv = dry_run ? m_rv : m_rv + 1;
  obj["metadata"]["resourceVersion"] = std::to_string(rv);
  if (dry_run) return obj;
  StoreEvent event{rv,  current ? "MODIFIED" : "ADDED",       resource, ns,
                   obj, current ? *current : nlohmann::json()};
  const std::int64_t expires_at = expiry_for(resource);
  if (auto failed = persist(event, expires_at)) return *failed;
  set_expiry(storage_key(resource, ns, name), expires_at);
  m_rv = rv;
  reindex(resource, current ? *current : nlohmann::json(), obj);
  objects[key] = obj;
  record(std::move(event));
  return obj;
}

Expected<nlohmann::json> Store::erase(const std::string& resource, const std::string& ns,
                                      const std::string& name, bool dry_run) {
  std::lock_guard lock(m_mutex);
  return erase_locked(resource, ns, name, dry_run);
}

Expected<nlohmann::json> Store::erase_locked(const std::string& resource, const std::string& ns,
                                             const std::string& name, bool dry_run) {
  auto& objects = m_objects[resource];
  const auto it = objects.find(object_key(ns, name));
  if (it == objects.end()) return not_found("", resource, name);
  nlohmann::json obj = it->second;
  if (dry_run) return obj;
  obj["metadata"]["resourceVersion"] = std::to_string(m_rv + 1);
  StoreEvent event{m_rv + 1, "DELETED", resource, ns, obj, nullptr};
  if (auto failed = persist(event)) return *failed;
  reindex(resource, it->second, nullptr);
  objects.erase(it);
  set_expiry(storage_key(resource, ns, name), 0);
  ++m_rv;
  record(std::move(event));
  return obj;
}

std::int64_t Store::expiry_for(const std::string& resource) const {
  const auto ttl = m_options.ttl.find(resource);
  if (ttl == m_options.ttl.end() || ttl->second.count() <= 0) return 0;
  // Rounded up, so that an object never goes before its TTL has passed (expire() rounds down).
  const auto now = m_options.clock->now().time_since_epoch();
  auto seconds = std::chrono::duration_cast<std::chrono::seconds>(now);
  if (seconds < now) ++seconds;
  return (seconds + ttl->second).count();
}

void Store::set_expiry(const std::string& key, std::int64_t expires_at) {
  const auto it = m_expiry_of.find(key);
  if (it != m_expiry_of.end()) {
    m_expiry_queue.erase({it->second, key});
    m_expiry_of.erase(it);
  }
  if (expires_at <= 0) return;
  m_expiry_of.emplace(key, expires_at);
  m_expiry_queue.emplace(expires_at, key);
}

std::size_t Store::expire() {
  std::lock_guard lock(m_mutex);
  const auto now =
      std::chrono::duration_cast<std::chrono::seconds>(m_options.clock->now().time_since_epoch());
  std::size_t expired = 0;
  while (!m_expiry_queue.empty() && m_expiry_queue.begin()->first <= now.count()) {
    const std::string key = m_expiry_queue.begin()->second;
    const auto parts = split_key(key);
    auto erased = parts ? erase_locked(parts->resource, parts->ns, parts->name, false)
                        : Expected<nlohmann::json>(path_not_found());
    if (erased) {
      ++expired;
      continue;
    }
    if (erased.error().http_status != 404) break;  // the storage failed: the next sweep retries
    set_expiry(key, 0);                            // nothing there to expire
  }
  return expired;
}

std::optional<nlohmann::json> Store::get(const std::string& resource, const std::string& ns,
                                         const std::string& name) const {
  std::lock_guard lock(m_mutex);
  const auto r = m_objects.find(resource);
  if (r == m_objects.end()) return std::nullopt;
  const auto it = r->second.find(object_key(ns, name));
  if (it == r->second.end()) return std::nullopt;
  return it->second;
}

std::vector<nlohmann::json> Store::list(const std::string& resource, const std::string& ns,
                                        const std::string& after, std::uint64_t* rv_out) const {
  std::lock_guard lock(m_mutex);
  if (rv_out != nullptr) *rv_out = m_rv;
  std::vector<nlohmann::json> out;
  const auto r = m_objects.find(resource);
  if (r == m_objects.end()) return out;
  const std::string prefix = ns.empty() ? std::string{} : ns + "/";
  auto it = after.empty() ? r->second.lower_bound(prefix) : r->second.upper_bound(after);
  for (; it != r->second.end(); ++it) {
    if (!prefix.empty() && it->first.compare(0, prefix.size(), prefix) != 0) break;
    out.push_back(it->second);
  }
  return out;
}

std::uint64_t Store::current_rv() const {
  std::lock_guard lock(m_mutex);
  return m_rv;
}

std::vector<Store::Ref> Store::dependents_of(const std::string& uid) const {
  std::lock_guard lock(m_mutex);
  std::vector<Ref> out;
  const auto it = m_by_owner.find(uid);
  if (it == m_by_owner.end()) return out;
  for (const auto& [resource, key] : it->second) {
    const auto slash = key.find('/');
    out.push_back({resource, key.substr(0, slash), key.substr(slash + 1)});
  }
  return out;
}

std::optional<Store::Located> Store::find_uid(const std::string& uid) const {
  std::lock_guard lock(m_mutex);
  const auto it = m_by_uid.find(uid);
  if (it == m_by_uid.end()) return std::nullopt;
  const auto& ref = it->second;
  const auto r = m_objects.find(ref.resource);
  if (r == m_objects.end()) return std::nullopt;
  const auto obj = r->second.find(object_key(ref.ns, ref.name));
  if (obj == r->second.end()) return std::nullopt;
  return Located{ref, obj->second};
}

void Store::reindex(const std::string& resource, const nlohmann::json& before, const nlohmann::json& after) {
  const auto owner_uids = [](const nlohmann::json& obj) {
    std::set<std::string> uids;
    if (!obj.is_object() || !obj.contains("metadata")) return uids;
    const auto& refs = obj["metadata"].value("ownerReferences", nlohmann::json::array());
    if (!refs.is_array()) return uids;
    for (const auto& ref : refs) {
      if (ref.is_object() && ref.contains("uid") && ref["uid"].is_string()) uids.insert(ref["uid"]);
    }
    return uids;
  };
  const auto uid_of = [](const nlohmann::json& obj) {
    if (!obj.is_object() || !obj.contains("metadata")) return std::string{};
    return obj["metadata"].value("uid", std::string{});
  };
  if (!after.is_object() && !before.is_object()) return;
  const auto& meta = (after.is_object() ? after : before).value("metadata", nlohmann::json::object());
  const std::string ns = util::string_at(meta, "namespace");
  const std::string name = util::string_at(meta, "name");
  if (const auto old_uid = uid_of(before); !old_uid.empty()) m_by_uid.erase(old_uid);
  if (const auto new_uid = uid_of(after); !new_uid.empty()) m_by_uid[new_uid] = Ref{resource, ns, name};
  const std::pair<std::string, std::string> self{resource, object_key(ns, name)};
  for (const auto& uid : owner_uids(before)) {
    auto it = m_by_owner.find(uid);
    if (it == m_by_owner.end()) continue;
    it->second.erase(self);
    if (it->second.empty()) m_by_owner.erase(it);
  }
  for (const auto& uid : owner_uids(after)) m_by_owner[uid].insert(self);
}

std::vector<Store::Ref> Store::refs_of(const std::string& resource, const std::string& ns) const {
  std::vector<Ref> out;
  for (const auto& obj : list(resource, ns)) {
    out.push_back(
        {resource, model::k8s::meta_string(obj, "namespace"), model::k8s::meta_string(obj, "name")});
  }
  return out;
}

Expected<std::vector<StoreEvent>> Store::events_after(const std::string& resource, const std::string& ns,
                                                      std::uint64_t after, std::size_t max) const {
  std::lock_guard lock(m_mutex);
  if (after < m_compacted_rv) {
    return gone("too old resource version: " + std::to_string(after) + " (" +
                std::to_string(m_compacted_rv + 1) + ")");
  }
  std::vector<StoreEvent> out;
  // History is ordered by rv: binary search for the first newer event.
  auto it = std::lower_bound(m_history.begin(), m_history.end(), after + 1,
                             [](const StoreEvent& e, std::uint64_t rv) { return e.rv < rv; });
  for (; it != m_history.end() && out.size() < max; ++it) {
    if (it->resource != resource) continue;
    if (!ns.empty() && it->ns != ns) continue;
    out.push_back(*it);
  }
  return out;
}

bool Store::wait_for_change(std::uint64_t after, std::chrono::steady_clock::time_point deadline) const {
  std::unique_lock lock(m_mutex);
  return m_changed.wait_until(lock, deadline, [&] { return m_shutdown || m_rv > after; }) && !m_shutdown;
}

void Store::compact() {
  std::lock_guard lock(m_mutex);
  m_history.clear();
  m_compacted_rv = m_rv;
  if (m_storage->compact(m_compacted_rv)) m_storage_compacted = m_compacted_rv;
}

void Store::shutdown() {
  {
    std::lock_guard lock(m_mutex);
    m_shutdown = true;
  }
  m_changed.notify_all();
}

bool Store::is_shut_down() const {
  std::lock_guard lock(m_mutex);
  return m_shutdown;
}

void Store::record(StoreEvent event) {
  m_history.push_back(std::move(event));
  while (m_history.size() > m_options.history_window) {
    m_compacted_rv = m_history.front().rv;
    m_history.pop_front();
  }
  m_changed.notify_all();
}

}  // namespace kpt::apiserver
