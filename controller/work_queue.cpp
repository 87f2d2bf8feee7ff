#include "controller/work_queue.hpp"

#include <algorithm>
#include <cmath>

namespace kpt::controller {

std::chrono::milliseconds item_backoff(int failures) {
  constexpr double k_base_ms = 5;
  constexpr double k_max_ms = 1000.0 * 1000.0;
  const double ms = k_base_ms * std::pow(2.0, std::min(failures, 40));
  return std::chrono::milliseconds{static_cast<long>(std::min(ms, k_max_ms))};
}

std::chrono::milliseconds TokenBucket::reserve(std::chrono::steady_clock::time_point now) {
  if (m_last) {
    const std::chrono::duration<double> elapsed = now - *m_last;
    m_tokens = std::min(m_burst, m_tokens + elapsed.count() * m_rate);
  }
  m_last = now;
  m_tokens -= 1;
  if (m_tokens >= 0) return std::chrono::milliseconds{0};
  return std::chrono::milliseconds{static_cast<long>(std::ceil(-m_tokens / m_rate * 1000.0))};
}

void WorkQueue::add(const std::string& key) {
  std::lock_guard lock(m_mutex);
  add_locked(key);
}

void WorkQueue::add_locked(const std::string& key) {
  if (m_shutdown || m_dirty.count(key) != 0) return;
  m_dirty.insert(key);
  if (m_processing.count(key) != 0) return;  // queued again by done()
  m_queue.push_back(key);
  m_cv.notify_one();
}

void WorkQueue::add_after(const std::string& key, std::chrono::milliseconds delay) {
  std::lock_guard lock(m_mutex);
  if (m_shutdown) return;
  if (delay <= std::chrono::milliseconds{0}) {
    add_locked(key);
    return;
  }
  m_delayed.emplace(m_clock.steady_now() + delay, key);
  m_cv.notify_all();
}

void WorkQueue::add_rate_limited(const std::string& key) {
  std::chrono::milliseconds delay{};
  {
    std::lock_guard lock(m_mutex);
    const int failures = m_failures[key]++;
    delay = std::max(item_backoff(failures), m_bucket.reserve(m_clock.steady_now()));
  }
  add_after(key, delay);
}

void WorkQueue::forget(const std::string& key) {
  std::lock_guard lock(m_mutex);
  m_failures.erase(key);
}

int WorkQueue::num_requeues(const std::string& key) const {
  std::lock_guard lock(m_mutex);
  const auto it = m_failures.find(key);
  return it == m_failures.end() ? 0 : it->second;
}

void WorkQueue::promote_due_locked() {
  const auto now = m_clock.steady_now();
  while (!m_delayed.empty() && m_delayed.begin()->first <= now) {
    const auto key = m_delayed.begin()->second;
    m_delayed.erase(m_delayed.begin());
    add_locked(key);
  }
}

std::optional<std::string> WorkQueue::pop_locked() {
  if (m_queue.empty()) return std::nullopt;
  auto key = m_queue.front();
  m_queue.pop_front();
  m_dirty.erase(key);
  m_processing.insert(key);
  return key;
}

std::optional<std::string> WorkQueue::get() {
  std::unique_lock lock(m_mutex);
  while (true) {
    if (m_shutdown) return std::nullopt;
    promote_due_locked();
    if (auto key = pop_locked()) return key;
    // Wake at the next delayed item, and at least every 50 ms so an injected clock is seen.
    auto wait = std::chrono::milliseconds{50};
    if (!m_delayed.empty()) {
      const auto until = std::chrono::duration_cast<std::chrono::milliseconds>(m_delayed.begin()->first -
                                                                               m_clock.steady_now());
      wait = std::clamp(until, std::chrono::milliseconds{1}, wait);
    }
    m_cv.wait_for(lock, wait);
  }
}

std::optional<std::string> WorkQueue::try_get() {
  std::lock_guard lock(m_mutex);
  if (m_shutdown) return std::nullopt;
  promote_due_locked();
  return pop_locked();
}

void WorkQueue::done(const std::string& key) {
  std::lock_guard lock(m_mutex);
  m_processing.erase(key);
  if (m_dirty.count(key) != 0) {
    m_queue.push_back(key);
    m_cv.notify_one();
  }
}

void WorkQueue::shut_down() {
  std::lock_guard lock(m_mutex);
  m_shutdown = true;
  m_cv.notify_all();
}

std::size_t WorkQueue::depth() const {
  std::lock_guard lock(m_mutex);
  return m_queue.size();
}

}  // namespace kpt::controller
