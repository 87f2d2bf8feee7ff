// The torchtune ClusterTrainingRuntimes (kubeflow/trainer manifests/base/runtimes/torchtune/ at each
// tag): a dataset-initializer job, a model-initializer job and the `node` trainer running `tune run`.

#include "model/trainjob/constants.hpp"
#include "model/trainjob/runtime_catalog.hpp"

namespace kpt::model::trainjob::detail {

namespace {

using nlohmann::json;

struct TorchtuneModel {
  const char* runtime_name;  ///< torchtune-llama3.2-1b
  const char* model_uri;     ///< hf://meta-llama/Llama-3.2-1B-Instruct
  const char* config;        ///< llama3_2/1B_full
  bool qwen_tokenizer;       ///< vocab.json + merges.txt instead of tokenizer.model
  bool since_v21;            ///< qwen2.5 arrived in v2.1
};

constexpr TorchtuneModel k_models[] = {
    {"torchtune-llama3.2-1b", "hf://meta-llama/Llama-3.2-1B-Instruct", "llama3_2/1B_full", false, false},
    {"torchtune-llama3.2-3b", "hf://meta-llama/Llama-3.2-3B-Instruct", "llama3_2/3B_full", false, false},
    {"torchtune-qwen2.5-1.5b", "hf://Qwen/Qwen2.5-1.5B-Instruct", "qwen2_5/1.5B_full", true, true},
};

const json k_mount = {{"mountPath", "/workspace"}, {"name", "initializer"}};

/// v2.0-v2.1 mount a PVC named after the runtime; v2.2 replaced it with a volumeClaimPolicy.
json pod_spec(TrainerRelease release, const TorchtuneModel& m, json container) {
  json spec = {{"containers", json::array({std::move(container)})}};
  if (!release.at_least(2)) {
    spec["volumes"] = {{{"name", "initializer"}, {"persistentVolumeClaim", {{"claimName", m.runtime_name}}}}};
  }
  return spec;
}

json job(const char* name, const char* ancestor, json spec, json depends_on = nullptr) {
  json out = {{"name", name},
              {"template",
               {{"metadata", {{"labels", {{k_label_ancestor, ancestor}}}}},
                {"spec", {{"template", {{"spec", spec}}}}}}}};
  if (!depends_on.is_null()) out["dependsOn"] = std::move(depends_on);
  return out;
}

json initializer(TrainerRelease release, const TorchtuneModel& m, const char* name, const char* uri) {
  json container = {{"name", name},
                    {"image", trainer_image(release, name)},
                    {"env", {{{"name", k_storage_uri_env}, {"value", uri}}}},
                    {"volumeMounts", {k_mount}}};
  return pod_spec(release, m, std::move(container));
}

json tune_command(const TorchtuneModel& m) {
  json command = {"tune",
                  "run",
                  "--rdzv_endpoint=localhost:29500",
                  "full_finetune_distributed",
                  "--config",
                  m.config,
                  "dataset=torchtune.datasets.instruct_dataset",
                  "dataset.source=parquet",
                  "dataset.data_dir=/workspace/dataset/data",
                  "output_dir=/workspace/output"};
  if (m.qwen_tokenizer) {
    command.push_back("tokenizer.path=/workspace/model/vocab.json");
    command.push_back("tokenizer.merges_file=/workspace/model/merges.txt");
  } else {
    command.push_back("tokenizer.path=/workspace/model/original/tokenizer.model");
  }
  command.push_back("checkpointer.checkpoint_dir=/workspace/model");
  return command;
}

json trainer_job(TrainerRelease release, const TorchtuneModel& m) {
  const json container = {{"name", k_node},
                          {"image", trainer_image(release, "torchtune-trainer")},
                          {"command", tune_command(m)},
                          {"resources", {{"limits", {{"nvidia.com/gpu", 2}}}}},
                          {"volumeMounts", {k_mount}}};
  const json complete_dataset = {{"name", k_ancestor_dataset}, {"status", "Complete"}};
  const json complete_model = {{"name", k_ancestor_model}, {"status", "Complete"}};
  // v2.0 chains dataset -> model -> node; v2.1+ lets both initializers run before node.
  const json depends =
      release.at_least(1) ? json::array({complete_dataset, complete_model}) : json::array({complete_model});
  return job(k_node, k_ancestor_trainer, pod_spec(release, m, container), depends);
}

json torchtune_runtime(TrainerRelease release, const TorchtuneModel& m) {
  json model_job =
      job(k_ancestor_model, k_ancestor_model, initializer(release, m, k_ancestor_model, m.model_uri));
  if (!release.at_least(1)) {
    model_job["dependsOn"] = json::array({{{"name", k_ancestor_dataset}, {"status", "Complete"}}});
  }
  json template_spec = {{"replicatedJobs",
                         {job(k_ancestor_dataset, k_ancestor_dataset,
                              initializer(release, m, k_ancestor_dataset, "hf://tatsu-lab/alpaca")),
                          model_job, trainer_job(release, m)}}};
  if (release.at_least(2)) {
    const json claim = {{"metadata", {{"name", "initializer"}}},
                        {"spec",
                         {{"accessModes", json::array({"ReadWriteOnce"})},
                          {"resources", {{"requests", {{"storage", "20Gi"}}}}}}}};
    template_spec["volumeClaimPolicies"] = json::array({json{{"templates", json::array({claim})}}});
  }
  json torch = release.at_least(2) ? json::object() : json{{"numProcPerNode", "auto"}};
  const json spec = {{"mlPolicy", {{"numNodes", 1}, {"torch", torch}}},
                     {"template", {{"spec", template_spec}}}};
  return cluster_runtime(release, m.runtime_name, "torchtune", spec);
}

}  // namespace

std::vector<json> torchtune_runtimes(TrainerRelease release) {
  std::vector<json> out;
  for (const auto& m : k_models) {
    if (m.since_v21 && !release.at_least(1)) continue;
    out.push_back(torchtune_runtime(release, m));
  }
  return out;
}

}  // namespace kpt::model::trainjob::detail
