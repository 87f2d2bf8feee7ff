#pragma once

#include "util/expected.hpp"

#include <nlohmann/json.hpp>

#include <iosfwd>
#include <string>
#include <vector>

namespace kpt::plugin {

struct Context;

/// What `run` reads its job from: FILE, or --image and the command.
struct JobSource {
  std::vector<std::string> args;  ///< FILE, or with an image the command
  std::string image;
  int workers = 1;
  bool workers_set = false;  ///< --workers was given
  int nodes = 0;             ///< --nodes: build a TrainJob of this many nodes
  std::string runtime;       ///< --runtime: its ClusterTrainingRuntime (default torch-distributed)
  std::string nproc_per_node;
  std::string name;
  std::string operator_release;  ///< validate for this release (default v1.9.4)
  bool local = false;            ///< validate for the embedded cluster (worker-only env, no images)
  bool force = false;            ///< run even when validation finds errors
};

struct PreparedJob {
  nlohmann::json job;
  std::string folder;                    ///< the manifest's folder (absolute), for --local
  bool local_cluster = false;            ///< the kubeconfig's cluster is the local one (not --local)
  std::vector<nlohmann::json> runtimes;  ///< TrainingRuntimes and ClusterTrainingRuntimes of the file
};

/// The job (a PyTorchJob or a TrainJob) from --image or from FILE. A FILE is validated first and its findings
/// printed on ctx.err; findings of error severity fail with ErrorCode::invalid unless `force`.
Expected<PreparedJob> prepare_job(const Context& ctx, const JobSource& source);

}  // namespace kpt::plugin
