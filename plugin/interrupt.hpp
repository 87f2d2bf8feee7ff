#pragma once

#include <atomic>

namespace kpt::plugin {

/// While alive, SIGINT and SIGTERM set `flag()` instead of killing the process, so a command
/// can detach cleanly; a second signal exits at once with 130. Restores the old handlers.
class InterruptGuard {
 public:
  InterruptGuard();
  ~InterruptGuard();
  InterruptGuard(const InterruptGuard&) = delete;
  InterruptGuard& operator=(const InterruptGuard&) = delete;

  [[nodiscard]] const std::atomic<bool>& flag() const;
};

}  // namespace kpt::plugin
