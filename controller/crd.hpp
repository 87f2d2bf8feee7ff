#pragma once

#include <nlohmann/json_fwd.hpp>

namespace kpt::controller {

/// The PyTorchJob CustomResourceDefinition our controller installs, on a cluster (`controller
/// manifests`, deploy/) and on the local cluster alike: kubeflow.org/v1 with the carried
/// v1.9.4 schema (the pod template included), the status and scale subresources and the real
/// operator's printer columns (State, Age).
nlohmann::json pytorchjob_crd();

}  // namespace kpt::controller
