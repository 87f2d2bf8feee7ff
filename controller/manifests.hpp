#pragma once

#include <string>

namespace kpt::controller {

struct ManifestOptions {
  std::string namespace_ = "kubectl-pytorch";
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

/// pytorchjob_crd() as YAML.
std::string crd_manifest();

/// Everything to run the controller in a cluster, as multi-document YAML: the CRD(s), a
/// Namespace, a ServiceAccount, least-privilege RBAC (no wildcard verbs or resources) and a
/// Deployment with liveness/readiness probes and leader election.
std::string controller_manifests(const ManifestOptions& options);

}  // namespace kpt::controller
