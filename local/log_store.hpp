#pragma once

#include "util/expected.hpp"

#include <cstdint>
#include <optional>
#include <string>

namespace kpt::local {

/// Where container logs live: <root>/<ns>_<pod>_<uid>/<container>/<restart>.log, one file per
/// run so that `previous` is the run before the current one.
class LogStore {
 public:
  explicit LogStore(std::string root) : m_root(std::move(root)) {}

  [[nodiscard]] std::string path(const std::string& ns, const std::string& pod, const std::string& uid,
                                 const std::string& container, int run) const;
  /// Creates the folder of a run's log.
  Expected<void> prepare(const std::string& ns, const std::string& pod, const std::string& uid,
                         const std::string& container, int run) const;

  struct ReadOptions {
    std::optional<std::int64_t> tail_lines;
    std::optional<std::int64_t> limit_bytes;
  };
  /// The text of a log file, cut to the last `tail_lines` lines and to `limit_bytes`.
  static Expected<std::string> read(const std::string& file, const ReadOptions& opts);
  /// The last `n` lines of `text`.
  static std::string tail(const std::string& text, std::int64_t n);

 private:
  std::string m_root;
};

}  // namespace kpt::local
