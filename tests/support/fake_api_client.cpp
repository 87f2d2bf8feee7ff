#include "tests/support/fake_api_client.hpp"

#include "util/selector.hpp"

#include <algorithm>
#include <chrono>

namespace kpt::testing {

namespace {

/// Label selectors as the API server parses them (util/selector.hpp); a malformed one selects nothing.
bool matches_selector(const nlohmann::json& obj, const std::string& selector) {
  const auto reqs = util::parse_label_selector(selector);
  if (!reqs) return false;
  const auto labels = obj["metadata"].value("labels", nlohmann::json::object());
  std::string holder;
  return util::selector_matches(*reqs, [&](const std::string& key) -> const std::string* {
    const auto it = labels.find(key);
    if (it == labels.end() || !it->is_string()) return nullptr;
    holder = it->get<std::string>();
    return &holder;
  });
}

std::string name_of(const nlohmann::json& obj) { return obj["metadata"].value("name", std::string{}); }

}  // namespace

Error api_error(int http_status, const std::string& reason, const std::string& message) {
  return make_api_error(http_status, reason, message);
}

void FakeApiClient::record(const std::string& verb, const kube::ResourceRef& ref, const std::string& ns,
                           const std::string& name) {
  m_calls.push_back({verb, ref.resource, ns, name});
}

std::optional<Error> FakeApiClient::injected(const std::string& verb, const std::string& resource) {
  if (m_forbidden.count({verb, resource}) != 0)
    return api_error(403, "Forbidden", resource + " is forbidden: the fake's RBAC says no to " + verb);
  auto it = m_faults.find(verb);
  if (it == m_faults.end() || it->second.empty()) return std::nullopt;
  auto e = it->second.front();
  it->second.pop_front();
  return e;
}

void FakeApiClient::stamp(nlohmann::json& obj) {
  auto& meta = obj["metadata"];
  if (!meta.contains("uid")) meta["uid"] = "uid-" + std::to_string(m_version);
  if (!meta.contains("creationTimestamp")) meta["creationTimestamp"] = "2026-11-29T12:00:00Z";
  meta["resourceVersion"] = std::to_string(++m_version);
}

Expected<nlohmann::json> FakeApiClient::get(const kube::ResourceRef& ref, const std::string& ns,
                                            const std::string& name) {
  std::lock_guard lock(m_mutex);
  record("get", ref, ns, name);
  if (auto e = injected("get", ref.resource)) return *e;
  const auto it = m_objects.find({ref.resource, ns, name});
  if (it == m_objects.end()) return api_error(404, "NotFound", ref.resource + " \"" + name + "\" not found");
  return it->second;
}

Expected<kube::ListResult> FakeApiClient::list(const kube::ResourceRef& ref, const std::string& ns,
                                               const kube::ListOptions& opts) {
  std::lock_guard lock(m_mutex);
  record("list", ref, ns, "");
  if (auto e = injected("list", ref.resource)) return *e;
  kube::ListResult out;
  for (const auto& [key, obj] : m_objects) {
    if (std::get<0>(key) != ref.resource || (!ns.empty() && std::get<1>(key) != ns)) continue;
    const std::string by_name = "metadata.name=";
    if (opts.field_selector.rfind(by_name, 0) == 0 &&
        obj["metadata"].value("name", "") != opts.field_selector.substr(by_name.size()))
      continue;
    if (matches_selector(obj, opts.label_selector)) out.items.push_back(obj);
  }
  out.resource_version = std::to_string(m_version);
  return out;
}

Expected<void> FakeApiClient::watch(const kube::ResourceRef& ref, const std::string& ns,
                                    const kube::ListOptions& opts,
                                    const std::function<bool(const kube::WatchEvent&)>& on_event,
                                    const std::atomic<bool>* cancel) {
  std::unique_lock lock(m_mutex);
  record("watch", ref, ns, "");
  if (auto e = injected("watch", ref.resource)) return *e;
  long from = opts.resource_version.empty() ? 0 : std::stol(opts.resource_version);
  const auto until = std::chrono::steady_clock::now() +
                     std::chrono::seconds{opts.timeout_seconds > 0 ? opts.timeout_seconds : 60};
  std::size_t next = 0;
  while (true) {
    std::vector<kube::WatchEvent> batch;
    for (; next < m_changes.size(); ++next) {
      const auto& c = m_changes[next];
      if (c.rv <= from || c.resource != ref.resource) continue;
      if (!ns.empty() && c.object["metadata"].value("namespace", "") != ns) continue;
      if (!matches_selector(c.object, opts.label_selector)) continue;
      batch.push_back({c.type, c.object});
    }
    lock.unlock();
    for (const auto& ev : batch) {
      if (!on_event(ev)) return {};
    }
    lock.lock();
    if ((cancel != nullptr && cancel->load()) || std::chrono::steady_clock::now() >= until) return {};
    if (auto e = injected("watch-stream")) return *e;  // a stream cut in the middle
    m_changed.wait_for(lock, std::chrono::milliseconds{20});
  }
}

void FakeApiClient::log_change(const std::string& resource, kube::WatchEvent::Type type,
                               const nlohmann::json& obj) {
  m_changes.push_back({m_version, resource, type, obj});
  m_changed.notify_all();
}

Expected<nlohmann::json> FakeApiClient::create(const kube::ResourceRef& ref, const std::string& ns,
                                               const nlohmann::json& obj, const kube::WriteOptions&) {
  std::lock_guard lock(m_mutex);
  const auto name = name_of(obj);
  record("create", ref, ns, name);
  if (auto e = injected("create", ref.resource)) return *e;
  Key key{ref.resource, ns, name};
  if (m_objects.count(key) != 0) {
    return api_error(409, "AlreadyExists", ref.resource + " \"" + name + "\" already exists");
  }
  auto stored = obj;
  stored["metadata"]["namespace"] = ns;
  stored.erase("status");
  stamp(stored);
  m_objects[key] = stored;
  log_change(ref.resource, kube::WatchEvent::Type::added, stored);
  return stored;
}

Expected<nlohmann::json> FakeApiClient::update(const kube::ResourceRef& ref, const std::string& ns,
                                               const nlohmann::json& obj, const kube::WriteOptions&) {
  std::lock_guard lock(m_mutex);
  const auto name = name_of(obj);
  record("update", ref, ns, name);
  if (auto e = injected("update", ref.resource)) return *e;
  const auto it = m_objects.find({ref.resource, ns, name});
  if (it == m_objects.end()) return api_error(404, "NotFound", ref.resource + " \"" + name + "\" not found");
  if (obj["metadata"].value("resourceVersion", "") != it->second["metadata"].value("resourceVersion", "")) {
    return api_error(409, "Conflict", "the object has been modified");
  }
  auto stored = obj;
  if (it->second.contains("status"))
    stored["status"] = it->second["status"];
  else
    stored.erase("status");
  stamp(stored);
  it->second = stored;
  log_change(ref.resource, kube::WatchEvent::Type::modified, stored);
  return stored;
}

Expected<nlohmann::json> FakeApiClient::update_status(const kube::ResourceRef& ref, const std::string& ns,
                                                      const nlohmann::json& obj) {
  std::lock_guard lock(m_mutex);
  const auto name = name_of(obj);
  record("update_status", ref, ns, name);
  if (auto e = injected("update_status", ref.resource)) return *e;
  const auto it = m_objects.find({ref.resource, ns, name});
  if (it == m_objects.end()) return api_error(404, "NotFound", ref.resource + " \"" + name + "\" not found");
  if (obj["metadata"].value("resourceVersion", "") != it->second["metadata"].value("resourceVersion", "")) {
    return api_error(409, "Conflict", "the object has been modified");
  }
  it->second["status"] = obj.value("status", nlohmann::json::object());
  stamp(it->second);
  log_change(ref.resource, kube::WatchEvent::Type::modified, it->second);
  return it->second;
}

Expected<nlohmann::json> FakeApiClient::patch(const kube::ResourceRef& ref, const std::string& ns,
                                              const std::string& name, kube::PatchType type,
                                              const std::string& body, const kube::WriteOptions& opts) {
  std::lock_guard lock(m_mutex);
  record("patch", ref, ns, name);
  m_calls.back().subresource = opts.subresource;
  m_calls.back().body = body;
  if (type == kube::PatchType::apply) {
    m_calls.back().field_manager = opts.field_manager;
    m_calls.back().force = opts.force;
  }
  if (auto e = injected("patch", ref.resource)) return *e;
  if (type == kube::PatchType::json)
    return api_error(415, "UnsupportedMediaType", "the fake does merge and apply patches only");
  auto patch_body = nlohmann::json::parse(body);
  const auto it = m_objects.find({ref.resource, ns, name});
  if (opts.subresource == "status") {
    // The status subresource never creates; an apply there replaces the fields it names.
    if (it == m_objects.end())
      return api_error(404, "NotFound", ref.resource + " \"" + name + "\" not found");
    const nlohmann::json status = patch_body.value("status", nlohmann::json::object());
    for (const auto& [key, value] : status.items()) it->second["status"][key] = value;
    stamp(it->second);
    log_change(ref.resource, kube::WatchEvent::Type::modified, it->second);
    return it->second;
  }
  patch_body.erase("status");
  if (it == m_objects.end() && type == kube::PatchType::apply) {
    patch_body["metadata"]["namespace"] = ns;
    patch_body["metadata"]["name"] = name;
    stamp(patch_body);
    m_objects[{ref.resource, ns, name}] = patch_body;
    log_change(ref.resource, kube::WatchEvent::Type::added, patch_body);
    return patch_body;
  }
  if (it == m_objects.end()) return api_error(404, "NotFound", ref.resource + " \"" + name + "\" not found");
  it->second.merge_patch(patch_body);
  stamp(it->second);
  log_change(ref.resource, kube::WatchEvent::Type::modified, it->second);
  return it->second;
}

Expected<void> FakeApiClient::remove(const kube::ResourceRef& ref, const std::string& ns,
                                     const std::string& name, const kube::DeleteOptions&) {
  std::lock_guard lock(m_mutex);
  record("delete", ref, ns, name);
  if (auto e = injected("delete", ref.resource)) return *e;
  const auto it = m_objects.find({ref.resource, ns, name});
  if (it == m_objects.end()) return api_error(404, "NotFound", ref.resource + " \"" + name + "\" not found");
  if (m_graceful && ref.resource == "pods") {
    it->second["metadata"]["deletionTimestamp"] = "2026-11-29T12:00:00Z";
    stamp(it->second);
    log_change(ref.resource, kube::WatchEvent::Type::modified, it->second);
  } else {
    ++m_version;
    log_change(ref.resource, kube::WatchEvent::Type::deleted, it->second);
    m_objects.erase(it);
  }
  return {};
}

Expected<std::string> FakeApiClient::get_raw(const std::string& path) {
  RawHandler handler;
  {
    std::lock_guard lock(m_mutex);
    m_calls.push_back({"get_raw", path, "", ""});
    if (const auto it = m_raw_paths.find(path); it != m_raw_paths.end()) return it->second;
    handler = m_log_raw;
  }
  if (!handler) return api_error(404, "NotFound", "the fake serves no raw paths");
  std::string text;
  auto served = handler(
      path,
      [&text](std::string_view chunk) {
        text.append(chunk);
        return true;
      },
      nullptr);
  if (!served) return served.error();
  return text;
}

Expected<void> FakeApiClient::stream_raw(const std::string& path,
                                         const std::function<bool(std::string_view)>& on_data,
                                         const std::atomic<bool>* cancel) {
  RawHandler handler;
  {
    std::lock_guard lock(m_mutex);
    m_calls.push_back({"stream_raw", path, "", ""});
    handler = m_log_raw;
  }
  if (!handler) return api_error(404, "NotFound", "the fake serves no raw paths");
  return handler(path, on_data, cancel);
}

void FakeApiClient::serve_raw(RawHandler handler) {
  std::lock_guard lock(m_mutex);
  m_log_raw = std::move(handler);
}

Expected<nlohmann::json> FakeApiClient::post_raw(const std::string& path, const nlohmann::json& body) {
  std::function<Expected<nlohmann::json>(const std::string&, const nlohmann::json&)> raw;
  {
    std::lock_guard lock(m_mutex);
    m_calls.push_back({"post_raw", path, "", ""});
    m_calls.back().body = body.dump();
    raw = m_raw;
  }
  if (raw) return raw(path, body);
  return api_error(404, "NotFound", "the fake serves no raw paths");
}

void FakeApiClient::set_raw_handler(
    std::function<Expected<nlohmann::json>(const std::string& path, const nlohmann::json& body)> h) {
  std::lock_guard lock(m_mutex);
  m_raw = std::move(h);
}

nlohmann::json FakeApiClient::put(const kube::ResourceRef& ref, const nlohmann::json& obj) {
  std::lock_guard lock(m_mutex);
  auto stored = obj;
  stamp(stored);
  m_objects[{ref.resource, stored["metadata"].value("namespace", std::string{}), name_of(stored)}] = stored;
  log_change(ref.resource, kube::WatchEvent::Type::added, stored);
  return stored;
}

nlohmann::json FakeApiClient::object(const std::string& resource, const std::string& ns,
                                     const std::string& name) const {
  std::lock_guard lock(m_mutex);
  const auto it = m_objects.find({resource, ns, name});
  return it == m_objects.end() ? nlohmann::json() : it->second;
}

std::vector<std::string> FakeApiClient::names(const std::string& resource, const std::string& ns) const {
  std::lock_guard lock(m_mutex);
  std::vector<std::string> out;
  for (const auto& [key, _] : m_objects) {
    if (std::get<0>(key) == resource && std::get<1>(key) == ns) out.push_back(std::get<2>(key));
  }
  return out;
}

void FakeApiClient::merge(const std::string& resource, const std::string& ns, const std::string& name,
                          const nlohmann::json& patch) {
  std::lock_guard lock(m_mutex);
  auto& obj = m_objects.at({resource, ns, name});
  obj.merge_patch(patch);
  stamp(obj);
  log_change(resource, kube::WatchEvent::Type::modified, obj);
}

void FakeApiClient::fail_next(const std::string& verb, int http_status, const std::string& reason, int count,
                              const std::string& message) {
  std::lock_guard lock(m_mutex);
  for (int i = 0; i < count; ++i)
    m_faults[verb].push_back(
        api_error(http_status, reason, message.empty() ? "injected " + reason : message));
}

void FakeApiClient::forbid(const std::string& verb, const std::string& resource) {
  std::lock_guard lock(m_mutex);
  m_forbidden.insert({verb, resource});
}

void FakeApiClient::allow(const std::string& verb, const std::string& resource) {
  std::lock_guard lock(m_mutex);
  m_forbidden.erase({verb, resource});
}

void FakeApiClient::set_raw(const std::string& path, const std::string& body) {
  std::lock_guard lock(m_mutex);
  m_raw_paths[path] = body;
}

void FakeApiClient::set_graceful_delete(bool graceful) {
  std::lock_guard lock(m_mutex);
  m_graceful = graceful;
}

void FakeApiClient::purge(const std::string& resource, const std::string& ns, const std::string& name) {
  std::lock_guard lock(m_mutex);
  const auto it = m_objects.find({resource, ns, name});
  if (it == m_objects.end()) return;
  ++m_version;
  log_change(resource, kube::WatchEvent::Type::deleted, it->second);
  m_objects.erase(it);
}

std::vector<RecordedCall> FakeApiClient::calls() const {
  std::lock_guard lock(m_mutex);
  return m_calls;
}

void FakeApiClient::clear_calls() {
  std::lock_guard lock(m_mutex);
  m_calls.clear();
}

int FakeApiClient::count(const std::string& verb, const std::string& resource) const {
  std::lock_guard lock(m_mutex);
  return static_cast<int>(std::count_if(m_calls.begin(), m_calls.end(), [&](const RecordedCall& c) {
    return c.verb == verb && (resource.empty() || c.resource == resource);
  }));
}

}  // namespace kpt::testing
