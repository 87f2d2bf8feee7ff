#pragma once

#include "kube/api_client.hpp"
#include "plugin/job_view.hpp"
#include "util/clock.hpp"

#include <atomic>
#include <chrono>
#include <iosfwd>
#include <optional>
#include <string>

namespace kpt::plugin {

/// How the follower waits between two looks at the job: the real one sleeps; tests move a
/// FakeClock and change the fake cluster instead.
class FollowWaiter {
 public:
  virtual ~FollowWaiter() = default;
  virtual void wait(std::chrono::milliseconds how_long) = 0;
};

struct FollowOptions {
  std::string ns;
  std::string job;
  std::optional<std::chrono::milliseconds> timeout;                    ///< --timeout: give up (124)
  std::chrono::milliseconds pending_timeout{std::chrono::minutes(5)};  ///< a replica never starting
  std::chrono::milliseconds poll{400};
  std::chrono::milliseconds drain{std::chrono::seconds(5)};  ///< log tail wait after the job ends
  bool logs = true;
  std::string replica;       ///< only this replica's logs ("worker-1"); empty: all
  bool live_status = false;  ///< redraw one status line on a terminal; plain lines otherwise
  bool colour = false;
  bool progress = true;                ///< status lines, events and the summary on `err`
  const util::Clock* clock = nullptr;  ///< default: the real clock
  FollowWaiter* waiter = nullptr;      ///< default: sleep
};

enum class FollowEnd { succeeded, failed, timeout, interrupted, stuck, gone };

struct FollowResult {
  FollowEnd end = FollowEnd::gone;
  int exit_code = 1;
  JobView last;
  std::string message;  ///< why it ended, for stuck/gone
};

/// Follows a PyTorchJob to its end: logs of every replica as they start (prefixed with role
/// and rank, following restarts), status changes, Warning events and stuck states, until the
/// job finishes, `interrupted` becomes true, the timeout passes or the job cannot progress.
/// Logs go to `out`; progress to `err`.
FollowResult follow_job(kube::ApiClient& api, const FollowOptions& options, std::ostream& out,
                        std::ostream& err, const std::atomic<bool>& interrupted);

/// "[worker-1 r1] ", coloured with a stable colour per pod when `colour`.
std::string log_prefix(const ReplicaView& replica, bool colour);

}  // namespace kpt::plugin
