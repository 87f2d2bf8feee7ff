#include "apiserver/store.hpp"

#include <ctime>
#include <random>

namespace kpt::apiserver {

namespace {

std::string object_key(const std::string& ns, const std::string& name) { return ns + "/" + name; }

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

Store::Store(StoreOptions options) : m_options(options) {}

ApiResult<nlohmann::json> Store::mutate(const std::string& resource, const std::string& ns,
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
  m_rv = rv;
  objects[key] = obj;
  record({rv, current ? "MODIFIED" : "ADDED", resource, ns, obj, current ? *current : nlohmann::json()});
  return obj;
}

std::optional<nlohmann::json> Store::erase(const std::string& resource, const std::string& ns,
                                           const std::string& name, bool dry_run) {
  std::lock_guard lock(m_mutex);
  auto& objects = m_objects[resource];
  const auto it = objects.find(object_key(ns, name));
  if (it == objects.end()) return std::nullopt;
  nlohmann::json obj = it->second;
  if (dry_run) return obj;
  objects.erase(it);
  ++m_rv;
  obj["metadata"]["resourceVersion"] = std::to_string(m_rv);
  record({m_rv, "DELETED", resource, ns, obj, nullptr});
  return obj;
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
  for (const auto& [resource, objects] : m_objects) {
    for (const auto& [key, obj] : objects) {
      const auto& meta = obj["metadata"];
      if (!meta.contains("ownerReferences") || !meta["ownerReferences"].is_array()) continue;
      for (const auto& owner : meta["ownerReferences"]) {
        if (owner.value("uid", "") == uid) {
          out.push_back({resource, meta.value("namespace", ""), meta.value("name", "")});
          break;
        }
      }
    }
  }
  return out;
}

std::vector<Store::Ref> Store::refs_of(const std::string& resource, const std::string& ns) const {
  std::vector<Ref> out;
  for (const auto& obj : list(resource, ns)) {
    out.push_back({resource, obj["metadata"].value("namespace", ""), obj["metadata"].value("name", "")});
  }
  return out;
}

ApiResult<std::vector<StoreEvent>> Store::events_after(const std::string& resource, const std::string& ns,
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
