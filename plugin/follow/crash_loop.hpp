#pragma once

#include <map>
#include <string>
#include <utility>
#include <vector>

namespace kpt::plugin {

/// What makes two failed runs of a rank the same failure: the class of failure, the exit code
/// and the exception line (not the other lines: a step counter differs from run to run).
std::string failure_signature(const std::vector<std::string>& lines, int exit_code);

/// Counts, per rank, how many runs in a row failed the same way.
class CrashLoopTracker {
 public:
  /// Records a failed run of `role`; returns how many runs in a row (this one included) have
  /// failed with this signature.
  int record(const std::string& role, const std::string& signature);

 private:
  std::map<std::string, std::pair<std::string, int>> m_last;  // role -> {signature, repeats}
};

}  // namespace kpt::plugin
