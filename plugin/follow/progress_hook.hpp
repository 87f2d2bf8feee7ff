#pragma once

#include "plugin/follow/job_follower.hpp"
#include "plugin/follow/progress.hpp"

#include <memory>
#include <mutex>

namespace kpt::plugin {

/// `run`'s progress: rank 0's lines into a tracker as they come, what the trainer reported read
/// from the job on each look, shown at the end of the live status line (on a terminal) and after
/// the summary when the job ends.
class RunProgress {
 public:
  explicit RunProgress(std::shared_ptr<const ProgressPattern> pattern = nullptr)
      : m_tracker(std::move(pattern)) {}
  RunProgress(const RunProgress&) = delete;
  RunProgress& operator=(const RunProgress&) = delete;

  /// The follower's hooks; `live`: also the status line's suffix.
  FollowHooks hooks(bool live);
  /// The progress now: the trainer's report, else rank 0's lines.
  std::optional<ProgressView> now(const nlohmann::json& job);

 private:
  std::mutex m_mutex;  // lines come on the log's thread, looks on the follower's
  ProgressTracker m_tracker;
};

}  // namespace kpt::plugin
