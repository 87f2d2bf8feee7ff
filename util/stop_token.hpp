#pragma once

#include <atomic>
#include <chrono>
#include <thread>

namespace kpt::util {

/// Sleeps up to `d`, returning early (false) once `stop` is set. Used between retries only,
/// never as synchronisation.
inline bool sleep_unless_stopped(const std::atomic<bool>& stop, std::chrono::milliseconds d) {
  const auto until = std::chrono::steady_clock::now() + d;
  while (!stop.load()) {
    const auto left = until - std::chrono::steady_clock::now();
    if (left <= std::chrono::milliseconds{0}) return true;
    std::this_thread::sleep_for(
        std::min<std::chrono::steady_clock::duration>(left, std::chrono::milliseconds{20}));
  }
  return false;
}

}  // namespace kpt::util
