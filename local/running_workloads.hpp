#pragma once

#include <nlohmann/json_fwd.hpp>

#include <string>
#include <vector>

namespace kpt::local {

/// What runs on the local node, for `local down` to name before it stops it.
struct RunningWorkloads {
  std::vector<std::string> lines;  ///< "pytorchjob default/mnist (2 pods)", sorted
  int longest_grace_seconds = 0;   ///< how long the node may wait for them to stop
};

/// The pods the node runs (Running, or Pending once the node took them), by the job they
/// belong to (a PyTorchJob's or TrainJob's labels, else the controlling owner), else alone.
RunningWorkloads running_workloads(const std::vector<nlohmann::json>& pods);

}  // namespace kpt::local
