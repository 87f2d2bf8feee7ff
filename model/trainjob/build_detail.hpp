#pragma once

// The stages of the JobSet build shared by build_*.cpp; not part of the public API.

#include "model/trainjob/build.hpp"
#include "util/expected.hpp"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace kpt::model::trainjob::detail {

/// One replicated job as the runtime framework sees it (runtime.PodSet).
struct PodSet {
  std::string name;
  std::optional<std::string> ancestor;  ///< trainer.kubeflow.org/trainjob-ancestor-step, when labelled
  std::int64_t count = 1;               ///< pods per Job: parallelism, or numNodes for the trainer
};

/// runtime.Info: what newRuntimeInfo derives from the TrainJob and its runtime.
struct RuntimeInfo {
  nlohmann::json labels = nlohmann::json::object();       ///< for the JobSet's metadata
  nlohmann::json annotations = nlohmann::json::object();  ///< for the JobSet's metadata
  nlohmann::json spec;                                    ///< the JobSetSpec after overrides
  nlohmann::json ml_policy;                               ///< the runtime's mlPolicy (null when unset)
  std::vector<PodSet> pod_sets;                           ///< one per spec.replicatedJobs entry
};

/// newRuntimeInfo: JobSet labels and annotations, the release's overrides merged into the runtime
/// template, the pod sets, and (v2.3) resourcesPerNode merged into the trainer's `node` container.
RuntimeInfo new_runtime_info(const nlohmann::json& trainjob, const nlohmann::json& runtime,
                             TrainerRelease release);

/// The first pod set with the ancestor label `trainer`, or nullptr.
PodSet* trainer_pod_set(RuntimeInfo& info);

/// Container `name` of the replicated job at `index`, in containers then (when `init_too`)
/// initContainers, or nullptr.
nlohmann::json* container_in(RuntimeInfo& info, std::size_t index, const std::string& name, bool init_too);

/// ExtractResourcePerNodeFromRuntime: the resources of container `node` in the first replicated job
/// named `node` or labelled trainer that has them, or nullptr.
const nlohmann::json* runtime_node_resources(const RuntimeInfo& info);

/// What the framework plugins decided, for BuildResult.
struct PluginOutcome {
  Framework framework = Framework::plain;
  std::optional<NprocDecision> nproc;
  std::vector<std::string> notes;
  nlohmann::json trainer_command;  ///< torchtune's extended command, else null
};

/// EnforceMLPolicy: the framework plugin (torch, JAX, XGBoost, PlainML) applied to `info`.
/// Errors for frameworks the model does not reproduce and for missing envInjection targets.
Expected<PluginOutcome> enforce_ml_policy(RuntimeInfo& info, const nlohmann::json& trainjob,
                                          TrainerRelease release);

/// The JobSet plugin's Build: pod counts, initializer and trainer values, suspend, owner. Consumes
/// `info`: its spec becomes the JobSet's, moved rather than copied (a deep copy per TrainJob was a
/// tenth of validating one).
nlohmann::json assemble_jobset(RuntimeInfo&& info, const nlohmann::json& trainjob,
                               const PluginOutcome& outcome, TrainerRelease release);

}  // namespace kpt::model::trainjob::detail
