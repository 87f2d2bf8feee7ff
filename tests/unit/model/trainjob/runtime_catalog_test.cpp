#include "model/trainjob/runtime_catalog.hpp"

#include "tests/unit/model/trainjob/fixtures.hpp"

#include <gtest/gtest.h>

namespace kpt::model::trainjob {
namespace {

using nlohmann::json;
using Names = std::vector<std::string>;

TEST(CarriedRuntimes, EachReleaseShipsItsOwnSet) {
  const Names v20 = {"deepspeed-distributed", "mlx-distributed",       "mpi-distributed",
                     "torch-distributed",     "torchtune-llama3.2-1b", "torchtune-llama3.2-3b"};
  const Names v21 = {"deepspeed-distributed", "mlx-distributed",       "torch-distributed",
                     "torchtune-llama3.2-1b", "torchtune-llama3.2-3b", "torchtune-qwen2.5-1.5b"};
  const Names v22 = {"deepspeed-distributed", "mlx-distributed",       "torch-distributed",
                     "jax-distributed",       "xgboost-distributed",   "torchtune-llama3.2-1b",
                     "torchtune-llama3.2-3b", "torchtune-qwen2.5-1.5b"};
  EXPECT_EQ(carried_runtime_names({2, 0, 0}), v20);
  EXPECT_EQ(carried_runtime_names({2, 0, 1}), v20);
  EXPECT_EQ(carried_runtime_names({2, 1, 0}), v21);
  EXPECT_EQ(carried_runtime_names({2, 2, 0}), v22);
  EXPECT_EQ(carried_runtime_names({2, 2, 1}), v22);
  EXPECT_EQ(carried_runtime_names({2, 3, 0}), v22);
  EXPECT_EQ(carried_runtime({2, 1, 0}, "jax-distributed"), std::nullopt);
  EXPECT_EQ(carried_runtime({2, 3, 0}, "torch-distributed-with-cache"), std::nullopt);
}

TEST(CarriedRuntimes, TorchDistributedIsTheV230ManifestWithItsOverlayLabels) {
  const json expected = json::parse(R"({
    "apiVersion": "trainer.kubeflow.org/v1alpha1", "kind": "ClusterTrainingRuntime",
    "metadata": {"name": "torch-distributed", "labels": {"trainer.kubeflow.org/framework": "torch",
                                                         "trainer.kubeflow.org/webhook-validation": "disabled"}},
    "spec": {"mlPolicy": {"numNodes": 1, "torch": {}},
             "template": {"spec": {"replicatedJobs": [{"name": "node", "template": {
                 "metadata": {"labels": {"trainer.kubeflow.org/trainjob-ancestor-step": "trainer"}},
                 "spec": {"template": {"spec": {"containers": [
                     {"name": "node", "image": "pytorch/pytorch:2.13.0-cuda13.0-cudnn9-runtime"}]}}}}}]}}}})");
  EXPECT_EQ(testing::carried("torch-distributed", {2, 3, 0}), expected);
}

TEST(CarriedRuntimes, TorchDistributedChangesImagePolicyAndCommandPerRelease) {
  struct Case {
    TrainerRelease release;
    const char* image;
    json torch;
    bool has_command;
    bool has_framework_label;
  };
  const Case cases[] = {
      {{2, 0, 0}, "pytorch/pytorch:2.7.1-cuda12.8-cudnn9-runtime", {{"numProcPerNode", "auto"}}, true, false},
      {{2, 0, 1}, "pytorch/pytorch:2.7.1-cuda12.8-cudnn9-runtime", {{"numProcPerNode", "auto"}}, true, true},
      {{2, 1, 0}, "pytorch/pytorch:2.7.1-cuda12.8-cudnn9-runtime", {{"numProcPerNode", "auto"}}, false, true},
      {{2, 2, 0}, "pytorch/pytorch:2.10.0-cuda12.8-cudnn9-runtime", json::object(), false, true},
      {{2, 2, 1}, "pytorch/pytorch:2.10.0-cuda12.8-cudnn9-runtime", json::object(), false, true},
      {{2, 3, 0}, "pytorch/pytorch:2.13.0-cuda13.0-cudnn9-runtime", json::object(), false, true},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.release.to_string());
    const json runtime = testing::carried("torch-distributed", c.release);
    const json node = testing::container_of(runtime["spec"]["template"], "node", "node");
    EXPECT_EQ(node["image"], c.image);
    EXPECT_EQ(node.contains("command"), c.has_command);
    EXPECT_EQ(runtime["spec"]["mlPolicy"]["torch"], c.torch);
    EXPECT_EQ(runtime["metadata"].contains("labels"), c.has_framework_label);
  }
}

TEST(CarriedRuntimes, TrainerImagesCarryTheReleaseTag) {
  for (const auto& release : k_trainer_releases) {
    SCOPED_TRACE(release.to_string());
    const std::string tag = ":" + release.to_string();
    const json deepspeed = testing::carried("deepspeed-distributed", release);
    EXPECT_EQ(testing::container_of(deepspeed["spec"]["template"], "node", "node")["image"],
              "ghcr.io/kubeflow/trainer/deepspeed-runtime" + tag);
    const json tune = testing::carried("torchtune-llama3.2-1b", release);
    EXPECT_EQ(testing::container_of(tune["spec"]["template"], "node", "node")["image"],
              "ghcr.io/kubeflow/trainer/torchtune-trainer" + tag);
    EXPECT_EQ(
        testing::container_of(tune["spec"]["template"], "model-initializer", "model-initializer")["image"],
        "ghcr.io/kubeflow/trainer/model-initializer" + tag);
  }
  EXPECT_EQ(testing::container_of(testing::carried("xgboost-distributed", {2, 2, 0})["spec"]["template"],
                                  "node", "node")["image"],
            "ghcr.io/kubeflow/trainer/xgboost-runtime:v2.2.0");
  EXPECT_EQ(testing::container_of(testing::carried("jax-distributed", {2, 3, 0})["spec"]["template"], "node",
                                  "node")["image"],
            "nvcr.io/nvidia/jax:25.10-py3");
}

TEST(CarriedRuntimes, MpiRuntimesPutTheLauncherFirstUntilV23) {
  for (const auto& release : k_trainer_releases) {
    SCOPED_TRACE(release.to_string());
    const json jobs =
        testing::carried("mlx-distributed", release)["spec"]["template"]["spec"]["replicatedJobs"];
    ASSERT_EQ(jobs.size(), 2u);
    const bool v23 = release.at_least(3);
    EXPECT_EQ(jobs[0]["name"], v23 ? "node" : "launcher");
    const json& launcher = jobs[v23 ? 1 : 0];
    EXPECT_EQ(launcher["template"]["metadata"]["labels"]["trainer.kubeflow.org/trainjob-ancestor-step"],
              "trainer");
    EXPECT_EQ(launcher.contains("dependsOn"), v23);
  }
  EXPECT_EQ(testing::carried("deepspeed-distributed", {2, 0, 0})["spec"]["mlPolicy"]["mpi"]["numProcPerNode"],
            4);
  EXPECT_EQ(testing::carried("deepspeed-distributed", {2, 0, 1})["spec"]["mlPolicy"]["mpi"]["numProcPerNode"],
            1);
  EXPECT_FALSE(testing::carried("mpi-distributed", {2, 0, 1})["metadata"].contains("labels"));
  // Under clang `x = {launcher}` copied the object instead of making a list of it.
  const json mpi = testing::carried("mpi-distributed", {2, 0, 1});
  const json& mpi_containers = mpi["spec"]["template"]["spec"]["replicatedJobs"][0]["template"]["spec"]
                                  ["template"]["spec"]["containers"];
  ASSERT_TRUE(mpi_containers.is_array());
  EXPECT_EQ(mpi_containers[0]["command"], json::array({"mpirun"}));
}

TEST(CarriedRuntimes, TorchtuneRuntimesOrderTheirInitializersAndStorage) {
  const json v20 = testing::carried("torchtune-llama3.2-1b", {2, 0, 1})["spec"]["template"]["spec"];
  EXPECT_EQ(v20["replicatedJobs"][1]["dependsOn"],
            (json{{{"name", "dataset-initializer"}, {"status", "Complete"}}}));
  EXPECT_EQ(v20["replicatedJobs"][2]["dependsOn"],
            (json{{{"name", "model-initializer"}, {"status", "Complete"}}}));
  EXPECT_EQ(v20["replicatedJobs"][0]["template"]["spec"]["template"]["spec"]["volumes"][0]
               ["persistentVolumeClaim"]["claimName"],
            "torchtune-llama3.2-1b");
  const json tmpl = testing::carried("torchtune-qwen2.5-1.5b", {2, 3, 0})["spec"]["template"];
  const json& v23 = tmpl["spec"];
  EXPECT_FALSE(v23["replicatedJobs"][1].contains("dependsOn"));
  EXPECT_EQ(v23["replicatedJobs"][2]["dependsOn"].size(), 2u);
  EXPECT_EQ(v23["volumeClaimPolicies"][0]["templates"][0]["metadata"]["name"], "initializer");
  const json node = testing::container_of(tmpl, "node", "node");
  EXPECT_EQ(node["command"][5], "qwen2_5/1.5B_full");
  EXPECT_EQ(node["command"][11], "tokenizer.merges_file=/workspace/model/merges.txt");
  EXPECT_EQ(node["resources"], (json{{"limits", {{"nvidia.com/gpu", 2}}}}));
}

}  // namespace
}  // namespace kpt::model::trainjob
