#pragma once

#include <nlohmann/json_fwd.hpp>

#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace kpt::plugin {

/// What makes two failed runs of a rank the same failure: the class of failure, the exit code
/// and the exception line (not the other lines: a step counter differs from run to run).
std::string failure_signature(const std::vector<std::string>& lines, int exit_code);

/// A PyTorchJob's runPolicy.backoffLimit and the restarts counted against it so far, as the
/// controller counts them: a crash loop under a limit ends by itself.
struct BackoffBudget {
  int limit = 0;
  int in_place = 0;     ///< restarts of the pods' containers
  int recreations = 0;  ///< pods re-created after a failure
  /// Restarts until the job fails: 0 when it fails at once (or has failed).
  [[nodiscard]] int left() const;
};

/// The budget of a PyTorchJob that sets a backoffLimit, from the job and its pods; nothing for a
/// TrainJob (its Jobs' and JobSet's limits live in the runtime) or a job without a limit.
std::optional<BackoffBudget> backoff_budget(const nlohmann::json& job,
                                            const std::vector<nlohmann::json>& pods);

/// When the budget ends the job, as the end of a next step: "the job fails at its next restart
/// (runPolicy.backoffLimit 3)".
std::string backoff_end(const BackoffBudget& budget);

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
