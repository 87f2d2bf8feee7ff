#pragma once

#include <atomic>
#include <chrono>

namespace kpt::util {

/// Time, injected so that tests control it (deadlines, TTLs, expectations, backoff, leases).
class Clock {
 public:
  virtual ~Clock() = default;
  /// Wall-clock time, for what is written to the API (conditions, startTime, leases).
  [[nodiscard]] virtual std::chrono::system_clock::time_point now() const = 0;
  /// Monotonic time, for intervals measured in this process.
  [[nodiscard]] virtual std::chrono::steady_clock::time_point steady_now() const = 0;
};

class RealClock final : public Clock {
 public:
  [[nodiscard]] std::chrono::system_clock::time_point now() const override {
    return std::chrono::system_clock::now();
  }
  [[nodiscard]] std::chrono::steady_clock::time_point steady_now() const override {
    return std::chrono::steady_clock::now();
  }
};

/// A clock that moves only when told to. One thread may move it while others read it (a
/// follower's log threads stamp lines with the clock its test moves).
class FakeClock final : public Clock {
 public:
  explicit FakeClock(std::chrono::system_clock::time_point start) : m_wall(start) {}
  [[nodiscard]] std::chrono::system_clock::time_point now() const override { return m_wall.load(); }
  [[nodiscard]] std::chrono::steady_clock::time_point steady_now() const override { return m_steady.load(); }
  void advance(std::chrono::milliseconds d) {
    m_wall.store(m_wall.load() + d);
    m_steady.store(m_steady.load() + d);
  }

 private:
  std::atomic<std::chrono::system_clock::time_point> m_wall;
  std::atomic<std::chrono::steady_clock::time_point> m_steady{std::chrono::steady_clock::time_point{}};
};

}  // namespace kpt::util
