#include "schema/rules/trainer_rules.hpp"

#include "tests/unit/schema/rules_fixtures.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace kpt::schema::rules {
namespace {

using model::trainjob::AvailableRuntimes;
using model::trainjob::TrainerRelease;
using test::read_one;
using test::show_all;

std::vector<std::string> check(const std::string& yaml, TrainerRelease release = {2, 3, 0},
                               const AvailableRuntimes* runtimes = nullptr) {
  return show_all(check_trainer_rules(read_one(yaml), TrainerRuleOptions{release, runtimes}));
}

const std::string k_head =
    "apiVersion: trainer.kubeflow.org/v1alpha1\n"
    "kind: TrainJob\n"
    "metadata:\n"
    "  name: tj\n"
    "spec:\n";

TEST(TrainerRules, AJobOnAShippedRuntimeWithItsOwnEnvIsClean) {
  EXPECT_TRUE(check(k_head + "  runtimeRef:\n"
                             "    name: torch-distributed\n"
                             "  trainer:\n"
                             "    numNodes: 2\n"
                             "    env:\n"
                             "      - name: PYTHONUNBUFFERED\n"
                             "        value: '1'\n")
                  .empty());
}

TEST(TrainerRules, AMissingRuntimeIsTheWebhooksDenialWithWhereToLook) {
  const std::vector<std::string> cluster = {
      "7:5 error spec.runtimeRef [trainer.runtime-ref]: clustertrainingruntimes.trainer.kubeflow.org "
      "\"nosuch\" "
      "not found: specified clusterTrainingRuntime must be created before the TrainJob is created | hint: "
      "create the runtime first, validate its file together with this one, or name one that Trainer v2.3.0 "
      "ships: deepspeed-distributed, mlx-distributed, torch-distributed, jax-distributed, "
      "xgboost-distributed, torchtune-llama3.2-1b, torchtune-llama3.2-3b, torchtune-qwen2.5-1.5b"};
  EXPECT_EQ(check(k_head + "  runtimeRef:\n    name: nosuch\n"), cluster);
  const std::string hint = cluster[0].substr(cluster[0].find(" | hint: "));
  EXPECT_EQ(
      check(k_head + "  runtimeRef:\n    name: mine\n    kind: TrainingRuntime\n"),
      (std::vector<std::string>{
          "7:5 error spec.runtimeRef [trainer.runtime-ref]: trainingruntimes.trainer.kubeflow.org \"mine\" "
          "not found: specified trainingRuntime must be created before the TrainJob is created" +
          hint}));
  EXPECT_EQ(check(k_head + "  runtimeRef:\n    name: x\n    kind: Foo\n    apiGroup: example.com\n"),
            (std::vector<std::string>{"7:5 error spec.runtimeRef [trainer.runtime-ref]: unsupported runtime: "
                                      "Foo.example.com | hint: use kind TrainingRuntime or "
                                      "ClusterTrainingRuntime in apiGroup trainer.kubeflow.org"}));
}

TEST(TrainerRules, ARuntimeOfTheSameInputIsFoundInItsNamespace) {
  const auto runtime = read_one(
      "apiVersion: trainer.kubeflow.org/v1alpha1\n"
      "kind: TrainingRuntime\n"
      "metadata:\n"
      "  name: mine\n"
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
      "                    - name: node\n");
  AvailableRuntimes given;
  collect_runtime(runtime, given);
  ASSERT_EQ(given.training_runtimes.size(), 1u);
  EXPECT_TRUE(check(k_head + "  runtimeRef:\n    name: mine\n    kind: TrainingRuntime\n", {2, 3, 0}, &given)
                  .empty());
}

TEST(TrainerRules, ReservedPetNamesInTrainerEnvAreRejectedSorted) {
  EXPECT_EQ(
      check(k_head + "  runtimeRef:\n"
                     "    name: torch-distributed\n"
                     "  trainer:\n"
                     "    env:\n"
                     "      - name: OK\n"
                     "        value: x\n"
                     "      - name: PET_NODE_RANK\n"
                     "        value: '0'\n"
                     "      - name: PET_MASTER_ADDR\n"
                     "        value: localhost\n"),
      (std::vector<std::string>{
          "12:9 error spec.trainer.env [trainer.reserved-env]: must not have reserved envs, invalid envs "
          "configured: [PET_MASTER_ADDR PET_NODE_RANK] | hint: Trainer sets these from numNodes, "
          "numProcPerNode and the JobSet; drop them"}));
}

const std::string k_patch_job = k_head +
                                "  runtimeRef:\n"
                                "    name: torch-distributed\n"
                                "  runtimePatches:\n"
                                "    - manager: platform\n"
                                "      trainingRuntimeSpec:\n"
                                "        template:\n"
                                "          spec:\n"
                                "            replicatedJobs:\n"
                                "              - name: launcher\n"
                                "              - name: node\n"
                                "                template:\n"
                                "                  spec:\n"
                                "                    template:\n"
                                "                      spec:\n"
                                "                        initContainers:\n"
                                "                          - name: fetch\n"
                                "                        containers:\n"
                                "                          - name: node\n"
                                "                            env:\n"
                                "                              - name: A\n"
                                "                                value: b\n";

TEST(TrainerRules, PatchesNamingWhatTheRuntimeLacksAreFindingsAtTheEntry) {
  const std::string p = "spec.runtimePatches[0]";
  const std::string rj = p + ".trainingRuntimeSpec.template.spec.replicatedJobs";
  EXPECT_EQ(
      check(k_patch_job),
      (std::vector<std::string>{
          "9:16 error " + p +
              ".manager [trainer.patch-manager]: must be a domain-prefixed path (such as \"acme.io/foo\") | "
              "hint: name the patch's owner as <domain>/<name>, e.g. example.io/platform-team",
          "14:23 error " + rj +
              "[0].name [trainer.patch-job]: must not have replicated job that doesn't exist in the "
              "runtime job template | hint: the runtime's jobs: node",
          "21:35 error " + rj +
              "[1].template.spec.template.spec.initContainers[0].name [trainer.patch-container]: must not "
              "have initContainer that doesn't exist in the runtime job node | hint: a patch changes "
              "containers the runtime has: node",
          "24:29 error " + rj +
              "[1].template.spec.template.spec.containers[0].env [trainer.patch-env]: must not have envs "
              "for the dataset-initializer, model-initializer, node containers | hint: set the node's env "
              "in spec.trainer.env, an initializer's in spec.initializer"}));
  // v2.0 and v2.1 have no runtimePatches (the schema reports the field); their webhooks check nothing here.
  EXPECT_TRUE(check(k_patch_job, {2, 1, 0}).empty());
}

TEST(TrainerRules, TheManagersHostMustBeADns1123Subdomain) {
  auto job = k_patch_job;
  job.replace(job.find("manager: platform"), 17, "manager: Acme.io/x");
  const auto found = check(job);
  ASSERT_FALSE(found.empty());
  EXPECT_EQ(
      found[0],
      "9:16 error spec.runtimePatches[0].manager [trainer.patch-manager]: a lowercase RFC 1123 subdomain "
      "must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an "
      "alphanumeric character (e.g. 'example.com', regex used for validation is "
      "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*') | hint: name the patch's owner "
      "as <domain>/<name>, e.g. example.io/platform-team");
}

TEST(TrainerRules, TorchtuneAllowsOneNodeAndKeepsItsManagedArgs) {
  const std::string job = k_head +
                          "  runtimeRef:\n"
                          "    name: torchtune-llama3.2-1b\n"
                          "  trainer:\n"
                          "    numNodes: 2\n"
                          "    command: [tune, run]\n"
                          "    args: [output_dir=/tmp/x, epochs=1]\n";
  const std::vector<std::string> v23 = {
      "9:15 error spec.trainer.numNodes [trainer.torchtune-num-nodes]: must be 1 for llama3_2/1B model | "
      "hint: "
      "only llama3_3/70B trains on several nodes",
      "11:12 error spec.trainer.args[0] [trainer.torchtune-args]: must not set immutable config "
      "\"output_dir\" "
      "in trainer args; it is managed by the runtime | hint: drop it: the runtime sets output_dir"};
  EXPECT_EQ(check(job), v23);
  EXPECT_EQ(check(job, {2, 2, 1}), std::vector<std::string>{v23[0]});
}

TEST(TrainerRules, RuntimesKeepTheirTrainerJobAtOneReplicaWithItsContainer) {
  const std::string runtime =
      "apiVersion: trainer.kubeflow.org/v1alpha1\n"
      "kind: ClusterTrainingRuntime\n"
      "metadata:\n"
      "  name: old\n"
      "  labels:\n"
      "    trainer.kubeflow.org/support: deprecated\n"
      "spec:\n"
      "  template:\n"
      "    spec:\n"
      "      replicatedJobs:\n"
      "        - name: node\n"
      "          replicas: 2\n"
      "          template:\n"
      "            metadata:\n"
      "              labels:\n"
      "                trainer.kubeflow.org/trainjob-ancestor-step: trainer\n"
      "            spec:\n"
      "              template:\n"
      "                spec:\n"
      "                  containers:\n"
      "                    - name: main\n";
  EXPECT_EQ(
      check(runtime),
      (std::vector<std::string>{
          "4:3 warning metadata.labels [trainer.deprecated-runtime]: ClusterTrainingRuntime \"old\" is "
          "deprecated and will be removed in a future release of Kubeflow Trainer. See runtime "
          "deprecation policy: "
          "https://trainer.kubeflow.org/en/latest/operator-guides/runtime.html#runtime-deprecation-policy "
          "| hint: move to a supported runtime",
          "12:21 error spec.template.spec.replicatedJobs[0].replicas [trainer.runtime-replicas]: always "
          "must be 1 | hint: a job Trainer fills (trainer) runs once; scale it with numNodes or "
          "parallelism",
          "21:21 error spec.template.spec.replicatedJobs[0].template.spec.template.spec.containers "
          "[trainer.runtime-container]: must contain the required container for the ancestor: trainer | "
          "hint: name the container 'node'"}));
  std::string skipped = runtime;
  skipped.replace(skipped.find("    trainer.kubeflow.org/support: deprecated\n"), 45,
                  "    trainer.kubeflow.org/webhook-validation: disabled\n");
  EXPECT_TRUE(check(skipped).empty());
}

TEST(TrainerRules, ADatasetWithoutAnInitializerJobIsRejected) {
  EXPECT_EQ(check(k_head + "  runtimeRef:\n"
                           "    name: torch-distributed\n"
                           "  initializer:\n"
                           "    dataset:\n"
                           "      storageUri: hf://x\n"),
            (std::vector<std::string>{
                "10:7 error spec.runtimeRef [trainer.initializer]: must have dataset-initializer job when "
                "trainJob is configured with input datasetConfig | hint: name a runtime with a "
                "dataset-initializer job, or drop spec.initializer.dataset"}));
}

}  // namespace
}  // namespace kpt::schema::rules
