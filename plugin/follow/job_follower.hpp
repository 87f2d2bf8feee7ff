#pragma once

#include "kube/api_client.hpp"
#include "plugin/exit_codes.hpp"
#include "plugin/follow/diagnosis.hpp"
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
  std::string replica;                     ///< only this replica's logs ("worker-1"); empty: all
  std::optional<int> rank;                 ///< only this rank's logs
  long long tail = -1;                     ///< lines of each log written before the follow began; -1: all
  std::optional<long long> since_seconds;  ///< only output written since then (the first look's logs)
  bool timestamps = false;                 ///< the server's timestamp before each line
  std::function<bool(std::string_view)> filter;  ///< which log lines to print (--include/--exclude)
  /// A running rank that printed nothing for this long is named (a warning), or with
  /// `stall_ends` ends the follow (exit 1; the job keeps running).
  std::chrono::milliseconds stall_timeout{std::chrono::minutes(5)};
  bool stall_ends = false;
  /// A rank whose runs fail this many times in a row the same way (class, exit code, exception
  /// line) ends the follow: the job would restart forever. 0: never.
  int crash_loop_repeats = 3;
  StepContext step;          ///< how the diagnosis's next steps name the job
  bool live_status = false;  ///< redraw one status line on a terminal; plain lines otherwise
  bool colour = false;
  bool progress = true;                ///< status lines, events and the summary on `err`
  const util::Clock* clock = nullptr;  ///< default: the real clock
  FollowWaiter* waiter = nullptr;      ///< default: a WatchWaiter on the job and its pods
  FollowHooks hooks;
};

enum class FollowEnd { succeeded, failed, timeout, interrupted, stuck, gone, crash_loop, stalled };

struct FollowResult {
  FollowEnd end = FollowEnd::gone;
  int exit_code = exit_code::failed;
  JobView last;
  std::string message;  ///< why it ended, for stuck, gone, crash_loop and stalled
  /// Why it failed, is stuck, loops or stalled (from what the follow saw: the pods' statuses and
  /// the lines each run printed); printed already for a failed job.
  std::optional<Diagnosis> diagnosis;
};

/// Follows a PyTorchJob or TrainJob to its end: logs of every replica as they start (prefixed
/// with role and rank, following restarts with a `--- worker-1 attempt 2 ---` line), status
/// changes, Warning events and stuck states, until the job finishes, `interrupted` becomes true,
/// the timeout passes, the job cannot progress, a rank fails the same way again and again, or
/// (with stall_ends) a rank stays silent. A log stream that ends while its run goes on is
/// reopened where it stopped: no line is lost or printed twice. Logs go to `out`; progress and,
/// for a failed job, the diagnosis to `err`.
FollowResult follow_job(kube::ApiClient& api, const FollowOptions& options, std::ostream& out,
                        std::ostream& err, const std::atomic<bool>& interrupted);

/// "[worker-1 r1] " ("[node-0 r0] ", "[dataset-initializer-0] " for a pod that has no rank),
/// coloured with a stable colour per pod when `colour`.
std::string log_prefix(const ReplicaView& replica, bool colour);

/// "--- worker-1 attempt 2 ---": printed before the log of a run after a restart.
std::string attempt_separator(const ReplicaView& replica);

/// Whether `logs` and `run` show this replica's log: --replica and --rank select.
bool selected(const ReplicaView& replica, const std::string& replica_filter, std::optional<int> rank);

}  // namespace kpt::plugin
