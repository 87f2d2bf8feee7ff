#pragma once

// When each line of a container's log was written. A process writes its log file directly, so the
// node learns it by watching the file grow: each tick, a running container's log size and the time.
// A line's time is that of the first look that saw the file reach the line's end (at the tick's
// resolution, 100 ms): what `pods/log?timestamps=true` prefixes each line with, as a kubelet does.

#include <chrono>
#include <cstddef>
#include <deque>
#include <map>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>

namespace kpt::local {

class LogClock {
 public:
  using Time = std::chrono::system_clock::time_point;

  /// The log at `file` is `size` bytes long at `now` (a look that saw no growth is not kept).
  void sample(const std::string& file, std::size_t size, Time now);
  /// When the byte before `end_offset` was written: the first look that saw the file that long;
  /// the oldest look kept for older bytes; `fallback` for bytes no look has seen yet.
  [[nodiscard]] Time time_of(const std::string& file, std::size_t end_offset, Time fallback) const;
  void forget(const std::string& file);

  /// `text` (the bytes of `file` from `start_offset`) with each line prefixed by its time in RFC
  /// 3339 with nanoseconds and a space; a last line without its newline too.
  [[nodiscard]] std::string stamp(const std::string& file, std::size_t start_offset, std::string_view text,
                                  Time fallback) const;

 private:
  static constexpr std::size_t k_max_samples = 4096;  ///< per file: the oldest go first
  mutable std::mutex m_mutex;
  std::map<std::string, std::deque<std::pair<std::size_t, Time>>> m_samples;
};

/// "2026-12-06T03:37:18.123456789Z".
std::string rfc3339_nano(LogClock::Time t);

}  // namespace kpt::local
