#pragma once

#include "model/trainjob/release.hpp"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace kpt::model::trainjob {

/// PET_NPROC_PER_NODE as the release's torch plugin computes it, with what it looked at.
struct NprocDecision {
  std::string value = "auto";        ///< "4", "auto", or (v2.0-v2.1) "gpu" / a string as written
  bool is_int = false;               ///< value is an integer (torchtune's checks depend on it)
  std::int64_t gpus = 0;             ///< the GPU count the rule saw
  std::int64_t cpus = 0;             ///< the CPU count the rule saw, rounded up (0: none)
  std::string resources_from;        ///< "trainer.resourcesPerNode", "runtime" or "" (none)
  std::string requested = "auto";    ///< the numProcPerNode the rule started from
  bool runtime_gpu_ignored = false;  ///< the runtime's `node` declares a GPU the rule did not see
  bool gpu_name_ambiguous = false;   ///< 2+ gpu-named resources: the real pick varies (Go map order)
};

/// The torch plugin's NPROC (kubeflow/trainer pkg/runtime/framework/plugins/torch/torch.go):
///  - v2.2+: trainer.numProcPerNode verbatim when set; else "auto", which with no GPU becomes
///    max(1, cpu) from the raw trainer.resourcesPerNode if set, else from the runtime's merged `node`
///    resources (`runtime_node_resources`), cpu = requests.cpu if non-zero else limits.cpu, rounded up.
///  - v2.1: the same, starting from the runtime's torch.numProcPerNode; "cpu" always takes the CPU count.
///  - v2.0: only trainer.resourcesPerNode counts, limits first, then requests; without it the value passes
///    unchanged (so "auto" reaches torchrun, which then uses every CPU).
NprocDecision decide_nproc(const nlohmann::json& trainjob, const nlohmann::json& ml_policy,
                           const nlohmann::json* runtime_node_resources, TrainerRelease release);

/// The GPU count of resource requirements as Trainer reads it: from requests, else limits, the
/// quantity (rounded up) of the first resource whose name contains "gpu" (sets `ambiguous` when
/// more than one does: Go picks one by map order).
std::int64_t gpus_of(const nlohmann::json& resources, bool* ambiguous = nullptr);

/// The five PET_* variables in the order the plugin upserts them; without the two master ones
/// when `with_master` is false (torchtune's `tune run`).
std::vector<nlohmann::json> pet_env(const std::string& trainjob_name, std::int64_t nnodes,
                                    const NprocDecision& nproc, bool with_master);

/// True when trainer.command is exactly ["tune", "run"].
bool is_torchtune_command(const nlohmann::json& trainjob);

/// What torchtune appends to `tune run` for this TrainJob: the rendezvous endpoint when needed, the
/// recipe, `--config <model><suffix>`, then the runtime `node` command's output/tokenizer/checkpoint
/// overrides (`runtime_trainer_command`).
std::vector<std::string> torchtune_command_suffix(const nlohmann::json& trainjob, std::int64_t nnodes,
                                                  const NprocDecision& nproc,
                                                  const nlohmann::json& runtime_trainer_command,
                                                  TrainerRelease release);

/// "llama3_2/1B" from the runtime name "torchtune-llama3.2-1b" (three dash-separated parts), else "".
std::string torchtune_model(const std::string& runtime_name);

}  // namespace kpt::model::trainjob
