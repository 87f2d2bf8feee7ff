#pragma once

#include "util/expected.hpp"

#include <nlohmann/json_fwd.hpp>

#include <string>
#include <vector>

namespace kpt::plugin {

/// `run --image IMG --workers N [--nproc-per-node K] -- CMD ARGS...` as a manifest (with
/// --nodes N a TrainJob on `runtime`, N nodes in `workers`).
struct JobRequest {
  std::string name;
  std::string ns;
  std::string image;
  int workers = 1;
  std::string runtime;               ///< a TrainJob's ClusterTrainingRuntime
  std::string nproc_per_node;        ///< empty: not set
  std::vector<std::string> command;  ///< CMD ARGS...
  std::string restart_policy = "OnFailure";
  /// A Master and workers-1 Workers (workers pods in all) instead of a worker-only job: the Training
  /// Operator sets MASTER_ADDR, RANK and WORLD_SIZE only when a Master exists.
  bool with_master = false;
  /// Restarts before the job fails: OnFailure without one restarts a failing job forever.
  int backoff_limit = k_default_backoff_limit;
  static constexpr int k_default_backoff_limit = 3;
};

/// A worker-only PyTorchJob (or with_master: a Master and workers-1 Workers): one pytorch container per
/// pod with the command, the default port, cleanPodPolicy None so logs stay readable after the end
/// (Running with a Master, whose success ends the job), and `backoff_limit`.
nlohmann::json build_job(const JobRequest& request);

/// A TrainJob on the ClusterTrainingRuntime `request.runtime`: numNodes, the image and the command
/// for its trainer, numProcPerNode when given (an integer: Trainer v2.3 has no "auto" field value).
Expected<nlohmann::json> build_trainjob(const JobRequest& request);

}  // namespace kpt::plugin
