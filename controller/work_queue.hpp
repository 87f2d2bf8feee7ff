#pragma once

#include "util/clock.hpp"

#include <chrono>
#include <condition_variable>
#include <deque>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <string>

namespace kpt::controller {

/// Per-key exponential backoff: 5 ms * 2^failures, capped at 1000 s (client-go's default).
std::chrono::milliseconds item_backoff(int failures);

/// A token bucket shared by all keys (10 per second, burst 100), so that a storm of failing
/// keys cannot hammer the API server. Returns the delay the next retry must wait.
class TokenBucket {
 public:
  TokenBucket(double per_second, int burst) : m_rate(per_second), m_burst(burst), m_tokens(burst) {}
  std::chrono::milliseconds reserve(std::chrono::steady_clock::time_point now);

 private:
  double m_rate;
  double m_burst;
  double m_tokens;
  std::optional<std::chrono::steady_clock::time_point> m_last;
};

/// The controller's work queue (client-go semantics): a key is queued at most once, is never
/// handed to two workers at once (a key added while processing is queued again on done()),
/// can be added after a delay, and retried with per-key exponential backoff plus a global bucket.
class WorkQueue {
 public:
  explicit WorkQueue(const util::Clock& clock) : m_clock(clock) {}

  void add(const std::string& key);
  void add_after(const std::string& key, std::chrono::milliseconds delay);
  /// add_after with the key's backoff (and the global bucket); counts a failure for the key.
  void add_rate_limited(const std::string& key);
  /// Clears the key's failure count (after a successful pass).
  void forget(const std::string& key);
  [[nodiscard]] int num_requeues(const std::string& key) const;

  /// Blocks until a key is ready or the queue shuts down (nullopt).
  std::optional<std::string> get();
  /// Non-blocking get: a ready key or nullopt.
  std::optional<std::string> try_get();
  /// Marks the key as processed; re-queues it when it was added meanwhile.
  void done(const std::string& key);

  void shut_down();
  /// Keys ready now (not counting delayed or in-flight ones).
  [[nodiscard]] std::size_t depth() const;

 private:
  void add_locked(const std::string& key);
  void promote_due_locked();
  std::optional<std::string> pop_locked();

  const util::Clock& m_clock;
  mutable std::mutex m_mutex;
  std::condition_variable m_cv;
  std::deque<std::string> m_queue;
  std::set<std::string> m_dirty;
  std::set<std::string> m_processing;
  std::multimap<std::chrono::steady_clock::time_point, std::string> m_delayed;
  std::map<std::string, int> m_failures;
  TokenBucket m_bucket{10.0, 100};
  bool m_shutdown = false;
};

}  // namespace kpt::controller
