#pragma once

#include "kube/api_client.hpp"
#include "plugin/follow/rank_silence.hpp"

#include <nlohmann/json_fwd.hpp>

#include <memory>
#include <optional>
#include <string>

namespace kpt::plugin {

/// When a container's current run last wrote to its log: what a rank's silence is measured from.
class LastOutputProbe {
 public:
  virtual ~LastOutputProbe() = default;
  /// Nothing when unknown or when the run has written nothing yet.
  virtual std::optional<WallTime> last_output(const nlohmann::json& pod, const std::string& container) = 0;
};

/// On a cluster: the kubelet's timestamp of the log's last line (pods/log?tailLines=1&timestamps=true).
std::unique_ptr<LastOutputProbe> api_last_output(kube::ApiClient& api);

/// On the local cluster, whose node writes each run's log to a file under `pod_log_dir` and keeps
/// no per-line times: the file's last write, which is its last line's.
std::unique_ptr<LastOutputProbe> local_last_output(std::string pod_log_dir);

/// When the container's current run started (its `state.running.startedAt`), if it runs.
std::optional<WallTime> run_started(const nlohmann::json& pod, const std::string& container);

}  // namespace kpt::plugin
