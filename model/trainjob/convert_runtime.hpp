#pragma once

// The two places a converted PyTorchJob's pod template and policies can go: the TrainJob's
// override of torch-distributed, or a TrainingRuntime of its own built on the release's
// torch-distributed. Pure builders behind convert_pytorchjob.

#include "model/trainjob/convert_policy.hpp"  // override_field
#include "model/trainjob/release.hpp"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>

namespace kpt::model::trainjob {

/// What the node pods and their Job and JobSet get beyond spec.trainer.
struct NodeCarry {
  nlohmann::json pod_metadata = nlohmann::json::object();    ///< labels, annotations of the pods
  nlohmann::json pod_spec = nlohmann::json::object();        ///< pod spec fields, containers aside
  nlohmann::json node_container = nlohmann::json::object();  ///< fields of container `node`
  nlohmann::json sidecars = nlohmann::json::array();         ///< containers beside `node`
  nlohmann::json job_spec = nlohmann::json::object();        ///< the node Job's spec fields
  nlohmann::json jobset_spec = nlohmann::json::object();     ///< JobSetSpec fields
  bool image_entrypoint = false;  ///< container `node` has no command: the image's entrypoint runs

  /// Whether none of it is set.
  [[nodiscard]] bool empty() const;
};

/// The value of override_field(release) that gives the `node` job's pods what `carry` holds
/// (its pod metadata, pod spec and container `node` fields; the caller keeps the rest out), as
/// one entry for that job (a runtimePatches entry under manager
/// `kubectl-pytorch.kubeflow.org/convert`); null when there is nothing to override.
nlohmann::json node_override(const NodeCarry& carry, TrainerRelease release);

/// The TrainingRuntime `name` (in `ns`, when not empty) that starts from the release's carried
/// torch-distributed (its labels without the webhook-validation opt-out, so Trainer's webhooks
/// check it) and adds `carry` to the `node` job: pod metadata and spec, container `node`'s fields
/// (no command when `image_entrypoint`), the sidecars after it, the Job and JobSet fields; its
/// mlPolicy says `nodes` and, before v2.2 (mlPolicy.torch.numProcPerNode), `nproc` when set.
nlohmann::json training_runtime(const std::string& name, const std::string& ns, const NodeCarry& carry,
                                std::int64_t nodes, std::optional<std::int64_t> nproc,
                                TrainerRelease release);

}  // namespace kpt::model::trainjob
