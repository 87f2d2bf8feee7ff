#pragma once

#include "model/trainjob/release.hpp"
#include "model/trainjob/torch_plugin.hpp"
#include "util/expected.hpp"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace kpt::model::trainjob {

/// The framework a runtime's mlPolicy selects for a TrainJob.
enum class Framework {
  torch,      ///< mlPolicy.torch
  torchtune,  ///< mlPolicy.torch with trainer.command exactly `tune run`
  jax,        ///< mlPolicy.jax (v2.2+)
  xgboost,    ///< mlPolicy.xgboost (v2.2+)
  mpi,        ///< mlPolicy.mpi (deepspeed-distributed, mlx-distributed): not modelled
  flux,       ///< mlPolicy.flux (v2.2+): not modelled
  plain,      ///< no framework policy: PlainML copies numNodes and the trainer env only
};

/// "torch", "torchtune", "jax", "xgboost", "mpi", "flux", "plain".
std::string to_string(Framework framework);

/// The framework of `runtime` for `trainjob` under `release`. Policies the release's CRD does not
/// have (mlPolicy.jax before v2.2, ...) are ignored, as the API server prunes them.
Framework framework_of(const nlohmann::json& trainjob, const nlohmann::json& runtime, TrainerRelease release);

/// Whether the model reproduces that framework's plugin (env, pod counts, extra objects). MPI and
/// Flux are not modelled: their builds fail with an explicit "is not modelled" error.
bool framework_modelled(Framework framework);

/// The JobSet a release's TrainJob controller server-side applies for a TrainJob and its runtime.
struct BuildResult {
  nlohmann::json jobset;  ///< jobset.x-k8s.io/v1alpha2 JobSet, before JobSet's defaulting
  Framework framework = Framework::plain;
  std::int64_t num_nodes = 1;          ///< pods of the trainer job (PET_NNODES for torch)
  std::optional<NprocDecision> nproc;  ///< torch and torchtune: PET_NPROC_PER_NODE and its inputs
  std::vector<std::string> notes;      ///< where the real result varies (Go map order) or is not modelled
};

/// Merges the TrainJob into the runtime template exactly as `release` does: JobSet labels and
/// annotations, podSpecOverrides (v2.0) / podTemplateOverrides (v2.1) / runtimePatches (v2.2 per job,
/// v2.3 over the whole JobSetSpec with the job order restored), resourcesPerNode (replaced before
/// v2.3, merged in v2.3), the framework plugin's env and port, numNodes as parallelism/completions,
/// the initializer jobs' STORAGE_URI/env/envFrom, image/command/args/env of container `node`,
/// suspend and the TrainJob owner reference. Errors: an unmodelled framework ("mlPolicy.mpi: ...
/// is not modelled ..."), or a missing envInjection target (the real reconcile error text).
Expected<BuildResult> build_jobset(const nlohmann::json& trainjob, const nlohmann::json& runtime,
                                   TrainerRelease release);

}  // namespace kpt::model::trainjob
