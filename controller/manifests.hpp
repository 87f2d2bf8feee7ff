#pragma once

#include <string>

namespace kpt::controller {

struct ManifestOptions {
  std::string namespace_ = "kubectl-pytorch";  ///< where the controller runs
  /// `manifests -n NS`: a controller of namespace_'s jobs only, with a Role there instead of the
  /// ClusterRole (and, for the guard, only list on Deployments cluster-wide), no Namespace object.
  bool namespaced = false;
  /// No CRDs: for a cluster where another installer (the Training Operator, Trainer) owns them.
  bool skip_crds = false;
  std::string image = "ghcr.io/kubectl-pytorch/kubectl-pytorch:latest";
  /// Also the Trainer v2 CRDs and the RBAC to reconcile TrainJobs, for a cluster without Trainer.
  bool trainer = false;
  /// A controller run with --via-jobset: the flag in its Deployment, the TrainJob RBAC, and RBAC on
  /// the JobSets it applies (the PyTorchJob rules on pods and Services stay).
  bool via_jobset = false;
  /// --feature-gates TrainJobStatus=true: the flag, the status server's port and Service, and its
  /// RBAC (token reviews, the CA ConfigMaps, TrainJob status patches, the shared certificate Secret).
  bool train_job_status = false;
};

/// pytorchjob_crd() with its field descriptions, as YAML.
std::string crd_manifest();

/// Everything to run the controller in a cluster, as multi-document YAML that one
/// `kubectl apply --server-side` applies: the CRD(s), a Namespace, a ServiceAccount, least-privilege
/// RBAC (no wildcard verbs or resources), a Deployment with probes, leader election and Pod
/// Security "restricted" settings, and its PodDisruptionBudget.
std::string controller_manifests(const ManifestOptions& options);

/// Trainer's default ClusterTrainingRuntimes (`manifests --runtimes`): apart, since kubectl cannot
/// map their kind before the CRDs of `--trainer` are established.
std::string runtime_manifests();

}  // namespace kpt::controller
