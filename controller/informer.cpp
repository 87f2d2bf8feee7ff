#include "controller/informer.hpp"

#include "controller/logger.hpp"
#include "controller/work_queue.hpp"
#include "util/stop_token.hpp"

#include <nlohmann/json.hpp>

namespace kpt::controller {

Informer::Informer(kube::ApiClient& client, kube::ResourceRef ref, std::string ns, std::string label_selector,
                   Handler on_object, Logger& log, std::chrono::seconds resync)
    : m_client(client),
      m_ref(std::move(ref)),
      m_ns(std::move(ns)),
      m_selector(std::move(label_selector)),
      m_on_object(std::move(on_object)),
      m_log(log),
      m_resync(resync) {}

std::optional<Error> Informer::list_error() const {
  std::lock_guard lock(m_error_mutex);
  return m_list_error;
}

bool Informer::list_once(std::string& resource_version) {
  kube::ListOptions opts;
  opts.label_selector = m_selector;
  opts.limit = m_page_size;
  std::string list_rv;
  bool first = true;
  do {
    auto listed = m_client.list(m_ref, m_ns, opts);
    if (!listed) {
      m_log.error("list failed", {{"resource", m_ref.resource}, {"error", listed.error().message}});
      std::lock_guard lock(m_error_mutex);
      m_list_error = listed.error();
      return false;
    }
    // The first page's version is the snapshot's: watching from it replays anything later.
    if (first) list_rv = listed->resource_version;
    opts.continue_token = m_page_size > 0 ? listed->continue_token : std::string{};
    if (m_on_list) {
      m_on_list(listed->items, first, opts.continue_token.empty());
    } else {
      for (const auto& obj : listed->items) m_on_object(kube::WatchEvent::Type::added, obj);
    }
    first = false;
  } while (!opts.continue_token.empty());
  ++m_lists;
  {
    std::lock_guard lock(m_error_mutex);
    m_list_error.reset();
  }
  resource_version = list_rv;
  m_synced = true;
  return true;
}

void Informer::run(const std::atomic<bool>& stop) {
  int failures = 0;
  std::string rv;
  bool need_list = true;
  auto last_list = std::chrono::steady_clock::now();
  while (!stop.load()) {
    if (need_list || std::chrono::steady_clock::now() - last_list >= m_resync) {
      if (!list_once(rv)) {
        util::sleep_unless_stopped(stop,
                                   std::min(item_backoff(++failures), std::chrono::milliseconds{30000}));
        continue;
      }
      need_list = false;
      last_list = std::chrono::steady_clock::now();
    }
    kube::ListOptions opts;
    opts.label_selector = m_selector;
    opts.resource_version = rv;
    opts.allow_bookmarks = true;
    const auto left = std::chrono::duration_cast<std::chrono::seconds>(
        m_resync - (std::chrono::steady_clock::now() - last_list));
    opts.timeout_seconds = std::max<long>(1, left.count());
    auto watched = m_client.watch(
        m_ref, m_ns, opts,
        [&](const kube::WatchEvent& ev) {
          if (ev.type == kube::WatchEvent::Type::error) return false;
          const auto& meta = ev.object.value("metadata", nlohmann::json::object());
          if (meta.contains("resourceVersion")) rv = meta["resourceVersion"].get<std::string>();
          if (ev.type != kube::WatchEvent::Type::bookmark) m_on_object(ev.type, ev.object);
          return !stop.load();
        },
        &stop);
    if (watched) {
      failures = 0;
      continue;  // the server ended the watch: re-watch from rv
    }
    if (kube::is_gone(watched.error())) {
      m_log.info("watch expired, re-listing", {{"resource", m_ref.resource}});
      need_list = true;
      continue;
    }
    m_log.error("watch failed", {{"resource", m_ref.resource}, {"error", watched.error().message}});
    need_list = true;  // we may have missed events: re-list after the backoff
    util::sleep_unless_stopped(stop, std::min(item_backoff(++failures), std::chrono::milliseconds{30000}));
  }
}

}  // namespace kpt::controller
