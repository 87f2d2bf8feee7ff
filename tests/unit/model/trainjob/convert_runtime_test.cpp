#include "model/trainjob/convert_runtime.hpp"

#include <gtest/gtest.h>

namespace kpt::model::trainjob {
namespace {

using nlohmann::json;

NodeCarry scheduling_carry() {
  NodeCarry carry;
  carry.pod_metadata = {{"annotations", {{"sidecar.istio.io/inject", "false"}}}};
  carry.pod_spec = {{"nodeSelector", {{"pool", "gpu"}}}};
  carry.node_container = {{"volumeMounts", {{{"name", "data"}, {"mountPath", "/data"}}}}};
  return carry;
}

TEST(NodeOverride, TakesEachReleasesShape) {
  struct Case {
    TrainerRelease release;
    const char* field;
    const char* want;
  };
  const Case cases[] = {
      {{2, 0, 0},
       "podSpecOverrides",
       R"([{"targetJobs": [{"name": "node"}], "nodeSelector": {"pool": "gpu"},
            "containers": [{"name": "node", "volumeMounts": [{"name": "data", "mountPath": "/data"}]}]}])"},
      {{2, 1, 0},
       "podTemplateOverrides",
       R"([{"targetJobs": [{"name": "node"}], "metadata": {"annotations": {"sidecar.istio.io/inject": "false"}},
            "spec": {"nodeSelector": {"pool": "gpu"},
                     "containers": [{"name": "node", "volumeMounts": [{"name": "data", "mountPath": "/data"}]}]}}])"},
      {{2, 3, 0},
       "runtimePatches",
       R"([{"manager": "kubectl-pytorch.kubeflow.org/convert", "trainingRuntimeSpec": {"template": {"spec":
            {"replicatedJobs": [{"name": "node", "template": {"spec": {"template": {
              "metadata": {"annotations": {"sidecar.istio.io/inject": "false"}},
              "spec": {"nodeSelector": {"pool": "gpu"},
                       "containers": [{"name": "node",
                                       "volumeMounts": [{"name": "data", "mountPath": "/data"}]}]}}}}}]}}}}])"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.release.to_string());
    EXPECT_EQ(override_field(c.release), c.field);
    EXPECT_EQ(node_override(scheduling_carry(), c.release), json::parse(c.want));
  }
}

TEST(NodeOverride, IsNullWithNothingToOverride) {
  EXPECT_TRUE(node_override(NodeCarry{}, k_newest_trainer_release).is_null());
  NodeCarry metadata_only;
  metadata_only.pod_metadata = {{"labels", {{"team", "a"}}}};
  // v2.0's podSpecOverrides has no metadata: the converter gives such a job a runtime instead.
  EXPECT_TRUE(node_override(metadata_only, {2, 0, 0}).is_null());
  EXPECT_FALSE(node_override(metadata_only, {2, 1, 0}).is_null());
  EXPECT_TRUE(NodeCarry{}.empty());
  EXPECT_FALSE(metadata_only.empty());
}

TEST(TrainingRuntime, StartsFromTheReleasesTorchDistributedAndAddsTheCarriedFields) {
  NodeCarry carry = scheduling_carry();
  carry.sidecars = json::array({{{"name", "logs"}, {"image", "fluent-bit"}}});
  carry.job_spec = {{"backoffLimit", 0}};
  carry.jobset_spec = {{"failurePolicy", {{"maxRestarts", 3}}}};
  EXPECT_EQ(training_runtime("mnist-runtime", "ml", carry, 3, 2, k_newest_trainer_release), json::parse(R"({
    "apiVersion": "trainer.kubeflow.org/v1alpha1", "kind": "TrainingRuntime",
    "metadata": {"name": "mnist-runtime", "namespace": "ml", "labels": {"trainer.kubeflow.org/framework": "torch"}},
    "spec": {
      "mlPolicy": {"numNodes": 3, "torch": {}},
      "template": {"spec": {
        "failurePolicy": {"maxRestarts": 3},
        "replicatedJobs": [{"name": "node", "template": {
          "metadata": {"labels": {"trainer.kubeflow.org/trainjob-ancestor-step": "trainer"}},
          "spec": {"backoffLimit": 0, "template": {
            "metadata": {"annotations": {"sidecar.istio.io/inject": "false"}},
            "spec": {"nodeSelector": {"pool": "gpu"}, "containers": [
              {"name": "node", "image": "pytorch/pytorch:2.13.0-cuda13.0-cudnn9-runtime",
               "volumeMounts": [{"name": "data", "mountPath": "/data"}]},
              {"name": "logs", "image": "fluent-bit"}]}}}}}]}}}})"));
}

TEST(TrainingRuntime, BeforeV22TheTorchPolicyHoldsTheProcessesAndV20sEchoCommandCanGo) {
  NodeCarry carry;
  carry.image_entrypoint = true;
  const json runtime = training_runtime("x-runtime", "", carry, 2, 4, {2, 0, 0});
  EXPECT_EQ(runtime["metadata"], json::parse(R"({"name": "x-runtime"})"));
  EXPECT_EQ(runtime["spec"]["mlPolicy"], json::parse(R"({"numNodes": 2, "torch": {"numProcPerNode": 4}})"));
  const json& node = runtime["spec"]["template"]["spec"]["replicatedJobs"][0]["template"]["spec"]["template"]
                            ["spec"]["containers"][0];
  EXPECT_EQ(node,
            json::parse(R"({"name": "node", "image": "pytorch/pytorch:2.7.1-cuda12.8-cudnn9-runtime"})"));
  // Without a number, v2.1's runtime keeps its own "auto".
  EXPECT_EQ(training_runtime("x-runtime", "", carry, 2, std::nullopt, {2, 1, 0})["spec"]["mlPolicy"],
            json::parse(R"({"numNodes": 2, "torch": {"numProcPerNode": "auto"}})"));
}

}  // namespace
}  // namespace kpt::model::trainjob
