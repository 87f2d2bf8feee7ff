#include "schema/rules/trainer_rules.hpp"
#include "tests/unit/schema/rules_fixtures.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace kpt::schema::rules {
namespace {

using model::trainjob::AvailableRuntimes;
using test::read_one;
using test::show_all;

// A torch runtime whose node container requests 4 GPUs and runs torchrun.
const std::string k_gpu_runtime =
    "apiVersion: trainer.kubeflow.org/v1alpha1\n"
    "kind: ClusterTrainingRuntime\n"
    "metadata:\n"
    "  name: gpu-torch\n"
    "spec:\n"
    "  mlPolicy:\n"
    "    torch: {}\n"
    "  template:\n"
    "    spec:\n"
    "      replicatedJobs:\n"
    "        - name: node\n"
    "          template:\n"
    "            metadata:\n"
    "              labels:\n"
    "                trainer.kubeflow.org/trainjob-ancestor-step: trainer\n"
    "            spec:\n"
    "              template:\n"
    "                spec:\n"
    "                  containers:\n"
    "                    - name: node\n"
    "                      image: busybox\n"
    "                      command: [torchrun, train.py]\n"
    "                      resources:\n"
    "                        limits:\n"
    "                          nvidia.com/gpu: 4\n";

std::vector<std::string> lint(const std::string& name, const std::string& trainer,
                              model::trainjob::TrainerRelease release = {2, 3, 0}) {
  AvailableRuntimes runtimes;
  collect_runtime(read_one(k_gpu_runtime, "runtime.yaml"), runtimes);
  const std::string job =
      "apiVersion: trainer.kubeflow.org/v1alpha1\n"
      "kind: TrainJob\n"
      "metadata:\n"
      "  name: " +
      name +
      "\n"
      "spec:\n"
      "  runtimeRef:\n"
      "    name: gpu-torch\n"
      "  trainer:\n" +
      trainer;
  return show_all(check_trainer_rules(read_one(job), TrainerRuleOptions{release, &runtimes}));
}

TEST(TrainerLints, ANameTheCrdAdmitsButJobSetRejectsIsAnError) {
  const std::string name = "a-very-long-trainjob-name-that-passes-the-crd-limit";  // 51 characters
  EXPECT_EQ(
      lint(name, "    numNodes: 1\n"),
      (std::vector<std::string>{
          "4:9 error metadata.name [lint.trainjob-name-length]: name '" + name +
          "' has 51 characters: the TrainJob CRD allows 63, but JobSet's webhook allows at most 48 here "
          "(the pod names of 'node' would exceed 63), so the JobSet is rejected and the TrainJob gets no "
          "condition, only a Warning event | hint: use a name of at most 48 characters"}));
  EXPECT_TRUE(lint(std::string(48, 'a'), "    numNodes: 1\n").empty());
  // Past 63 the CRD's own CEL rule rejects it: no lint on top.
  EXPECT_TRUE(lint(std::string(64, 'a'), "    numNodes: 1\n").empty());
}

TEST(TrainerLints, NumNodesBelowOneRunsNoNodePod) {
  EXPECT_EQ(
      lint("tj", "    numNodes: 0\n"),
      (std::vector<std::string>{
          "9:15 error spec.trainer.numNodes [lint.trainjob-num-nodes]: numNodes 0 is admitted (no CRD rule "
          "or webhook bounds it), but Trainer makes it the node Job's parallelism and completions and "
          "PET_NNODES: no node pod runs | hint: set numNodes to 1 or more, or remove it to take the "
          "runtime's mlPolicy.numNodes"}));
  EXPECT_EQ(
      lint("tj", "    numNodes: -2\n"),
      (std::vector<std::string>{
          "9:15 error spec.trainer.numNodes [lint.trainjob-num-nodes]: numNodes -2 is admitted (no CRD rule "
          "or webhook bounds it), but Trainer makes it the node Job's parallelism and completions and "
          "PET_NNODES: no node pod runs (kubeflow/trainer#3809 rejects numNodes below 0 at admission after "
          "v2.3.0) | hint: set numNodes to 1 or more, or remove it to take the runtime's "
          "mlPolicy.numNodes"}));
  EXPECT_TRUE(lint("tj", "    numNodes: 1\n").empty());
  // Past int64 the reader flags the literal and the schema reports it; no lint on top.
  EXPECT_TRUE(lint("tj", "    numNodes: -99999999999999999999\n").empty());
}

TEST(TrainerLints, ATorchCommandWithoutTorchrunGetsNoRankOrWorldSize) {
  EXPECT_EQ(
      lint("tj", "    command: [python, train.py]\n"),
      (std::vector<std::string>{
          "9:14 warning spec.trainer.command [lint.trainjob-no-torchrun]: the torch runtime runs 'python "
          "train.py' without torchrun: Trainer sets only PET_* variables, so RANK, LOCAL_RANK and "
          "WORLD_SIZE are unset and init_process_group(\"env://\") fails | hint: start it with torchrun "
          "(e.g. torchrun train.py), which turns PET_* into RANK/LOCAL_RANK/WORLD_SIZE"}));
  EXPECT_TRUE(lint("tj", "    command: [torchrun, --nnodes=2, train.py]\n").empty());
}

TEST(TrainerLints, MoreProcessesThanGpusPerNode) {
  EXPECT_EQ(
      lint("tj", "    numProcPerNode: 8\n"),
      (std::vector<std::string>{
          "9:21 warning spec.trainer.numProcPerNode [lint.trainjob-nproc-gpus]: numProcPerNode 8 is more "
          "than the 4 GPU(s) each node requests: torchrun starts 8 processes on 4 device(s), and NCCL "
          "fails on a shared GPU | hint: set numProcPerNode to 4 (or leave it unset: auto)"}));
  EXPECT_TRUE(lint("tj", "    numProcPerNode: 4\n").empty());
}

TEST(TrainerLints, AGpuOnlyInTheRuntimeIsIgnoredOnceTheJobSetsResources) {
  const std::string cpu_only = "    resourcesPerNode:\n      requests:\n        cpu: '8'\n";
  const std::string start =
      "10:7 warning spec.trainer.resourcesPerNode [lint.trainjob-runtime-gpu]: the runtime's node container "
      "requests a GPU but trainer.resourcesPerNode does not: Trainer reads only the TrainJob's resources, so "
      "PET_NPROC_PER_NODE=8 instead of auto";
  const std::string hint =
      " | hint: repeat the runtime's GPU request in trainer.resourcesPerNode, or set numProcPerNode";
  EXPECT_EQ(lint("tj", cpu_only), std::vector<std::string>{start + hint});
  EXPECT_EQ(lint("tj", cpu_only, {2, 2, 1}),
            std::vector<std::string>{
                start + " (and v2.2.1 replaces the runtime's resources, so the pod gets no GPU)" + hint});
  EXPECT_TRUE(lint("tj", "    numNodes: 2\n").empty());
}

// kubeflow/trainer#3809 (master after v2.3.0) bounds numNodes and numProcPerNode at admission; every
// release we carry admits them, so each is a lint for each release, naming the change.
TEST(TrainerLints, Trainer3809BoundsAreLintsForEveryCarriedRelease) {
  const std::string nproc_zero =
      "9:21 error spec.trainer.numProcPerNode [lint.trainjob-num-proc-per-node]: numProcPerNode 0 is "
      "admitted "
      "(no CRD rule or webhook bounds it), but Trainer passes it to every node as PET_NPROC_PER_NODE (torch) "
      "or its hostfile slots (MPI): the pods fail when they start (kubeflow/trainer#3809 rejects "
      "numProcPerNode below 1 at admission after v2.3.0) | hint: set numProcPerNode to 1 or more, or remove "
      "it to take the runtime's";
  for (const auto release : model::trainjob::k_trainer_releases) {
    SCOPED_TRACE(release.to_string());
    EXPECT_EQ(lint("tj", "    numProcPerNode: 0\n", release), std::vector<std::string>{nproc_zero});
    EXPECT_EQ(lint("tj", "    numProcPerNode: -5\n", release).size(), 1U);
    EXPECT_EQ(lint("tj", "    numNodes: -1\n", release).size(), 1U);
    EXPECT_TRUE(lint("tj", "    numProcPerNode: 1\n", release).empty());
  }
  // "auto" (IntOrString before v2.2) is not a number: no lint.
  EXPECT_TRUE(lint("tj", "    numProcPerNode: auto\n", {2, 1, 0}).empty());
}

TEST(TrainerLints, NumNodesBelowZeroIsAnErrorWithAnMpiRuntimeToo) {
  const std::string job =
      "apiVersion: trainer.kubeflow.org/v1alpha1\nkind: TrainJob\nmetadata:\n  name: ds\nspec:\n"
      "  runtimeRef:\n    name: deepspeed-distributed\n  trainer:\n";
  const auto check = [&](const std::string& trainer) {
    return show_all(check_trainer_rules(read_one(job + trainer), TrainerRuleOptions{}));
  };
  EXPECT_EQ(
      check("    numNodes: -1\n"),
      (std::vector<std::string>{
          "9:15 error spec.trainer.numNodes [lint.trainjob-num-nodes]: numNodes -1 is admitted (no CRD "
          "rule or webhook bounds it), but Trainer makes it the node Job's parallelism and completions: "
          "no node pod runs (kubeflow/trainer#3809 rejects numNodes below 0 at admission after v2.3.0) | "
          "hint: set numNodes to 1 or more, or remove it to take the runtime's mlPolicy.numNodes"}));
  EXPECT_TRUE(check("    numNodes: 0\n").empty());  // still admitted upstream: JobSet's replicas may be 0
  EXPECT_EQ(check("    numProcPerNode: 0\n").size(), 1U);
}

TEST(TrainerLints, AnMpiRuntimeWithFewerThanOneSlotPerNode) {
  const std::string runtime =
      "apiVersion: trainer.kubeflow.org/v1alpha1\n"
      "kind: ClusterTrainingRuntime\n"
      "metadata:\n"
      "  name: mpi\n"
      "  labels:\n"
      "    trainer.kubeflow.org/webhook-validation: disabled\n"
      "spec:\n"
      "  mlPolicy:\n"
      "    numNodes: 2\n"
      "    mpi:\n"
      "      numProcPerNode: 0\n";
  EXPECT_EQ(
      show_all(check_trainer_rules(read_one(runtime, "runtime.yaml"), TrainerRuleOptions{})),
      (std::vector<std::string>{
          "11:23 error spec.mlPolicy.mpi.numProcPerNode [lint.runtime-mpi-num-proc-per-node]: numProcPerNode "
          "0 "
          "is admitted (no CRD rule or webhook bounds it), but Trainer writes it into the OpenMPI hostfile "
          "as "
          "each node's slots and into OMPI_MCA_orte_set_default_slots: the hostfile is invalid and the "
          "TrainJobs of this runtime fail when their pods start (kubeflow/trainer#3809 rejects "
          "numProcPerNode "
          "below 1 at admission after v2.3.0) | hint: set numProcPerNode to 1 or more, or remove it to take "
          "the default 1"}));
  std::string fine = runtime;
  fine.replace(fine.find("numProcPerNode: 0"), 17, "numProcPerNode: 4");
  EXPECT_TRUE(show_all(check_trainer_rules(read_one(fine, "runtime.yaml"), TrainerRuleOptions{})).empty());
}

}  // namespace
}  // namespace kpt::schema::rules
