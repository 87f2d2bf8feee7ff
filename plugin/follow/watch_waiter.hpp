#pragma once

#include "kube/api_client.hpp"
#include "plugin/follow/job_follower.hpp"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace kpt::plugin {

/// The follower's waiter on a real server: a watch on the job and one on its pods wake it as soon
/// as either changes, so a pod that starts or ends is seen at once rather than at the next poll.
/// While every watch is up, a wait with no change lasts `backstop` (the follower then still looks
/// for events and deadlines); while one is down (a server that refuses watches, a stream that
/// broke and is being re-opened) a wait is a plain sleep of the follower's poll interval.
class WatchWaiter final : public FollowWaiter {
 public:
  struct Target {
    kube::ResourceRef resource;
    kube::ListOptions options;
  };

  WatchWaiter(kube::ApiClient& api, std::string ns, std::vector<Target> targets,
              const std::atomic<bool>* interrupted,
              std::chrono::milliseconds backstop = std::chrono::milliseconds(1000));
  ~WatchWaiter() override;  ///< cancels the watches and joins them
  WatchWaiter(const WatchWaiter&) = delete;
  WatchWaiter& operator=(const WatchWaiter&) = delete;

  void wait(std::chrono::milliseconds how_long) override;
  void notify() override;

  /// Changes the watches reported so far (for tests and figures).
  [[nodiscard]] long long wakeups() const { return m_wakeups.load(); }

 private:
  void watch_loop(kube::ApiClient& api, const std::string& ns, const Target& target);
  void set_up(bool up);

  const std::atomic<bool>* m_interrupted;
  const std::chrono::milliseconds m_backstop;
  std::size_t m_targets;
  std::mutex m_mutex;
  std::condition_variable m_cv;
  bool m_changed = false;
  std::size_t m_up = 0;
  std::atomic<bool> m_cancel{false};
  std::atomic<long long> m_wakeups{0};
  std::vector<std::thread> m_threads;  // last: they start once the members above exist
};

/// The targets of a job's follow: the job itself (by name) and its pods (by `pod_label`=NAME).
std::vector<WatchWaiter::Target> follow_targets(const kube::ResourceRef& job_resource,
                                                const std::string& name, const std::string& pod_label);

}  // namespace kpt::plugin
