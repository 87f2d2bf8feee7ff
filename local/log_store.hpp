#pragma once

#include "apiserver/log_provider.hpp"
#include "util/expected.hpp"

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace kpt::local {

/// Where container logs live: <root>/<ns>_<pod>_<uid>/<container>/<restart>.log, one file per
/// run so that `previous` is the run before the current one.
class LogStore {
 public:
  explicit LogStore(std::string root) : m_root(std::move(root)) {}

  [[nodiscard]] std::string path(const std::string& ns, const std::string& pod, const std::string& uid,
                                 const std::string& container, int run) const;
  /// Creates the folder of a run's log, private to the user (0700), as the logs may hold secrets.
  Expected<void> prepare(const std::string& ns, const std::string& pod, const std::string& uid,
                         const std::string& container, int run) const;

  /// Which part of a log file to serve, and how long.
  struct StreamOptions {
    std::optional<std::int64_t> tail_lines;
    std::optional<std::int64_t> limit_bytes;  ///< the stream ends after this many bytes, followed or not
    /// Only what was written since then. Lines carry no times, so this goes by the file's last
    /// write: a file untouched since then serves nothing of what it holds, any other all of it.
    std::optional<std::chrono::system_clock::time_point> since;
    bool follow = false;
    /// For a followed log: whether more may still be written (the run goes on). Once false and
    /// every byte is sent, the stream ends.
    std::function<bool()> still_written;
    /// For `timestamps=true`: the lines that start at this offset of the file, each prefixed with
    /// when it was written (LogClock). Set, the stream serves whole lines.
    std::function<std::string(std::uint64_t offset, std::string_view lines)> stamp;
  };
  /// A log file served from where its options say, in chunks of at most 64 KiB, so that no
  /// request holds more of a log in memory, whatever its size: the last lines are found reading
  /// backwards from the end. A file not written yet is an empty log.
  static std::unique_ptr<apiserver::LogStream> open(const std::string& file, StreamOptions options);

  /// Where the last `lines` lines of the first `end` bytes of the file `fd` start (a final newline
  /// ends the last line), reading backwards in 64 KiB blocks: 0 when there are no more lines
  /// than that, `end` when `lines` is 0.
  static Expected<std::uint64_t> tail_start(int fd, std::uint64_t end, std::int64_t lines);

 private:
  std::string m_root;
};

}  // namespace kpt::local
