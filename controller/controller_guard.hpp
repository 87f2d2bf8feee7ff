#pragma once

#include "kube/api_client.hpp"
#include "model/k8s/label_selector.hpp"

#include <nlohmann/json_fwd.hpp>

#include <string>
#include <vector>

namespace kpt::controller {

/// What this controller reconciles and under which lease: what the guard compares with the other
/// controllers it finds.
struct GuardScope {
  std::string ns;  ///< "" : every namespace
  bool pytorchjobs = true;
  bool trainjobs = true;
  model::k8s::LabelSelector selector;
  bool leader_elect = true;
  std::string lease_namespace = "default";
  std::string lease_name = "kubectl-pytorch-controller";
  bool embedded = false;  ///< this is the local cluster's own controller
};

/// Why each kind may not be reconciled now: empty when no other controller runs its jobs.
struct GuardVerdict {
  std::string pytorchjobs;
  std::string trainjobs;
  /// The guard could not read what it needs for a reason that may pass (a 5xx, a cut connection),
  /// as opposed to a refusal (401, 403): worth a second look before failing closed.
  bool transient = false;
  friend bool operator==(const GuardVerdict&, const GuardVerdict&) = default;
};

/// What the guard read: the Deployments of the Training Operator, of Trainer's controller and of
/// our own controller (any namespace), and whether the API server is the local cluster's with its
/// own controller.
struct GuardInput {
  std::vector<nlohmann::json> operator_deployments;
  std::vector<nlohmann::json> trainer_deployments;
  std::vector<nlohmann::json> our_deployments;
  bool local_cluster_controller = false;
};

/// The pure rules (docs/controller.md, "Ownership"): a running Training Operator (replicas not 0)
/// that watches our namespace blocks PyTorchJobs, Trainer's controller blocks TrainJobs, and another
/// instance of ours (a Deployment, or the local cluster's own) blocks the kinds we share unless it
/// takes the same lease (then leader election decides) or their namespaces, kinds or job selectors
/// are disjoint. Each message names the fix.
GuardVerdict judge_controllers(const GuardScope& scope, const GuardInput& in);

/// Fails closed: the verdict for both kinds when the guard cannot read the Deployments.
GuardVerdict cannot_tell(const GuardScope& scope, const Error& error);

/// Reads the guard's input through `client` (five label or name lists of Deployments and /version)
/// and judges it; a failed read blocks every kind (cannot_tell).
GuardVerdict check_other_controllers(kube::ApiClient& client, const GuardScope& scope);

}  // namespace kpt::controller
