#pragma once

#include "kube/api_client.hpp"

#include <condition_variable>
#include <deque>
#include <functional>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <tuple>
#include <vector>

namespace kpt::testing {

/// One call the fake was asked to make.
struct RecordedCall {
  std::string verb;      ///< get, list, watch, create, update, update_status, patch, delete
  std::string resource;  ///< plural: pods, services, pytorchjobs, events, leases
  std::string ns;
  std::string name;
  std::string field_manager = {};  ///< apply patches: WriteOptions::field_manager
  bool force = false;              ///< apply patches: WriteOptions::force
  std::string subresource = {};    ///< patches: WriteOptions::subresource
  std::string body = {};           ///< patches and post_raw: what was sent
};

/// An in-memory ApiClient that stores objects, assigns uid/resourceVersion, enforces
/// AlreadyExists/NotFound/Conflict, matches equality label selectors, records every call and
/// can fail the next calls of a verb with a given HTTP status (fault injection). Patches are merge
/// patches; an apply patch is one too, and creates a missing object (as the embedded API server's
/// server-side apply: a whole-object merge without managed fields).
/// Thread-safe. Watches replay the change log after the given resourceVersion and then
/// wait for new changes until cancelled or timed out.
class FakeApiClient final : public kube::ApiClient {
 public:
  Expected<nlohmann::json> get(const kube::ResourceRef& ref, const std::string& ns,
                               const std::string& name) override;
  Expected<kube::ListResult> list(const kube::ResourceRef& ref, const std::string& ns,
                                  const kube::ListOptions& opts) override;
  Expected<void> watch(const kube::ResourceRef& ref, const std::string& ns, const kube::ListOptions& opts,
                       const std::function<bool(const kube::WatchEvent&)>& on_event,
                       const std::atomic<bool>* cancel) override;
  Expected<nlohmann::json> create(const kube::ResourceRef& ref, const std::string& ns,
                                  const nlohmann::json& obj, const kube::WriteOptions& opts = {}) override;
  Expected<nlohmann::json> update(const kube::ResourceRef& ref, const std::string& ns,
                                  const nlohmann::json& obj, const kube::WriteOptions& opts = {}) override;
  Expected<nlohmann::json> update_status(const kube::ResourceRef& ref, const std::string& ns,
                                         const nlohmann::json& obj) override;
  Expected<nlohmann::json> patch(const kube::ResourceRef& ref, const std::string& ns, const std::string& name,
                                 kube::PatchType type, const std::string& body,
                                 const kube::WriteOptions& opts = {}) override;
  Expected<void> remove(const kube::ResourceRef& ref, const std::string& ns, const std::string& name,
                        const kube::DeleteOptions& opts = {}) override;
  Expected<std::string> get_raw(const std::string& path_and_query) override;
  Expected<void> stream_raw(const std::string& path_and_query,
                            const std::function<bool(std::string_view)>& on_data,
                            const std::atomic<bool>* cancel) override;
  Expected<nlohmann::json> post_raw(const std::string& path, const nlohmann::json& body) override;
  std::vector<std::string> take_warnings() override { return {}; }

  /// What post_raw answers (TokenReviews, TokenRequests); default: 404 for every path.
  void set_raw_handler(
      std::function<Expected<nlohmann::json>(const std::string& path, const nlohmann::json& body)> h);

  // --- test helpers -------------------------------------------------------------------
  /// Stores an object as is (no call recorded); assigns uid and resourceVersion when missing.
  nlohmann::json put(const kube::ResourceRef& ref, const nlohmann::json& obj);
  /// The stored object or null.
  nlohmann::json object(const std::string& resource, const std::string& ns, const std::string& name) const;
  /// Names of stored objects of a resource in a namespace, sorted.
  std::vector<std::string> names(const std::string& resource, const std::string& ns) const;
  /// Sets fields of a stored object by merge patch (plays the kubelet: status.phase, exit codes).
  void merge(const std::string& resource, const std::string& ns, const std::string& name,
             const nlohmann::json& patch);
  /// The next `count` calls of `verb` fail with this HTTP status and reason (and `message`).
  void fail_next(const std::string& verb, int http_status, const std::string& reason, int count = 1,
                 const std::string& message = {});
  /// Serves get_raw and stream_raw (pod logs) with `handler` instead of a 404: it gets the path
  /// and query, and for a stream the data callback and the cancel flag (for get_raw, a callback
  /// that collects the text). Called without the fake's lock held.
  using RawHandler = std::function<Expected<void>(const std::string& path,
                                                  const std::function<bool(std::string_view)>& on_data,
                                                  const std::atomic<bool>* cancel)>;
  void serve_raw(RawHandler handler);
  /// Every `verb` on `resource` fails with 403 Forbidden until allow() (the RBAC says no).
  void forbid(const std::string& verb, const std::string& resource);
  void allow(const std::string& verb, const std::string& resource);
  /// get_raw(path) answers `body` (a discovery document, /version) instead of 404.
  void set_raw(const std::string& path, const std::string& body);
  /// When true, delete marks objects with a deletionTimestamp instead of removing them.
  void set_graceful_delete(bool graceful);
  /// Actually removes an object (finishes a graceful delete).
  void purge(const std::string& resource, const std::string& ns, const std::string& name);

  std::vector<RecordedCall> calls() const;
  void clear_calls();
  /// Number of recorded calls with this verb (and resource, when not empty).
  int count(const std::string& verb, const std::string& resource = {}) const;

 private:
  using Key = std::tuple<std::string, std::string, std::string>;  // resource, ns, name
  void record(const std::string& verb, const kube::ResourceRef& ref, const std::string& ns,
              const std::string& name);
  std::optional<Error> injected(const std::string& verb, const std::string& resource = {});
  void stamp(nlohmann::json& obj);
  void log_change(const std::string& resource, kube::WatchEvent::Type type, const nlohmann::json& obj);

  struct Change {
    long rv;
    std::string resource;
    kube::WatchEvent::Type type;
    nlohmann::json object;
  };
  std::vector<Change> m_changes;
  std::condition_variable m_changed;

  mutable std::mutex m_mutex;
  std::map<Key, nlohmann::json> m_objects;
  std::vector<RecordedCall> m_calls;
  std::map<std::string, std::deque<Error>> m_faults;
  RawHandler m_log_raw;
  std::set<std::pair<std::string, std::string>> m_forbidden;  ///< {verb, resource}
  std::map<std::string, std::string> m_raw_paths;             ///< what get_raw answers (set_raw)
  long m_version = 1;
  bool m_graceful = false;
  std::function<Expected<nlohmann::json>(const std::string&, const nlohmann::json&)> m_raw;
};

/// An API error as the real client returns it.
Error api_error(int http_status, const std::string& reason, const std::string& message);

}  // namespace kpt::testing
