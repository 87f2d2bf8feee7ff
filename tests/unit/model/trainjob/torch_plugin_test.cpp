#include "model/trainjob/torch_plugin.hpp"

#include <gtest/gtest.h>

namespace kpt::model::trainjob {
namespace {

using nlohmann::json;

json trainjob_with(const json& trainer, const std::string& runtime = "torch-distributed") {
  json tj = {{"metadata", {{"name", "tj"}, {"namespace", "ns"}}},
             {"spec", {{"runtimeRef", {{"name", runtime}}}}}};
  if (!trainer.is_null()) tj["spec"]["trainer"] = trainer;
  return tj;
}

struct NprocCase {
  const char* name;
  TrainerRelease release;
  json trainer;            ///< spec.trainer (null: absent)
  json runtime_resources;  ///< the runtime's node resources (null: none)
  json ml_policy;
  std::string value;
  bool runtime_gpu_ignored = false;
  bool ambiguous = false;
};

json res(const json& requests, const json& limits = nullptr) {
  json r = json::object();
  if (!requests.is_null()) r["requests"] = requests;
  if (!limits.is_null()) r["limits"] = limits;
  return r;
}

TEST(DecideNproc, FollowsEachReleasesRule) {
  const TrainerRelease v20{2, 0, 1}, v21{2, 1, 0}, v22{2, 2, 1}, v23{2, 3, 0};
  const json torch = {{"torch", json::object()}};
  const json gpu2 = {{"nvidia.com/gpu", 2}};
  const std::vector<NprocCase> cases = {
      {"v2.3 nothing: auto, no GPU, no CPU -> 1", v23, json::object(), nullptr, torch, "1"},
      {"v2.3 numProcPerNode verbatim", v23, {{"numProcPerNode", 4}}, nullptr, torch, "4"},
      {"v2.3 zero is not checked", v23, {{"numProcPerNode", 0}}, nullptr, torch, "0"},
      {"v2.3 requests cpu first",
       v23,
       {{"resourcesPerNode", res({{"cpu", "2"}}, {{"cpu", "4"}})}},
       nullptr,
       torch,
       "2"},
      {"v2.3 limits when no requests",
       v23,
       {{"resourcesPerNode", res(nullptr, {{"cpu", 3}})}},
       nullptr,
       torch,
       "3"},
      {"v2.3 zero requests fall to limits",
       v23,
       {{"resourcesPerNode", res({{"cpu", "0"}}, {{"cpu", "4"}})}},
       nullptr,
       torch,
       "4"},
      {"v2.3 500m rounds up", v23, {{"resourcesPerNode", res({{"cpu", "500m"}})}}, nullptr, torch, "1"},
      {"v2.3 1.5 rounds up", v23, {{"resourcesPerNode", res({{"cpu", "1.5"}})}}, nullptr, torch, "2"},
      {"v2.3 GPU in TrainJob requests: auto", v23, {{"resourcesPerNode", res(gpu2)}}, nullptr, torch, "auto"},
      {"v2.3 GPU in TrainJob limits: auto",
       v23,
       {{"resourcesPerNode", res(nullptr, gpu2)}},
       nullptr,
       torch,
       "auto"},
      {"v2.3 GPU only in runtime, no TrainJob resources: auto", v23, json::object(), res(nullptr, gpu2),
       torch, "auto"},
      {"v2.3 the trap: runtime GPU, TrainJob CPU",
       v23,
       {{"resourcesPerNode", res({{"cpu", "8"}})}},
       res(nullptr, gpu2),
       torch,
       "8",
       true},
      {"v2.3 runtime CPU requests", v23, json::object(), res({{"cpu", "6"}}), torch, "6"},
      {"v2.3 two GPU names",
       v23,
       {{"resourcesPerNode", res({{"amd.com/gpu", 1}, {"nvidia.com/gpu", 1}})}},
       nullptr,
       torch,
       "auto",
       false,
       true},
      {"v2.3 a zero GPU entry hides another",
       v23,
       {{"resourcesPerNode", res({{"amd.com/gpu", 0}, {"nvidia.com/gpu", 1}})}},
       nullptr,
       torch,
       "1",
       false,
       true},
      {"v2.2 same rule as v2.3",
       v22,
       {{"resourcesPerNode", res({{"cpu", "8"}})}},
       res(nullptr, gpu2),
       torch,
       "8",
       true},
      {"v2.2 a string numProcPerNode is not an int32", v22, {{"numProcPerNode", "4"}}, nullptr, torch, "1"},
      {"v2.1 cpu takes the CPU count",
       v21,
       {{"numProcPerNode", "cpu"}, {"resourcesPerNode", res({{"cpu", 3}})}},
       nullptr,
       torch,
       "3"},
      {"v2.1 cpu even with a GPU",
       v21,
       {{"numProcPerNode", "cpu"}, {"resourcesPerNode", res({{"cpu", 3}}, gpu2)}},
       nullptr,
       torch,
       "3"},
      {"v2.1 gpu passes", v21, {{"numProcPerNode", "gpu"}}, nullptr, torch, "gpu"},
      {"v2.1 the runtime's numProcPerNode",
       v21,
       json::object(),
       nullptr,
       {{"torch", {{"numProcPerNode", 2}}}},
       "2"},
      {"v2.1 runtime auto without GPU counts CPUs",
       v21,
       json::object(),
       res({{"cpu", 2}}),
       {{"torch", {{"numProcPerNode", "auto"}}}},
       "2"},
      {"v2.0 no resourcesPerNode: auto passes through",
       v20,
       json::object(),
       nullptr,
       {{"torch", {{"numProcPerNode", "auto"}}}},
       "auto"},
      {"v2.0 the runtime's CPUs are not read", v20, json::object(), res({{"cpu", 4}}), torch, "auto"},
      {"v2.0 limits first",
       v20,
       {{"resourcesPerNode", res({{"cpu", 2}}, {{"cpu", 4}})}},
       nullptr,
       torch,
       "4"},
      {"v2.0 requests when no limits", v20, {{"resourcesPerNode", res({{"cpu", 2}})}}, nullptr, torch, "2"},
      {"v2.0 GPU in limits, CPU in requests",
       v20,
       {{"resourcesPerNode", res({{"cpu", 4}}, {{"nvidia.com/gpu", 1}})}},
       nullptr,
       torch,
       "4"},
      {"v2.0 GPU in limits only",
       v20,
       {{"resourcesPerNode", res(nullptr, {{"nvidia.com/gpu", 1}})}},
       nullptr,
       torch,
       "1"},
      {"v2.0 GPU in both", v20, {{"resourcesPerNode", res(gpu2, gpu2)}}, nullptr, torch, "auto"},
      {"v2.0 cpu without a cpu key",
       v20,
       {{"numProcPerNode", "cpu"}, {"resourcesPerNode", res(nullptr, {{"memory", "1Gi"}})}},
       nullptr,
       torch,
       "1"},
      {"v2.0 an int with empty resources becomes 1",
       v20,
       {{"numProcPerNode", 3}, {"resourcesPerNode", json::object()}},
       nullptr,
       torch,
       "1"},
      {"v2.0 an int with only limits becomes 1: requests are read last and are unset",
       v20,
       {{"numProcPerNode", 3}, {"resourcesPerNode", res(nullptr, {{"cpu", 8}})}},
       nullptr,
       torch,
       "1"},
      {"v2.0 an int with requests stays",
       v20,
       {{"numProcPerNode", 3}, {"resourcesPerNode", res({{"cpu", 8}})}},
       nullptr,
       torch,
       "3"},
      {"v2.0 trap too: runtime GPU ignored",
       v20,
       {{"resourcesPerNode", res({{"cpu", 2}})}},
       res(nullptr, gpu2),
       torch,
       "2",
       true},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    const NprocDecision d =
        decide_nproc(trainjob_with(c.trainer), c.ml_policy,
                     c.runtime_resources.is_null() ? nullptr : &c.runtime_resources, c.release);
    EXPECT_EQ(d.value, c.value);
    EXPECT_EQ(d.is_int, c.value != "auto" && c.value != "gpu");
    EXPECT_EQ(d.runtime_gpu_ignored, c.runtime_gpu_ignored);
    EXPECT_EQ(d.gpu_name_ambiguous, c.ambiguous);
  }
}

TEST(DecideNproc, SaysWhereTheResourcesCameFrom) {
  const json rt = res({{"cpu", 2}});
  EXPECT_EQ(decide_nproc(trainjob_with(json::object()), json::object(), &rt, {2, 3, 0}).resources_from,
            "runtime");
  EXPECT_EQ(
      decide_nproc(trainjob_with({{"resourcesPerNode", rt}}), json::object(), &rt, {2, 3, 0}).resources_from,
      "trainer.resourcesPerNode");
  EXPECT_EQ(decide_nproc(trainjob_with(json::object()), json::object(), nullptr, {2, 3, 0}).resources_from,
            "");
  EXPECT_EQ(decide_nproc(trainjob_with(nullptr), json::object(), nullptr, {2, 3, 0}).value, "1");
}

TEST(PetEnv, ListsTheFiveVariablesInUpsertOrder) {
  NprocDecision nproc;
  nproc.value = "auto";
  const auto env = pet_env("tj", 3, nproc, true);
  ASSERT_EQ(env.size(), 5u);
  EXPECT_EQ(env[0], (json{{"name", "PET_NNODES"}, {"value", "3"}}));
  EXPECT_EQ(env[1], (json{{"name", "PET_NPROC_PER_NODE"}, {"value", "auto"}}));
  EXPECT_EQ(env[2]["valueFrom"]["fieldRef"]["fieldPath"],
            "metadata.annotations['batch.kubernetes.io/job-completion-index']");
  EXPECT_EQ(env[3], (json{{"name", "PET_MASTER_ADDR"}, {"value", "tj-node-0-0.tj"}}));
  EXPECT_EQ(env[4], (json{{"name", "PET_MASTER_PORT"}, {"value", "29500"}}));
  EXPECT_EQ(pet_env("tj", 1, nproc, false).size(), 3u);
}

TEST(Torchtune, ModelNameComesFromTheRuntimeName) {
  EXPECT_EQ(torchtune_model("torchtune-llama3.2-1b"), "llama3_2/1B");
  EXPECT_EQ(torchtune_model("torchtune-qwen2.5-1.5b"), "qwen2_5/1.5B");
  EXPECT_EQ(torchtune_model("torchtune-llama3.3-70b"), "llama3_3/70B");
  EXPECT_EQ(torchtune_model("my-torchtune"), "");
  EXPECT_EQ(torchtune_model("a-b-c-d"), "");
}

TEST(Torchtune, AppendsRendezvousRecipeConfigAndRuntimeOverrides) {
  const json runtime_command = {"tune",
                                "run",
                                "--rdzv_endpoint=localhost:29500",
                                "full_finetune_distributed",
                                "--config",
                                "llama3_2/1B_full",
                                "dataset.source=parquet",
                                "output_dir=/workspace/output",
                                "tokenizer.path=/workspace/model/original/tokenizer.model",
                                "tokenizer.merges_file=/workspace/model/merges.txt",
                                "checkpointer.checkpoint_dir=/workspace/model"};
  const std::vector<std::string> v23_overrides = {
      "output_dir=/workspace/output", "tokenizer.path=/workspace/model/original/tokenizer.model",
      "tokenizer.merges_file=/workspace/model/merges.txt", "checkpointer.checkpoint_dir=/workspace/model"};
  auto with = [](std::vector<std::string> head, const std::vector<std::string>& tail) {
    head.insert(head.end(), tail.begin(), tail.end());
    return head;
  };
  NprocDecision auto_two_gpus;
  auto_two_gpus.gpus = 2;
  NprocDecision one;
  one.value = "1";
  one.is_int = true;
  struct Case {
    const char* name;
    TrainerRelease release;
    json args;
    std::int64_t nnodes;
    NprocDecision nproc;
    std::vector<std::string> suffix;
  };
  const std::string rdzv = "--rdzv_endpoint=tj-node-0-0.tj:29500";
  const std::vector<std::string> v20_overrides = {"output_dir=/workspace/output",
                                                  "tokenizer.path=/workspace/model/original/tokenizer.model",
                                                  "checkpointer.checkpoint_dir=/workspace/model"};
  const std::vector<Case> cases = {
      {"two GPUs, one node",
       {2, 3, 0},
       nullptr,
       1,
       auto_two_gpus,
       with({rdzv, "full_finetune_distributed", "--config", "llama3_2/1B_full"}, v23_overrides)},
      {"one process",
       {2, 3, 0},
       nullptr,
       1,
       one,
       with({"full_finetune_single_device", "--config", "llama3_2/1B_full_single_device"}, v23_overrides)},
      {"multi-node",
       {2, 3, 0},
       nullptr,
       2,
       one,
       with({rdzv, "full_finetune_distributed", "--config", "llama3_2/1B_full_multinode"}, v23_overrides)},
      {"LoRA",
       {2, 3, 0},
       {"model.lora_attn_modules=[q_proj,v_proj]"},
       1,
       auto_two_gpus,
       with({rdzv, "lora_finetune_distributed", "--config", "llama3_2/1B_lora"}, v23_overrides)},
      {"QLoRA",
       {2, 3, 0},
       {"model.quantize_base=True"},
       1,
       auto_two_gpus,
       with({rdzv, "lora_finetune_distributed", "--config", "llama3_2/1B_qlora"}, v23_overrides)},
      {"QLoRA single device",
       {2, 3, 0},
       {"model.quantize_base=true"},
       1,
       one,
       with({"lora_finetune_single_device", "--config", "llama3_2/1B_qlora_single_device"}, v23_overrides)},
      {"v2.3 false is not QLoRA",
       {2, 3, 0},
       {"model.quantize_base=False"},
       1,
       auto_two_gpus,
       with({rdzv, "full_finetune_distributed", "--config", "llama3_2/1B_full"}, v23_overrides)},
      {"v2.2 any quantize_base is QLoRA",
       {2, 2, 1},
       {"model.quantize_base=False"},
       1,
       auto_two_gpus,
       with({rdzv, "lora_finetune_distributed", "--config", "llama3_2/1B_qlora"}, v23_overrides)},
      {"v2.2 DoRA disables QLoRA",
       {2, 2, 1},
       {"model.use_dora=False", "model.quantize_base=True"},
       1,
       auto_two_gpus,
       with({rdzv, "full_finetune_distributed", "--config", "llama3_2/1B_full"}, v23_overrides)},
      {"v2.0 auto always needs the rendezvous",
       {2, 0, 1},
       nullptr,
       1,
       NprocDecision{},
       with({rdzv, "full_finetune_distributed", "--config", "llama3_2/1B_full"}, v20_overrides)},
      {"v2.0 knows no LoRA",
       {2, 0, 1},
       {"model.lora_attn_modules=[q]"},
       1,
       one,
       with({"full_finetune_single_device", "--config", "llama3_2/1B_full_single_device"}, v20_overrides)},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    json trainer = {{"command", {"tune", "run"}}};
    if (!c.args.is_null()) trainer["args"] = c.args;
    const json tj = trainjob_with(trainer, "torchtune-llama3.2-1b");
    EXPECT_TRUE(is_torchtune_command(tj));
    EXPECT_EQ(torchtune_command_suffix(tj, c.nnodes, c.nproc, runtime_command, c.release), c.suffix);
  }
  EXPECT_FALSE(is_torchtune_command(trainjob_with({{"command", {"tune", "run", "x"}}})));
}

}  // namespace
}  // namespace kpt::model::trainjob
