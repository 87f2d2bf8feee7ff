#pragma once

#include "kube/api_client.hpp"
#include "plugin/follow/job_view.hpp"
#include "plugin/follow/progress.hpp"

#include <nlohmann/json_fwd.hpp>

#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace kpt::plugin {

/// A log line `timestamps=true` prefixed with its RFC 3339 time: the time and the line after it;
/// a line without one is returned whole.
std::pair<std::optional<WallTime>, std::string_view> split_log_timestamp(std::string_view line);

/// The replica whose log tells the progress: rank 0 (the PyTorchJob's master or worker 0, the
/// TrainJob's node 0), once it has started.
const ReplicaView* rank_zero(const JobView& view);

/// A job's progress now: what its trainer reported (trainerStatus), else what rank 0's last lines
/// say (its log's last 200 lines, at most 4 MiB, read with timestamps where the server has them).
std::optional<ProgressView> job_progress(kube::ApiClient& api, const nlohmann::json& job, const JobView& view,
                                         WallTime now);

/// When the replica's container last wrote, from its log's last line (servers that give timestamps).
std::optional<WallTime> last_output(kube::ApiClient& api, const std::string& ns, const ReplicaView& replica);

}  // namespace kpt::plugin
