#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <string>

#include "kube/api_client.hpp"

namespace kpt::controller {

class Logger;

/// List + watch of one resource, delivering every object it sees to `on_object` (added,
/// modified or deleted alike: handlers only enqueue keys, the reconciler reads fresh state).
/// Re-lists on 410 Gone, re-watches from the last resourceVersion when a watch ends, backs off
/// on errors, and re-lists every `resync` to catch anything missed.
class Informer {
 public:
  using Handler = std::function<void(kube::WatchEvent::Type, const nlohmann::json&)>;

  Informer(kube::ApiClient& client, kube::ResourceRef ref, std::string ns, std::string label_selector,
           Handler on_object, Logger& log, std::chrono::seconds resync = std::chrono::minutes{5});

  /// Runs until `stop` is set.
  void run(const std::atomic<bool>& stop);
  /// True once the first list was delivered.
  [[nodiscard]] bool synced() const { return m_synced.load(); }
  /// Lists performed so far (the first one plus re-lists), for tests and metrics.
  [[nodiscard]] int lists() const { return m_lists.load(); }

 private:
  bool list_once(std::string& resource_version);

  kube::ApiClient& m_client;
  kube::ResourceRef m_ref;
  std::string m_ns;
  std::string m_selector;
  Handler m_on_object;
  Logger& m_log;
  std::chrono::seconds m_resync;
  std::atomic<bool> m_synced{false};
  std::atomic<int> m_lists{0};
};

}  // namespace kpt::controller
