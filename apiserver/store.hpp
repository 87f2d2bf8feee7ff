#pragma once

#include "apiserver/status.hpp"
#include "apiserver/storage.hpp"
#include "util/clock.hpp"

#include <nlohmann/json.hpp>

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace kpt::apiserver {

/// One change, as a watch delivers it.
struct StoreEvent {
  std::uint64_t rv = 0;
  std::string type;      ///< ADDED, MODIFIED, DELETED
  std::string resource;  ///< storage key "group/plural"
  std::string ns;
  nlohmann::json object;    ///< the object after the change (before, for DELETED, with the delete's rv)
  nlohmann::json previous;  ///< MODIFIED: the object before the change (selector transitions); else null
};

struct StoreOptions {
  std::size_t history_window = 10000;  ///< events kept for watch resumption; older ones are compacted
  /// How long an object of a resource ("group/plural") lives after its last write, as
  /// kube-apiserver gives Events `--event-ttl`; resources not listed live until deleted.
  std::map<std::string, std::chrono::seconds> ttl;
  /// Where now comes from for those TTLs (tests inject a FakeClock); nullptr: the system clock.
  std::shared_ptr<const util::Clock> clock;
};

/// The objects of every resource with one resourceVersion counter, and a bounded history of
/// changes for watches, held in memory and written through to a Storage (in memory by default,
/// SQLite for the local cluster) before a write is acknowledged. Thread-safe; objects are copied
/// in and out. It knows nothing of API semantics (status subresources, validation): see ResourceOps.
class Store {
 public:
  explicit Store(StoreOptions options = {});

  /// Replaces the storage with `storage` and loads its objects and watch history (what a
  /// restarted server serves from). Call before serving.
  Expected<void> open(std::unique_ptr<Storage> storage);

  /// Reads-modifies-writes one object under the store lock. `fn` gets the current object
  /// (nullopt when absent) and returns the object to store, or an error. The store assigns
  /// metadata.resourceVersion; `dry_run` computes the result without storing it.
  using Mutator = std::function<Expected<nlohmann::json>(const std::optional<nlohmann::json>& current)>;
  Expected<nlohmann::json> mutate(const std::string& resource, const std::string& ns, const std::string& name,
                                  const Mutator& fn, bool dry_run = false);
  /// Removes an object; returns it (with the deletion's resourceVersion), or an error: 404
  /// when absent, 500 when the storage fails.
  Expected<nlohmann::json> erase(const std::string& resource, const std::string& ns, const std::string& name,
                                 bool dry_run = false);

  [[nodiscard]] std::optional<nlohmann::json> get(const std::string& resource, const std::string& ns,
                                                  const std::string& name) const;
  /// Objects of `resource` in `ns` (empty: all namespaces), ordered by namespace/name, starting after
  /// `after`. `rv_out`, when given, receives the resourceVersion the list is consistent with.
  [[nodiscard]] std::vector<nlohmann::json> list(const std::string& resource, const std::string& ns,
                                                 const std::string& after = {},
                                                 std::uint64_t* rv_out = nullptr) const;
  [[nodiscard]] std::uint64_t current_rv() const;

  /// Objects (any resource) whose ownerReferences name `uid`: {resource, ns, name}.
  struct Ref {
    std::string resource, ns, name;
  };
  [[nodiscard]] std::vector<Ref> dependents_of(const std::string& uid) const;
  /// The object whose metadata.uid is `uid`, and where it is stored, as the garbage collector
  /// resolves owner references.
  struct Located {
    Ref ref;
    nlohmann::json object;
  };
  [[nodiscard]] std::optional<Located> find_uid(const std::string& uid) const;
  /// Every object of `resource` (for namespace and CRD deletion).
  [[nodiscard]] std::vector<Ref> refs_of(const std::string& resource, const std::string& ns) const;

  /// Events of `resource` in `ns` (empty: all) with rv > `after`, at most `max`; 410 when
  /// `after` is older than the retained history.
  Expected<std::vector<StoreEvent>> events_after(const std::string& resource, const std::string& ns,
                                                 std::uint64_t after, std::size_t max = 1000) const;
  /// Blocks until an event newer than `after` exists, `deadline` passes, or shutdown(). True on news.
  bool wait_for_change(std::uint64_t after, std::chrono::steady_clock::time_point deadline) const;
  /// Drops all history: every watch from an older resourceVersion now gets 410 Gone.
  void compact();
  /// Deletes every object whose TTL has run out (StoreOptions::ttl), each a DELETED change
  /// written to the storage as any delete is; returns how many. The server calls it periodically.
  std::size_t expire();
  /// Wakes and ends every waiting watch.
  void shutdown();
  [[nodiscard]] bool is_shut_down() const;

 private:
  void record(StoreEvent event);
  /// Writes the change to the storage first; compacts the storage past the history window.
  std::optional<Error> persist(const StoreEvent& event, std::int64_t expires_at = 0);
  /// When an object of `resource` written now expires (Unix seconds), or 0 when it does not.
  [[nodiscard]] std::int64_t expiry_for(const std::string& resource) const;
  /// Keeps the expiry index in step with the object at storage key `key` (0: no expiry, or gone).
  void set_expiry(const std::string& key, std::int64_t expires_at);
  Expected<nlohmann::json> erase_locked(const std::string& resource, const std::string& ns,
                                        const std::string& name, bool dry_run);
  void replay(const Revision& revision);
  /// Keeps the uid and owner indexes in step with one object changing from `before` to `after`
  /// (null: absent), so owner lookups cost a hash probe rather than a scan of every object.
  void reindex(const std::string& resource, const nlohmann::json& before, const nlohmann::json& after);

  StoreOptions m_options;
  std::unique_ptr<Storage> m_storage;
  std::uint64_t m_storage_compacted = 0;  ///< what the storage was last compacted to
  mutable std::mutex m_mutex;
  mutable std::condition_variable m_changed;
  std::uint64_t m_rv = 1;
  std::uint64_t m_compacted_rv = 0;  ///< highest rv no longer in history
  bool m_shutdown = false;
  std::map<std::string, std::map<std::string, nlohmann::json>>
      m_objects;  ///< resource -> "ns/name" -> object
  std::deque<StoreEvent> m_history;
  std::unordered_map<std::string, Ref> m_by_uid;
  std::unordered_map<std::string, std::int64_t> m_expiry_of;      ///< storage key -> when it expires
  std::set<std::pair<std::int64_t, std::string>> m_expiry_queue;  ///< (when, storage key), soonest first
  std::unordered_map<std::string, std::set<std::pair<std::string, std::string>>>
      m_by_owner;  ///< owner uid -> {resource, "ns/name"}
};

/// A random RFC 4122 version 4 UUID.
std::string new_uid();

}  // namespace kpt::apiserver
