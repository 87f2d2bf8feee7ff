#pragma once

#include "util/expected.hpp"

#include <map>
#include <optional>
#include <string>
#include <string_view>

namespace kpt::local {

/// The fields of /proc/<pid>/stat the node needs.
struct ProcStat {
  int pid = 0;
  int ppid = 0;
  int session = 0;
  unsigned long long start_ticks = 0;  ///< start time since boot, in clock ticks: with the pid, a
                                       ///< process's identity (a pid is reused, the pair is not)
};

/// Parses a /proc/<pid>/stat text (the command name may hold spaces and parentheses).
std::optional<ProcStat> parse_proc_stat(std::string_view text);

/// The processes the node started (pod supervisors and what runs under them), kept in a file of
/// the state directory, so that a node that starts after a crash (kill -9, OOM kill) ends what
/// an earlier one left before it starts anything: pods then run once, as after a node reboot.
class ProcessLedger {
 public:
  explicit ProcessLedger(std::string path) : m_path(std::move(path)) {}

  /// Records a running process (its start time is read now). Writes the file.
  void add(int pid);
  /// Forgets a process that ended. Writes the file.
  void remove(int pid);

  /// Ends what the file at `path` records and is still the same process (same start time), and
  /// every process of a session such a process leads that started after it, with SIGKILL; then
  /// empties the file. Returns how many processes it ended.
  static int end_leftovers(const std::string& path);

 private:
  void save() const;
  std::string m_path;
  std::map<int, unsigned long long> m_entries;
};

}  // namespace kpt::local
