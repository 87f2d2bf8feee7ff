#include "model/trainjob/env_plan.hpp"

#include "tests/unit/model/trainjob/fixtures.hpp"

#include <gtest/gtest.h>

namespace kpt::model::trainjob {
namespace {

using nlohmann::json;
using testing::carried;

json trainjob(const json& spec) {
  return {{"metadata", {{"name", "tj"}, {"namespace", "ns"}, {"uid", "u"}}}, {"spec", spec}};
}

std::vector<std::string> notes_for(const json& tj, const json& runtime, TrainerRelease release) {
  const auto plan = plan_env(tj, runtime, release);
  EXPECT_TRUE(plan) << (plan ? "" : plan.error().message);
  return plan ? plan->notes : std::vector<std::string>{};
}

bool has_note(const std::vector<std::string>& notes, const std::string& note) {
  return std::find(notes.begin(), notes.end(), note) != notes.end();
}

TEST(ExplainEnv, AutoWithGpusAndTheV20PassThrough) {
  const json gpu = trainjob(json::parse(
      R"({"runtimeRef": {"name": "torch-distributed"}, "trainer": {"numNodes": 2, "resourcesPerNode": {"limits": {"nvidia.com/gpu": 4}}}})"));
  const auto notes = notes_for(gpu, carried("torch-distributed"), {2, 3, 0});
  EXPECT_TRUE(has_note(notes, "world size = PET_NNODES x the processes torchrun starts per node = 2 x N"));
  EXPECT_TRUE(has_note(notes,
                       "PET_NPROC_PER_NODE=auto because the resources declare 4 GPU(s): torchrun starts one "
                       "process per visible GPU"));
  const json bare = trainjob({{"runtimeRef", {{"name", "torch-distributed"}}}, {"trainer", json::object()}});
  EXPECT_TRUE(has_note(
      notes_for(bare, carried("torch-distributed", {2, 0, 1}), {2, 0, 1}),
      "PET_NPROC_PER_NODE=auto: torchrun starts one process per visible GPU, or one per CPU core of the "
      "host when it sees none (release v2.0.1 passes auto through without resourcesPerNode)"));
}

TEST(ExplainEnv, WarnsAboutTheGpuOnlyInTheRuntime) {
  json runtime = carried("torch-distributed", {2, 2, 1});
  runtime["spec"]["template"]["spec"]["replicatedJobs"][0]["template"]["spec"]["template"]["spec"]
         ["containers"][0]["resources"] = {{"limits", {{"nvidia.com/gpu", 8}}}};
  const json tj = trainjob(json::parse(
      R"({"runtimeRef": {"name": "torch-distributed"}, "trainer": {"resourcesPerNode": {"requests": {"cpu": "16"}}}})"));
  EXPECT_TRUE(has_note(
      notes_for(tj, runtime, {2, 2, 1}),
      "warning: the runtime's node container requests a GPU but trainer.resourcesPerNode does not: "
      "Trainer reads only the TrainJob's resources, so PET_NPROC_PER_NODE=16 instead of auto (and v2.2.1 "
      "replaces the runtime's resources, so the pod gets no GPU)"));
  EXPECT_TRUE(
      has_note(notes_for(tj, runtime, {2, 3, 0}),
               "warning: the runtime's node container requests a GPU but trainer.resourcesPerNode does not: "
               "Trainer reads only the TrainJob's resources, so PET_NPROC_PER_NODE=16 instead of auto"));
}

TEST(ExplainEnv, TheHardCodedMasterAddressIgnoresTheSubdomain) {
  json runtime = carried("torch-distributed");
  runtime["spec"]["template"]["spec"]["network"] = {{"subdomain", "net"}};
  const json tj = trainjob({{"runtimeRef", {{"name", "torch-distributed"}}}, {"trainer", json::object()}});
  const auto plan = plan_env(tj, runtime, {2, 3, 0});
  ASSERT_TRUE(plan);
  EXPECT_TRUE(has_note(plan->notes,
                       "warning: PET_MASTER_ADDR is hard-coded to tj-node-0-0.tj and ignores "
                       "network.subdomain 'net': it will not resolve"));
  EXPECT_EQ(plan->pods[0].subdomain, "net");
}

TEST(ExplainEnv, NoTrainerTorchtuneJaxAndPlain) {
  const json no_trainer = trainjob({{"runtimeRef", {{"name", "torch-distributed"}}}});
  const auto plan = plan_env(no_trainer, carried("torch-distributed"), {2, 3, 0});
  ASSERT_TRUE(plan);
  EXPECT_EQ(plan->notes[0],
            "spec.trainer is absent: Trainer injects no PET_* variables and no port into container node");
  EXPECT_EQ(testing::env_names(json{{"env", plan->pods[0].env}}),
            (std::vector<std::string>{"JOB_COMPLETION_INDEX"}));

  const json tune = trainjob(
      {{"runtimeRef", {{"name", "torchtune-llama3.2-1b"}}}, {"trainer", {{"command", {"tune", "run"}}}}});
  const auto tune_plan = plan_env(tune, carried("torchtune-llama3.2-1b"), {2, 3, 0});
  ASSERT_TRUE(tune_plan);
  EXPECT_EQ(tune_plan->master_addr, "");
  EXPECT_TRUE(has_note(tune_plan->notes,
                       "`tune run`: no PET_MASTER_* variables; the rendezvous endpoint, recipe and "
                       "config are appended to the command instead"));

  const json jax = trainjob({{"runtimeRef", {{"name", "jax-distributed"}}}, {"trainer", {{"numNodes", 4}}}});
  const auto jax_plan = plan_env(jax, carried("jax-distributed"), {2, 3, 0});
  ASSERT_TRUE(jax_plan);
  EXPECT_EQ(jax_plan->pods.size(), 4u);
  EXPECT_EQ(jax_plan->pods[3].resolved[1],
            (ResolvedEnv{"JAX_PROCESS_ID", "3",
                         "fieldRef metadata.annotations['batch.kubernetes.io/job-completion-index']", true}));
  EXPECT_EQ(jax_plan->master_addr, "tj-node-0-0.tj");

  json plain_runtime = carried("torch-distributed");
  plain_runtime["spec"].erase("mlPolicy");
  EXPECT_TRUE(has_note(notes_for(no_trainer, plain_runtime, {2, 3, 0}),
                       "no framework policy: Trainer injects no distributed env, only the TrainJob's env"));
}

TEST(ExplainEnv, UnmodelledFrameworksFailTheirPlan) {
  const auto plan = plan_env(trainjob({{"runtimeRef", {{"name", "mlx-distributed"}}}}),
                             carried("mlx-distributed"), {2, 3, 0});
  ASSERT_FALSE(plan);
  EXPECT_EQ(plan.error().code, ErrorCode::usage);
}

TEST(ResolveEnv, ReadsFieldRefsFromThePodAndMarksWhatItCannotSee) {
  const json pod = json::parse(R"({"metadata": {"name": "p", "namespace": "ns", "labels": {"l": "1"}},
                                   "spec": {"hostname": "h"}})");
  const json env = json::parse(R"([
      {"name": "A", "value": "x"},
      {"name": "B", "valueFrom": {"fieldRef": {"fieldPath": "metadata.labels['l']"}}},
      {"name": "C", "valueFrom": {"fieldRef": {"fieldPath": "metadata.name"}}},
      {"name": "D", "valueFrom": {"secretKeyRef": {"name": "s", "key": "k"}}},
      {"name": "E", "valueFrom": {"fieldRef": {"fieldPath": "status.podIP"}}},
      {"name": "F", "valueFrom": {"configMapKeyRef": {"name": "c", "key": "k"}}}])");
  const std::vector<ResolvedEnv> expected = {{"A", "x", "", true},
                                             {"B", "1", "fieldRef metadata.labels['l']", true},
                                             {"C", "p", "fieldRef metadata.name", true},
                                             {"D", "", "secretKeyRef s/k", false},
                                             {"E", "", "fieldRef status.podIP", false},
                                             {"F", "", "configMapKeyRef c/k", false}};
  EXPECT_EQ(resolve_env(env, pod), expected);
}

}  // namespace
}  // namespace kpt::model::trainjob
