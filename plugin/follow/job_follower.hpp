#pragma once

#include "kube/api_client.hpp"
#include "plugin/follow/job_view.hpp"
#include "util/clock.hpp"

#include <atomic>
#include <chrono>
#include <functional>
#include <iosfwd>
#include <optional>
#include <string>
#include <string_view>

namespace kpt::plugin {

/// How the follower waits between two looks at the job: the real one watches the job and its
/// pods (WatchWaiter) and returns when either changes; tests move a FakeClock and change the fake
/// cluster instead.
class FollowWaiter {
 public:
  virtual ~FollowWaiter() = default;
  /// Returns when something may have changed, at the latest after `how_long` (or longer for a
  /// waiter that is told of every change).
  virtual void wait(std::chrono::milliseconds how_long) = 0;
  /// Something changed that no watch sees (a log stream ended): the current wait returns.
  virtual void notify() {}
};

struct JobKind;

/// What the follower hands out for others to show (`run`'s progress line), each optional: rank 0's
/// log lines as they arrive (on the log's own thread), text appended to the live status line on each
/// look, and a line after the summary.
struct FollowHooks {
  std::function<void(std::string_view line)> rank0_line;
  std::function<std::string(const nlohmann::json& job, const JobView& view)> status_suffix;
  std::function<std::string(const nlohmann::json& job, const JobView& view)> final_line;
};

struct FollowOptions {
  const JobKind* kind = nullptr;  ///< default: PyTorchJob
  std::string ns;
  std::string job;
  std::optional<std::chrono::milliseconds> timeout;                    ///< --timeout: give up (124)
  std::chrono::milliseconds pending_timeout{std::chrono::minutes(5)};  ///< a replica never starting
  std::chrono::milliseconds poll{400};                       ///< between looks while the watches are not up
  std::chrono::milliseconds drain{std::chrono::seconds(5)};  ///< log tail wait after the job ends
  bool logs = true;
  std::string replica;       ///< only this replica's logs ("worker-1"); empty: all
  long long tail = -1;       ///< lines of each log written before the follow began; -1: all
  bool live_status = false;  ///< redraw one status line on a terminal; plain lines otherwise
  bool colour = false;
  bool progress = true;                ///< status lines, events and the summary on `err`
  const util::Clock* clock = nullptr;  ///< default: the real clock
  FollowWaiter* waiter = nullptr;      ///< default: a WatchWaiter on the job and its pods
  FollowHooks hooks;
};

enum class FollowEnd { succeeded, failed, timeout, interrupted, stuck, gone };

struct FollowResult {
  FollowEnd end = FollowEnd::gone;
  int exit_code = 1;
  JobView last;
  std::string message;  ///< why it ended, for stuck/gone
};

/// Follows a PyTorchJob or TrainJob to its end: logs of every replica as they start (prefixed
/// with role and rank, following restarts), status changes, Warning events and stuck states,
/// until the job finishes, `interrupted` becomes true, the timeout passes or the job cannot
/// progress. Logs go to `out`; progress to `err`.
FollowResult follow_job(kube::ApiClient& api, const FollowOptions& options, std::ostream& out,
                        std::ostream& err, const std::atomic<bool>& interrupted);

/// "[worker-1 r1] " ("[node-0 r0] ", "[dataset-initializer-0] " for a pod that has no rank),
/// coloured with a stable colour per pod when `colour`.
std::string log_prefix(const ReplicaView& replica, bool colour);

}  // namespace kpt::plugin
