#include "model/trainjob/from_pytorchjob.hpp"

#include "model/pytorchjob/env.hpp"
#include "model/pytorchjob/env_style.hpp"
#include "model/trainjob/env_plan.hpp"
#include "tests/unit/model/trainjob/fixtures.hpp"

#include <gtest/gtest.h>

#include <map>

namespace kpt::model::trainjob {
namespace {

using nlohmann::json;

const json k_job = json::parse(R"({
  "apiVersion": "kubeflow.org/v1", "kind": "PyTorchJob",
  "metadata": {"name": "mnist", "namespace": "ml", "labels": {"team": "a"}},
  "spec": {
    "nprocPerNode": "2",
    "runPolicy": {"cleanPodPolicy": "All", "activeDeadlineSeconds": 600},
    "pytorchReplicaSpecs": {
      "Master": {"replicas": 1, "restartPolicy": "OnFailure", "template": {"spec": {"containers": [
        {"name": "pytorch", "image": "img", "command": ["python", "train.py"]}]}}},
      "Worker": {"replicas": 2, "restartPolicy": "OnFailure", "template": {"spec": {
        "nodeSelector": {"pool": "gpu"},
        "containers": [{"name": "pytorch", "image": "img", "command": ["python", "train.py"],
                        "env": [{"name": "DATA", "value": "/d"}], "ports": [{"containerPort": 23456}]}]}}}}}})");

TEST(ConvertPyTorchJob, TheTrainJobCarriesNodesProcessesContainerAndScheduling) {
  const auto c = convert_pytorchjob(k_job);
  ASSERT_TRUE(c) << c.error().message;
  EXPECT_EQ(c->trainjob, json::parse(R"({
    "apiVersion": "trainer.kubeflow.org/v1alpha1", "kind": "TrainJob",
    "metadata": {"name": "mnist", "namespace": "ml", "labels": {"team": "a"}},
    "spec": {
      "runtimeRef": {"name": "torch-distributed"},
      "activeDeadlineSeconds": 600,
      "trainer": {"numNodes": 3, "numProcPerNode": 2, "image": "img", "command": ["torchrun", "train.py"],
                  "env": [{"name": "DATA", "value": "/d"}]},
      "runtimePatches": [{"manager": "kubectl-pytorch.kubeflow.org/convert", "trainingRuntimeSpec": {"template":
        {"spec": {"replicatedJobs": [{"name": "node", "template": {"spec": {"template": {"spec":
          {"nodeSelector": {"pool": "gpu"}}}}}}]}}}}]}})"));
  std::map<std::string, std::string> kinds;
  for (const auto& n : c->notes) kinds[n.field] = to_string(n.kind) + ": " + n.text;
  EXPECT_EQ(kinds["spec.runPolicy.cleanPodPolicy"],
            "no equivalent: JobSet keeps finished pods until its ttlSecondsAfterFinished (runtime)");
  EXPECT_EQ(kinds["spec.pytorchReplicaSpecs.Worker.template.spec.containers[pytorch].ports"],
            "no equivalent: the runtime's container node defines it");
  EXPECT_EQ(kinds["port 23456"], "changed: the rendezvous port is 29500 (PET_MASTER_PORT)");
  EXPECT_EQ(kinds["spec.pytorchReplicaSpecs.Worker.restartPolicy"],
            "no equivalent: JobSet's Jobs restart pods OnFailure up to backoffLimit; set failurePolicy in a "
            "TrainingRuntime");
}

// The converted job's pods get the rendezvous the operator's torchrun style gives the original.
TEST(ConvertPyTorchJob, RoundTripGivesTorchrunTheSameNodesAndProcesses) {
  const auto c = convert_pytorchjob(k_job);
  ASSERT_TRUE(c);
  const auto style = pytorchjob::parse_style("torchrun");
  ASSERT_TRUE(style);
  const auto original = pytorchjob::plan_replica_pods(k_job, *style);
  ASSERT_TRUE(original) << original.error().message;
  const auto plan = plan_env(c->trainjob, testing::carried("torch-distributed"), k_newest_trainer_release);
  ASSERT_TRUE(plan) << plan.error().message;
  ASSERT_EQ(plan->pods.size(), original->size());
  const auto value = [](const auto& env, const std::string& name) {
    std::string out;
    for (const auto& v : env) {
      if (v.name == name) out = v.value;
    }
    return out;
  };
  for (std::size_t k = 0; k < plan->pods.size(); ++k) {
    SCOPED_TRACE(k);
    for (const char* name : {"PET_NNODES", "PET_NPROC_PER_NODE", "PET_NODE_RANK"}) {
      EXPECT_EQ(value(plan->pods[k].resolved, name), value((*original)[k].env, name)) << name;
    }
  }
}

TEST(ConvertPyTorchJob, ReplicaTypesTrainerCannotHoldAreAnError) {
  const auto c = convert_pytorchjob(json::parse(R"({"metadata": {"name": "x"}, "spec": {"pytorchReplicaSpecs":
    {"Chief": {"replicas": 1}}}})"));
  ASSERT_FALSE(c);
  EXPECT_EQ(c.error().message, "spec.pytorchReplicaSpecs.Chief: no TrainJob equivalent");
  EXPECT_EQ(convert_pytorchjob(json::parse(R"({"spec": {}})")).error().message,
            "spec.pytorchReplicaSpecs: required");
}

}  // namespace
}  // namespace kpt::model::trainjob
