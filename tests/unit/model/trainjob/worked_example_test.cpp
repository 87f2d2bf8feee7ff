// The worked example: a two-node TrainJob on torch-distributed, from TrainJob to JobSet to pods.

#include "model/trainjob/build.hpp"
#include "model/trainjob/env_plan.hpp"
#include "model/trainjob/jobset_children.hpp"
#include "tests/unit/model/trainjob/fixtures.hpp"

#include <gtest/gtest.h>

namespace kpt::model::trainjob {
namespace {

using nlohmann::json;
using testing::carried;
using testing::load_fixture;

const json k_rank_ref = {
    {"fieldRef", {{"fieldPath", "metadata.annotations['batch.kubernetes.io/job-completion-index']"}}}};

json expected_multi_node_jobset(const json& trainjob) {
  const json container = {
      {"name", "node"},
      {"image", "pytorch/pytorch:2.13.0-cuda13.0-cudnn9-runtime"},
      {"command", trainjob["spec"]["trainer"]["command"]},
      {"env",
       {{{"name", "PET_NNODES"}, {"value", "2"}},
        {{"name", "PET_NPROC_PER_NODE"}, {"value", "1"}},
        {{"name", "PET_NODE_RANK"}, {"valueFrom", k_rank_ref}},
        {{"name", "PET_MASTER_ADDR"}, {"value", "multi-node-example-node-0-0.multi-node-example"}},
        {{"name", "PET_MASTER_PORT"}, {"value", "29500"}}}},
      {"ports", {{{"containerPort", 29500}}}}};
  const json node_job = {
      {"name", "node"},
      {"replicas", 1},
      {"template",
       {{"metadata", {{"labels", {{"trainer.kubeflow.org/trainjob-ancestor-step", "trainer"}}}}},
        {"spec",
         {{"parallelism", 2},
          {"completions", 2},
          {"template", {{"spec", {{"containers", {container}}}}}}}}}}};
  return {{"apiVersion", "jobset.x-k8s.io/v1alpha2"},
          {"kind", "JobSet"},
          {"metadata",
           {{"name", "multi-node-example"},
            {"namespace", "default"},
            {"ownerReferences",
             {{{"apiVersion", "trainer.kubeflow.org/v1alpha1"},
               {"kind", "TrainJob"},
               {"name", "multi-node-example"},
               {"uid", "0b0e2b4c-1d2e-4f00-9a55-7c1f00000001"},
               {"controller", true},
               {"blockOwnerDeletion", true}}}}}},
          {"spec", {{"suspend", false}, {"replicatedJobs", {node_job}}}}};
}

/// The worked example's JobSet as the API server stores it.
json stored_multi_node_jobset() {
  json jobset = default_jobset(expected_multi_node_jobset(load_fixture("multi-node.yaml")));
  jobset["metadata"]["uid"] = "js-uid";
  return jobset;
}

TEST(WorkedExample, MultiNodeJobSetIsExactlyWhatTrainerApplies) {
  const json trainjob = load_fixture("multi-node.yaml");
  const auto built = build_jobset(trainjob, carried("torch-distributed"), k_newest_trainer_release);
  ASSERT_TRUE(built) << built.error().message;
  EXPECT_EQ(built->jobset, expected_multi_node_jobset(trainjob)) << built->jobset.dump(2);
  EXPECT_EQ(built->framework, Framework::torch);
  EXPECT_EQ(built->num_nodes, 2);
  ASSERT_TRUE(built->nproc);
  EXPECT_EQ(built->nproc->value, "1");
}

TEST(WorkedExample, HeadlessServiceSelectsTheJobSetAndHasNoPorts) {
  const json jobset = stored_multi_node_jobset();
  const auto service = headless_service(jobset);
  ASSERT_TRUE(service);
  const json expected = {{"apiVersion", "v1"},
                         {"kind", "Service"},
                         {"metadata",
                          {{"name", "multi-node-example"},
                           {"namespace", "default"},
                           {"ownerReferences",
                            {{{"apiVersion", "jobset.x-k8s.io/v1alpha2"},
                              {"kind", "JobSet"},
                              {"name", "multi-node-example"},
                              {"uid", "js-uid"},
                              {"controller", true},
                              {"blockOwnerDeletion", true}}}}}},
                         {"spec",
                          {{"clusterIP", "None"},
                           {"selector", {{"jobset.sigs.k8s.io/jobset-name", "multi-node-example"}}},
                           {"publishNotReadyAddresses", true}}}};
  EXPECT_EQ(*service, expected);
}

TEST(WorkedExample, OneIndexedJobWithTheAncestorLabelAndEveryJobSetKey) {
  const json jobset = stored_multi_node_jobset();
  const auto jobs = desired_jobs(jobset);
  ASSERT_EQ(jobs.size(), 1u);
  const json& job = jobs[0];
  EXPECT_EQ(job["metadata"]["name"], "multi-node-example-node-0");
  EXPECT_EQ(job["spec"]["completionMode"], "Indexed");
  EXPECT_EQ(job["spec"]["parallelism"], 2);
  EXPECT_EQ(job["spec"]["completions"], 2);
  EXPECT_EQ(job["spec"]["suspend"], false);
  EXPECT_EQ(job["spec"]["template"]["spec"]["restartPolicy"], "OnFailure");
  EXPECT_EQ(job["spec"]["template"]["spec"]["subdomain"], "multi-node-example");
  const json keys = {{"jobset.sigs.k8s.io/jobset-name", "multi-node-example"},
                     {"jobset.sigs.k8s.io/jobset-uid", "js-uid"},
                     {"jobset.sigs.k8s.io/replicatedjob-name", "node"},
                     {"jobset.sigs.k8s.io/restart-attempt", "0"},
                     {"jobset.sigs.k8s.io/replicatedjob-replicas", "1"},
                     {"jobset.sigs.k8s.io/global-replicas", "1"},
                     {"jobset.sigs.k8s.io/job-index", "0"},
                     {"jobset.sigs.k8s.io/job-key", "65669d389c5e534c162a3d66e7ae429e92b5239b"},
                     {"jobset.sigs.k8s.io/job-global-index", "0"},
                     {"jobset.sigs.k8s.io/group-name", "default"},
                     {"jobset.sigs.k8s.io/group-replicas", "1"},
                     {"jobset.sigs.k8s.io/job-group-index", "0"}};
  json job_labels = keys;
  job_labels["trainer.kubeflow.org/trainjob-ancestor-step"] = "trainer";
  EXPECT_EQ(job["metadata"]["labels"], job_labels);
  EXPECT_EQ(job["metadata"]["annotations"], keys);
  EXPECT_EQ(job["spec"]["template"]["metadata"]["labels"], keys);
  EXPECT_EQ(job["spec"]["template"]["metadata"]["annotations"], keys);
}

TEST(WorkedExample, PodsHaveTheJobSetNamesHostnamesLabelsAndEnvInOrder) {
  const json jobset = stored_multi_node_jobset();
  const json job = created_job(desired_jobs(jobset)[0], "job-uid");
  const auto pods = desired_pods(jobset, {job}, [](const std::string&, std::int64_t k) {
    return std::string(k == 0 ? "abcde" : "fghij");
  });
  ASSERT_EQ(pods.size(), 2u);
  for (std::int64_t k = 0; k < 2; ++k) {
    SCOPED_TRACE(k);
    const json& pod = pods[static_cast<std::size_t>(k)];
    const std::string ks = std::to_string(k);
    EXPECT_EQ(pod["metadata"]["generateName"], "multi-node-example-node-0-" + ks + "-");
    EXPECT_EQ(pod["metadata"]["name"], "multi-node-example-node-0-" + ks + (k == 0 ? "-abcde" : "-fghij"));
    EXPECT_EQ(pod["spec"]["hostname"], "multi-node-example-node-0-" + ks);
    EXPECT_EQ(pod["spec"]["subdomain"], "multi-node-example");
    const json& labels = pod["metadata"]["labels"];
    EXPECT_EQ(labels["jobset.sigs.k8s.io/job-key"], "65669d389c5e534c162a3d66e7ae429e92b5239b");
    EXPECT_EQ(labels["batch.kubernetes.io/job-completion-index"], ks);
    EXPECT_EQ(labels["batch.kubernetes.io/job-name"], "multi-node-example-node-0");
    EXPECT_EQ(labels["batch.kubernetes.io/controller-uid"], "job-uid");
    EXPECT_EQ(labels["job-name"], "multi-node-example-node-0");
    EXPECT_EQ(labels["controller-uid"], "job-uid");
    EXPECT_EQ(labels["jobset.sigs.k8s.io/priority"], "0");
    EXPECT_FALSE(labels.contains("trainer.kubeflow.org/trainjob-ancestor-step"));
    EXPECT_EQ(pod["metadata"]["annotations"]["batch.kubernetes.io/job-completion-index"], ks);
    const json& node = pod["spec"]["containers"][0];
    EXPECT_EQ(testing::env_names(node),
              (std::vector<std::string>{"PET_NNODES", "PET_NPROC_PER_NODE", "PET_NODE_RANK",
                                        "PET_MASTER_ADDR", "PET_MASTER_PORT", "JOB_COMPLETION_INDEX"}));
    EXPECT_EQ(testing::env_of(node, "JOB_COMPLETION_INDEX")["valueFrom"]["fieldRef"]["fieldPath"],
              "metadata.labels['batch.kubernetes.io/job-completion-index']");
  }
}

TEST(WorkedExample, EnvPlanResolvesTheRankPerPodAndExplainsTheWorldSize) {
  const auto plan =
      plan_env(load_fixture("multi-node.yaml"), carried("torch-distributed"), k_newest_trainer_release);
  ASSERT_TRUE(plan) << plan.error().message;
  ASSERT_EQ(plan->pods.size(), 2u);
  EXPECT_EQ(plan->master_addr, "multi-node-example-node-0-0.multi-node-example");
  EXPECT_EQ(plan->master_port, 29500);
  const std::string rank_ref = "fieldRef metadata.annotations['batch.kubernetes.io/job-completion-index']";
  const std::string index_ref = "fieldRef metadata.labels['batch.kubernetes.io/job-completion-index']";
  const std::vector<ResolvedEnv> pod1 = {
      {"PET_NNODES", "2", "", true},
      {"PET_NPROC_PER_NODE", "1", "", true},
      {"PET_NODE_RANK", "1", rank_ref, true},
      {"PET_MASTER_ADDR", "multi-node-example-node-0-0.multi-node-example", "", true},
      {"PET_MASTER_PORT", "29500", "", true},
      {"JOB_COMPLETION_INDEX", "1", index_ref, true}};
  EXPECT_EQ(plan->pods[1].resolved, pod1);
  EXPECT_EQ(plan->pods[1].hostname, "multi-node-example-node-0-1");
  EXPECT_EQ(plan->pods[1].generate_name, "multi-node-example-node-0-1-");
  const std::vector<std::string> notes = {
      "torchrun, not Trainer, sets RANK, LOCAL_RANK and WORLD_SIZE for each process it starts, from these "
      "PET_* "
      "variables; a plain `python train.py` sees none of them",
      "world size = PET_NNODES x PET_NPROC_PER_NODE = 2 x 1 = 2",
      "PET_NPROC_PER_NODE=1: numProcPerNode is auto and no resources are declared, so Trainer counts CPUs: "
      "max(1, 0) "
      "rounded up",
      "PET_MASTER_ADDR multi-node-example-node-0-0.multi-node-example is the hostname of node 0 in the "
      "headless "
      "Service 'multi-node-example'; the short name resolves only inside namespace 'default'",
      "JOB_COMPLETION_INDEX is added by the Job controller; it equals the node rank k"};
  EXPECT_EQ(plan->notes, notes);
}

TEST(WorkedExample, RuntimePatchesVariantKeepsEnvOrderResourcesAndPatchMetadataOnTheJobSetOnly) {
  const json trainjob = load_fixture("runtime-patches.yaml");
  const auto built = build_jobset(trainjob, carried("torch-distributed"), k_newest_trainer_release);
  ASSERT_TRUE(built) << built.error().message;
  const json& js = built->jobset;
  EXPECT_EQ(js["metadata"]["labels"], (json{{"team", "ml-platform"}, {"cost-center", "research"}}));
  EXPECT_EQ(js["metadata"]["annotations"],
            (json{{"prometheus.io/scrape", "true"}, {"prometheus.io/port", "8080"}}));
  const json node = testing::container_of(js, "node", "node");
  EXPECT_EQ(testing::env_names(node),
            (std::vector<std::string>{"CUSTOM_VAR", "PYTHONUNBUFFERED", "PET_NNODES", "PET_NPROC_PER_NODE",
                                      "PET_NODE_RANK", "PET_MASTER_ADDR", "PET_MASTER_PORT"}));
  EXPECT_EQ(testing::env_of(node, "PET_NPROC_PER_NODE")["value"], "2");
  EXPECT_EQ(testing::env_of(node, "PET_MASTER_ADDR")["value"],
            "runtime-patches-example-node-0-0.runtime-patches-example");
  EXPECT_EQ(node["resources"], trainjob["spec"]["trainer"]["resourcesPerNode"]);
  const json& pod_spec = js["spec"]["replicatedJobs"][0]["template"]["spec"]["template"]["spec"];
  EXPECT_EQ(pod_spec["serviceAccountName"], "training-sa");
  EXPECT_EQ(pod_spec["nodeSelector"], (json{{"node-type", "training"}}));
  EXPECT_EQ(pod_spec["tolerations"].size(), 1u);
  EXPECT_FALSE(js["spec"]["replicatedJobs"][0]["template"]["spec"]["template"].contains("metadata"));

  json defaulted = default_jobset(js);
  defaulted["metadata"]["uid"] = "js-uid";
  const auto pods = desired_pods(defaulted, {created_job(desired_jobs(defaulted)[0], "u")},
                                 [](const std::string&, std::int64_t) { return std::string("xxxxx"); });
  ASSERT_EQ(pods.size(), 2u);
  EXPECT_EQ(pods[0]["spec"]["serviceAccountName"], "training-sa");
  EXPECT_FALSE(pods[0]["metadata"]["labels"].contains("team"));
  EXPECT_FALSE(pods[0]["metadata"]["annotations"].contains("prometheus.io/scrape"));
}

}  // namespace
}  // namespace kpt::model::trainjob
