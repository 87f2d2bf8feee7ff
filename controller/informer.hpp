#pragma once

#include "kube/api_client.hpp"

#include <atomic>
#include <chrono>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace kpt::controller {

class Logger;

/// List + watch of one resource, delivering every object it sees to `on_object` (added,
/// modified or deleted alike: handlers only enqueue keys, the reconciler reads fresh state).
/// Re-lists on 410 Gone, re-watches from the last resourceVersion when a watch ends, backs off
/// on errors, and re-lists every `resync` to catch anything missed.
class Informer {
 public:
  using Handler = std::function<void(kube::WatchEvent::Type, const nlohmann::json&)>;
  /// Receives a (re-)list page by page (`first`, `last`: where the page is), so a store can drop
  /// what is gone once the last page is in; when set, `on_object` sees only watch events.
  using ListHandler = std::function<void(const std::vector<nlohmann::json>& page, bool first, bool last)>;

  Informer(kube::ApiClient& client, kube::ResourceRef ref, std::string ns, std::string label_selector,
           Handler on_object, Logger& log, std::chrono::seconds resync = std::chrono::minutes{5});

  void set_list_handler(ListHandler on_list) { m_on_list = std::move(on_list); }
  /// Lists in pages of `limit` objects (0: one request), bounding the memory a list takes.
  void set_page_size(std::int64_t limit) { m_page_size = limit; }

  /// Runs until `stop` is set.
  void run(const std::atomic<bool>& stop);
  /// True once the first list was delivered.
  [[nodiscard]] bool synced() const { return m_synced.load(); }
  /// Lists performed so far (the first one plus re-lists), for tests and metrics.
  [[nodiscard]] int lists() const { return m_lists.load(); }
  /// Why the last list failed (a 403 says the RBAC forbids the resource); nothing once one succeeded.
  [[nodiscard]] std::optional<Error> list_error() const;
  [[nodiscard]] const kube::ResourceRef& resource() const { return m_ref; }

 private:
  bool list_once(std::string& resource_version);

  kube::ApiClient& m_client;
  kube::ResourceRef m_ref;
  std::string m_ns;
  std::string m_selector;
  Handler m_on_object;
  ListHandler m_on_list;
  std::int64_t m_page_size = 0;
  Logger& m_log;
  std::chrono::seconds m_resync;
  std::atomic<bool> m_synced{false};
  std::atomic<int> m_lists{0};
  mutable std::mutex m_error_mutex;
  std::optional<Error> m_list_error;
};

}  // namespace kpt::controller
