// The torchtune side of the torch plugin (kubeflow/trainer pkg/runtime/framework/plugins/torch/
// torchtune.go from v2.1.0, torch.go in v2.0.0): what it appends to `tune run`.

#include "model/k8s/object_meta.hpp"
#include "model/trainjob/constants.hpp"
#include "model/trainjob/runtime_ref.hpp"
#include "model/trainjob/torch_plugin.hpp"
#include "util/json_access.hpp"
#include "util/strings.hpp"

#include <algorithm>

namespace kpt::model::trainjob {

namespace {

using nlohmann::json;

std::vector<std::string> trainer_args(const json& trainjob) {
  std::vector<std::string> args;
  const json* list = util::at_path(trainjob, "spec.trainer.args");
  if (list == nullptr || !list->is_array()) return args;
  for (const auto& arg : *list) {
    if (arg.is_string()) args.push_back(arg.get<std::string>());
  }
  return args;
}

bool any_contains(const std::vector<std::string>& args, std::string_view needle) {
  return std::any_of(args.begin(), args.end(),
                     [&](const std::string& a) { return a.find(needle) != std::string::npos; });
}

/// v2.3 isBoolArgEnabled: a "key=value" arg whose key contains `item` and whose value is "true".
bool bool_arg_enabled(const std::vector<std::string>& args, std::string_view item) {
  for (const auto& arg : args) {
    const auto eq = arg.find('=');
    if (eq == std::string::npos) continue;
    if (arg.substr(0, eq).find(item) != std::string::npos &&
        util::to_lower(util::trim(std::string_view(arg).substr(eq + 1))) == "true") {
      return true;
    }
  }
  return false;
}

bool uses_qlora(const std::vector<std::string>& args, TorchtuneRecipes rules) {
  if (rules == TorchtuneRecipes::lora_boolean_values) {
    return !bool_arg_enabled(args, "model.use_dora") && bool_arg_enabled(args, "model.quantize_base");
  }
  // v2.1-v2.2: the first arg naming DoRA disables QLoRA; otherwise any quantize_base arg enables it.
  bool quantize = false;
  for (const auto& arg : args) {
    if (arg.find("model.use_dora") != std::string::npos) return false;
    if (arg.find("model.quantize_base") != std::string::npos) quantize = true;
  }
  return quantize;
}

struct Recipe {
  std::string recipe = "full_finetune_distributed";
  std::string suffix = "_full";
};

Recipe v20_recipe(std::int64_t nnodes, const NprocDecision& nproc) {
  if (nnodes == 1 && nproc.is_int && nproc.value == "1")
    return {"full_finetune_single_device", "_full_single_device"};
  if (nnodes > 1) return {"full_finetune_distributed", "_full_multinode"};
  return {};
}

Recipe recipe_for(std::int64_t nnodes, const NprocDecision& nproc, const std::vector<std::string>& args,
                  TorchtuneRecipes rules) {
  if (rules == TorchtuneRecipes::full_only) return v20_recipe(nnodes, nproc);
  const bool qlora = uses_qlora(args, rules);
  const bool lora = any_contains(args, "model.lora_attn_modules");
  if (nnodes == 1 && ((nproc.is_int && nproc.value == "1") || nproc.gpus == 1)) {
    if (qlora) return {"lora_finetune_single_device", "_qlora_single_device"};
    if (lora) return {"lora_finetune_single_device", "_lora_single_device"};
    return {"full_finetune_single_device", "_full_single_device"};
  }
  if (nnodes == 1 && qlora) return {"lora_finetune_distributed", "_qlora"};
  if (nnodes == 1 && lora) return {"lora_finetune_distributed", "_lora"};
  if (nnodes > 1) return {"full_finetune_distributed", "_full_multinode"};
  return {};
}

bool needs_rendezvous(std::int64_t nnodes, const NprocDecision& nproc, TorchtuneRecipes rules) {
  if (nnodes > 1) return true;
  if (rules == TorchtuneRecipes::full_only) return !(nproc.is_int && nproc.value == "1");
  if (nproc.is_int) return std::stoll(nproc.value) > 1;
  return nproc.gpus > 1;
}

std::vector<std::string> runtime_overrides(const json& command, TorchtuneRecipes rules) {
  std::vector<std::string> keys = {"output_dir", "tokenizer.path", "checkpointer.checkpoint_dir"};
  if (rules != TorchtuneRecipes::full_only) keys.emplace_back("tokenizer.merges_file");
  std::vector<std::string> out;
  if (!command.is_array()) return out;
  for (const auto& item : command) {
    if (!item.is_string()) continue;
    const std::string text = item.get<std::string>();
    const std::string key = text.substr(0, text.find('='));
    if (std::find(keys.begin(), keys.end(), key) != keys.end()) out.push_back(text);
  }
  return out;
}

}  // namespace

std::vector<std::string> torchtune_command_suffix(const json& trainjob, std::int64_t nnodes,
                                                  const NprocDecision& nproc,
                                                  const json& runtime_trainer_command,
                                                  TrainerRelease release) {
  const TorchtuneRecipes rules = features_of(release).torchtune;
  const std::string name = k8s::name_of(trainjob);
  std::vector<std::string> out;
  if (needs_rendezvous(nnodes, nproc, rules)) {
    out.push_back("--rdzv_endpoint=" + name + "-node-0-0." + name + ":" + std::to_string(k_trainer_port));
  }
  const Recipe recipe = recipe_for(nnodes, nproc, trainer_args(trainjob), rules);
  const std::string model = torchtune_model(runtime_ref_of(trainjob).name);
  out.push_back(recipe.recipe);
  out.push_back("--config");
  out.push_back(model + recipe.suffix);
  for (auto& o : runtime_overrides(runtime_trainer_command, rules)) out.push_back(std::move(o));
  return out;
}

}  // namespace kpt::model::trainjob
