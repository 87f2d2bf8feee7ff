#pragma once

#include <nlohmann/json_fwd.hpp>

#include <vector>

namespace kpt::schema {

/// The PyTorchJob CustomResourceDefinition our controller installs, on a cluster (`controller
/// manifests`, deploy/) and on the local cluster alike: kubeflow.org/v1 with the carried
/// v1.9.4 schema (the pod template included), the status and scale subresources and the real
/// operator's printer columns (State, Age). No descriptions: with_descriptions() adds them.
nlohmann::json pytorchjob_crd();

/// The Kubeflow Trainer v2 CustomResourceDefinitions (TrainJob, TrainingRuntime,
/// ClusterTrainingRuntime, trainer.kubeflow.org/v1alpha1) of the newest carried release, with
/// their CEL rules, the TrainJob's status subresource and the real CRD's printer columns (State,
/// Age): what `controller manifests --trainer`, deploy/ and the local cluster install for a cluster
/// that has no Trainer. No descriptions: with_descriptions() adds them.
std::vector<nlohmann::json> trainer_crds();

}  // namespace kpt::schema
