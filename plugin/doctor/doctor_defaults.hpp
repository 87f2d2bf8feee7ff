#pragma once

#include "kube/api_client.hpp"
#include "plugin/doctor/doctor_gather.hpp"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace kpt::plugin {

struct Context;

/// What validate and env learn from the cluster before they start.
struct ClusterDefaults {
  std::unique_ptr<kube::ApiClient> api;  ///< null when no cluster is configured or it is unreachable
  std::string server;
  std::optional<ReleaseDetection> detection;  ///< set when the cluster answered
  std::string unreachable;                    ///< why the configured cluster could not be reached, else ""
};

/// Connects only when the kubeconfig (flags, $KUBECONFIG, ~/.kube/config, in-cluster) resolves, so no
/// kubeconfig means no network attempt, then detects the release as doctor does. Prints nothing.
ClusterDefaults consult_cluster(const Context& ctx);

/// The release a command defaults to, saying once on stderr where it came from:
/// "using operator release v1.7.0 detected in the cluster". v1.9.4 when nothing was detected.
model::pytorchjob::Release default_release(const ClusterDefaults& cluster, const Context& ctx);

/// Whether the cluster's PyTorchJob controller is kubectl-pytorch's in the worker-only style (the local
/// cluster's, or `controller` deployed): it gives worker-only jobs MASTER_ADDR, RANK and WORLD_SIZE.
bool ours_worker_only(const ClusterDefaults& cluster);

/// Whether the cluster is kubectl-pytorch's local one: its pods run as processes on this machine.
bool is_local_cluster(const ClusterDefaults& cluster);

/// The lints that do not apply to the cluster's controller when no --operator names another target:
/// the worker-only lint where ours gives those jobs their env. validate and run both use it, so one
/// target gets one verdict.
std::vector<std::string> lints_moot_for(const ClusterDefaults& cluster);

/// The Kubeflow Trainer release a command defaults to: the one doctor detects (its Deployment's
/// version, else the TrainJob CRD's fingerprint), said once on stderr ("using Trainer release v2.2.1
/// detected in the cluster"); the newest when nothing was detected.
model::trainjob::TrainerRelease default_trainer_release(const ClusterDefaults& cluster, const Context& ctx);

}  // namespace kpt::plugin
