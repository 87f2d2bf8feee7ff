#include "plugin/follow/watch_waiter.hpp"

namespace kpt::plugin {

namespace {

// A burst (a pod's status written several times as it starts) becomes one look.
constexpr std::chrono::milliseconds k_coalesce{20};
// How often a wait looks at Ctrl-C: the follower answers it within this.
constexpr std::chrono::milliseconds k_slice{100};
// A broken watch is re-opened after this; meanwhile the waits poll.
constexpr std::chrono::milliseconds k_reopen{500};

}  // namespace

WatchWaiter::WatchWaiter(kube::ApiClient& api, std::string ns, std::vector<Target> targets,
                         const std::atomic<bool>* interrupted, std::chrono::milliseconds backstop)
    : m_interrupted(interrupted), m_backstop(backstop), m_targets(targets.size()) {
  for (auto& target : targets) {
    m_threads.emplace_back([this, &api, ns, target = std::move(target)] { watch_loop(api, ns, target); });
  }
}

WatchWaiter::~WatchWaiter() {
  {
    std::lock_guard lock(m_mutex);  // a watch loop between its check and its wait still hears it
    m_cancel.store(true);
  }
  m_cv.notify_all();
  for (auto& t : m_threads) t.join();
}

void WatchWaiter::set_up(bool up) {
  std::lock_guard lock(m_mutex);
  m_up = up ? m_up + 1 : m_up - 1;
}

void WatchWaiter::notify() {
  {
    std::lock_guard lock(m_mutex);
    m_changed = true;
  }
  m_cv.notify_all();
}

void WatchWaiter::watch_loop(kube::ApiClient& api, const std::string& ns, const Target& target) {
  while (!m_cancel.load()) {
    set_up(true);
    auto ended = api.watch(
        target.resource, ns, target.options,
        [this](const kube::WatchEvent& event) {
          if (event.type != kube::WatchEvent::Type::bookmark) {
            ++m_wakeups;
            notify();
          }
          return !m_cancel.load();
        },
        &m_cancel);
    set_up(false);
    // A stream the server ended (its timeout) may have hidden a change: look again now. A refused
    // or broken one is re-opened after a pause, the waits polling meanwhile.
    if (ended) notify();
    std::unique_lock lock(m_mutex);
    m_cv.wait_for(lock, k_reopen, [this] { return m_cancel.load(); });
  }
}

void WatchWaiter::wait(std::chrono::milliseconds how_long) {
  std::unique_lock lock(m_mutex);
  const auto limit = m_up == m_targets ? std::max(how_long, m_backstop) : how_long;
  const auto until = std::chrono::steady_clock::now() + limit;
  while (!m_changed && !m_cancel.load() && !(m_interrupted != nullptr && m_interrupted->load())) {
    const auto now = std::chrono::steady_clock::now();
    if (now >= until) break;
    m_cv.wait_for(lock, std::min<std::chrono::steady_clock::duration>(until - now, k_slice));
  }
  const bool changed = m_changed;
  m_changed = false;
  lock.unlock();
  if (changed) std::this_thread::sleep_for(k_coalesce);
}

std::vector<WatchWaiter::Target> follow_targets(const kube::ResourceRef& job_resource,
                                                const std::string& name, const std::string& pod_label) {
  WatchWaiter::Target job{job_resource, {}};
  job.options.field_selector = "metadata.name=" + name;
  WatchWaiter::Target pods{kube::resources::pods(), {}};
  pods.options.label_selector = pod_label + "=" + name;
  return {job, pods};
}

}  // namespace kpt::plugin
