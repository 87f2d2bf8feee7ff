// The JobSet build per release: overrides, resources, framework plugins, initializers.

#include "model/trainjob/build.hpp"

#include "tests/unit/model/trainjob/fixtures.hpp"

#include <gtest/gtest.h>

namespace kpt::model::trainjob {
namespace {

using nlohmann::json;
using testing::carried;
using testing::container_of;
using testing::env_names;
using testing::env_of;
using testing::load_fixture;

json pod_spec_of(const json& jobset, std::size_t job = 0) {
  return jobset["spec"]["replicatedJobs"][job]["template"]["spec"]["template"]["spec"];
}

json build(const json& trainjob, const json& runtime, TrainerRelease release) {
  auto built = build_jobset(trainjob, runtime, release);
  EXPECT_TRUE(built) << (built ? "" : built.error().message);
  return built ? built->jobset : json::object();
}

json trainjob(const json& spec) {
  return {{"metadata", {{"name", "tj"}, {"namespace", "ns"}, {"uid", "u"}}}, {"spec", spec}};
}

/// A torch runtime with one trainer job whose `node` container is `node`, plus extra pod spec fields.
json torch_runtime(const json& node, const json& pod_extra = json::object(),
                   const json& torch = json::object()) {
  json pod = {{"containers", {node}}};
  for (const auto& [k, v] : pod_extra.items()) pod[k] = v;
  return {{"apiVersion", "trainer.kubeflow.org/v1alpha1"},
          {"kind", "ClusterTrainingRuntime"},
          {"metadata", {{"name", "rt"}}},
          {"spec",
           {{"mlPolicy", {{"numNodes", 1}, {"torch", torch}}},
            {"template",
             {{"spec",
               {{"replicatedJobs",
                 {{{"name", "node"},
                   {"template",
                    {{"metadata", {{"labels", {{"trainer.kubeflow.org/trainjob-ancestor-step", "trainer"}}}}},
                     {"spec", {{"template", {{"spec", pod}}}}}}}}}}}}}}}}};
}

TEST(BuildJobSet, TheMultiNodeExampleOnEachRelease) {
  const json tj = load_fixture("multi-node.yaml");
  for (const auto& release : k_trainer_releases) {
    SCOPED_TRACE(release.to_string());
    const json js = build(tj, carried("torch-distributed", release), release);
    const json node = container_of(js, "node", "node");
    EXPECT_EQ(node["image"], features_of(release).pytorch_image);
    EXPECT_EQ(node["command"], tj["spec"]["trainer"]["command"]);
    // v2.0 passes the runtime's "auto" through when the TrainJob declares no resources.
    EXPECT_EQ(env_of(node, "PET_NPROC_PER_NODE")["value"], release.at_least(1) ? "1" : "auto");
    EXPECT_EQ(env_names(node), (std::vector<std::string>{"PET_NNODES", "PET_NPROC_PER_NODE", "PET_NODE_RANK",
                                                         "PET_MASTER_ADDR", "PET_MASTER_PORT"}));
    EXPECT_EQ(node["ports"], (json{{{"containerPort", 29500}}}));
    EXPECT_EQ(js["spec"]["replicatedJobs"][0]["template"]["spec"]["parallelism"], 2);
  }
}

TEST(BuildJobSet, WithoutSpecTrainerNoEnvNoPortAndTheRuntimeDefaults) {
  const json tj = trainjob({{"runtimeRef", {{"name", "torch-distributed"}}}});
  const json js = build(tj, carried("torch-distributed"), k_newest_trainer_release);
  const json node = container_of(js, "node", "node");
  EXPECT_FALSE(node.contains("env"));
  EXPECT_FALSE(node.contains("ports"));
  EXPECT_EQ(js["spec"]["replicatedJobs"][0]["template"]["spec"]["completions"], 1);
}

TEST(BuildJobSet, V20PodSpecOverridesAndSpecLabels) {
  const json tj = trainjob(json::parse(R"({
    "runtimeRef": {"name": "rt"}, "trainer": {"numNodes": 1},
    "labels": {"team": "a"}, "annotations": {"note": "x"},
    "podSpecOverrides": [{"targetJobs": [{"name": "node"}], "serviceAccountName": "sa",
                          "nodeSelector": {"pool": "gpu"},
                          "containers": [{"name": "node", "volumeMounts": [{"name": "d", "mountPath": "/d"}]}],
                          "volumes": [{"name": "d", "emptyDir": {}}]},
                         {"targetJobs": [{"name": "other"}], "serviceAccountName": "ignored"}]})"));
  const json js = build(tj, torch_runtime({{"name", "node"}, {"image", "img"}}), {2, 0, 1});
  EXPECT_EQ(js["metadata"]["labels"], (json{{"team", "a"}}));
  EXPECT_EQ(js["metadata"]["annotations"], (json{{"note", "x"}}));
  const json pod = pod_spec_of(js);
  EXPECT_EQ(pod["serviceAccountName"], "sa");
  EXPECT_EQ(pod["nodeSelector"], (json{{"pool", "gpu"}}));
  EXPECT_EQ(pod["volumes"], json::parse(R"([{"name": "d", "emptyDir": {}}])"));
  EXPECT_EQ(pod["containers"][0]["volumeMounts"], json::parse(R"([{"name": "d", "mountPath": "/d"}])"));
  EXPECT_FALSE(pod.contains("targetJobs"));
}

TEST(BuildJobSet, V21PodTemplateOverridesReachThePodTemplateMetadata) {
  const json tj = trainjob(json::parse(R"({
    "runtimeRef": {"name": "rt"}, "trainer": {},
    "podTemplateOverrides": [{"targetJobs": [{"name": "node"}],
                              "metadata": {"labels": {"kueue": "x"}, "annotations": {"a": "b"}},
                              "spec": {"imagePullSecrets": [{"name": "regcred"}],
                                       "affinity": {"nodeAffinity": {}}}}]})"));
  const json js = build(tj, torch_runtime({{"name", "node"}, {"image", "img"}}), {2, 1, 0});
  const json tmpl = js["spec"]["replicatedJobs"][0]["template"]["spec"]["template"];
  EXPECT_EQ(tmpl["metadata"], json::parse(R"({"labels": {"kueue": "x"}, "annotations": {"a": "b"}})"));
  EXPECT_EQ(tmpl["spec"]["imagePullSecrets"], json::parse(R"([{"name": "regcred"}])"));
  EXPECT_TRUE(tmpl["spec"].contains("affinity"));
  // v2.2 no longer reads podTemplateOverrides (the field is gone from its CRD).
  const json v22 = build(tj, torch_runtime({{"name", "node"}, {"image", "img"}}), {2, 2, 0});
  EXPECT_FALSE(v22["spec"]["replicatedJobs"][0]["template"]["spec"]["template"].contains("metadata"));
}

json patch_with_jobs(const json& jobs, const json& metadata = json::object()) {
  return {{"manager", "example.io/x"},
          {"trainingRuntimeSpec",
           {{"template", {{"metadata", metadata}, {"spec", {{"replicatedJobs", jobs}}}}}}}};
}

TEST(BuildJobSet, V22PatchesMergeOnlyIntoJobsTheRuntimeHas) {
  const json jobs = json::parse(R"([
    {"name": "node", "template": {"spec": {"template": {"spec": {"tolerations": [], "nodeSelector": {"a": "b"}}}}}},
    {"name": "extra", "template": {"spec": {}}}])");
  const json tj = trainjob({{"runtimeRef", {{"name", "rt"}}},
                            {"trainer", json::object()},
                            {"runtimePatches", {patch_with_jobs(jobs, {{"labels", {{"l", "1"}}}})}}});
  const json runtime =
      torch_runtime({{"name", "node"}, {"image", "img"}}, {{"tolerations", {{{"key", "keep"}}}}});
  const json js = build(tj, runtime, {2, 2, 0});
  ASSERT_EQ(js["spec"]["replicatedJobs"].size(), 1u);
  EXPECT_EQ(pod_spec_of(js)["tolerations"],
            (json{{{"key", "keep"}}}));  // an empty list is dropped by omitempty
  EXPECT_EQ(pod_spec_of(js)["nodeSelector"], (json{{"a", "b"}}));
  EXPECT_EQ(js["metadata"]["labels"], (json{{"l", "1"}}));
}

TEST(BuildJobSet, V23PatchesMergeOverTheWholeSpecAndRestoreTheJobOrder) {
  const json runtime = load_fixture("dataset-init.yaml", 0);
  json tj = load_fixture("dataset-init.yaml", 1);
  tj["spec"]["runtimePatches"] =
      json::array({patch_with_jobs(json::parse(R"([{"name": "extra"}, {"name": "node",
      "template": {"spec": {"template": {"spec": {"schedulingGates": [{"name": "wait"}]}}}}}])"))});
  const json js = build(tj, runtime, {2, 3, 0});
  std::vector<std::string> order;
  for (const auto& job : js["spec"]["replicatedJobs"]) order.push_back(job["name"]);
  // A job the runtime lacks ranks with the runtime's first job, so the stable sort puts it second.
  EXPECT_EQ(order, (std::vector<std::string>{"dataset-initializer", "extra", "node"}));
  EXPECT_EQ(pod_spec_of(js, 2)["schedulingGates"], (json{{{"name", "wait"}}}));
  // v2.2 drops the unknown job.
  EXPECT_EQ(build(tj, runtime, {2, 2, 1})["spec"]["replicatedJobs"].size(), 2u);
}

TEST(BuildJobSet, ResourcesPerNodeReplacedBeforeV23AndMergedFromV23) {
  const json runtime_node = json::parse(R"({"name": "node", "image": "img", "resources": {
      "requests": {"cpu": "1", "memory": "2Gi"}, "limits": {"nvidia.com/gpu": 1}, "claims": [{"name": "c"}]}})");
  const json tj = trainjob(json::parse(R"({"runtimeRef": {"name": "rt"},
      "trainer": {"resourcesPerNode": {"requests": {"cpu": "4"}, "claims": [{"name": "d"}]}}})"));
  const json runtime = torch_runtime(runtime_node);
  const json v22 = container_of(build(tj, runtime, {2, 2, 1}), "node", "node");
  EXPECT_EQ(v22["resources"], json::parse(R"({"requests": {"cpu": "4"}})"));
  const auto v23 = build_jobset(tj, runtime, {2, 3, 0});
  ASSERT_TRUE(v23);
  EXPECT_EQ(container_of(v23->jobset, "node", "node")["resources"],
            json::parse(R"({"requests": {"cpu": "4", "memory": "2Gi"}, "limits": {"nvidia.com/gpu": 1}})"));
  // The pod keeps the runtime's GPU, but NPROC reads the raw TrainJob resources: CPU count.
  EXPECT_EQ(v23->nproc->value, "4");
  EXPECT_TRUE(v23->nproc->runtime_gpu_ignored);
}

TEST(BuildJobSet, V23EnvInjectionTargetsGetAllFivePetVariables) {
  const json runtime = torch_runtime(
      {{"name", "node"}, {"image", "img"}},
      {{"containers", {{{"name", "node"}, {"image", "img"}}, {{"name", "sidecar"}, {"image", "s"}}}},
       {"initContainers", {{{"name", "preflight"}, {"image", "p"}}}}},
      {{"envInjection",
        {{"targets", {{{"jobName", "node"}, {"containerNames", {"sidecar", "preflight"}}}}}}}});
  const json tj = trainjob({{"runtimeRef", {{"name", "rt"}}}, {"trainer", {{"numNodes", 2}}}});
  const json js = build(tj, runtime, {2, 3, 0});
  const std::vector<std::string> five = {"PET_NNODES", "PET_NPROC_PER_NODE", "PET_NODE_RANK",
                                         "PET_MASTER_ADDR", "PET_MASTER_PORT"};
  EXPECT_EQ(env_names(container_of(js, "node", "sidecar")), five);
  EXPECT_EQ(env_names(pod_spec_of(js)["initContainers"][0]), five);
  EXPECT_FALSE(container_of(js, "node", "sidecar").contains("ports"));
  EXPECT_FALSE(container_of(build(tj, runtime, {2, 2, 1}), "node", "sidecar").contains("env"));

  json missing = runtime;
  missing["spec"]["mlPolicy"]["torch"]["envInjection"]["targets"][0]["containerNames"] = {"ghost"};
  const auto failed = build_jobset(tj, missing, {2, 3, 0});
  ASSERT_FALSE(failed);
  EXPECT_EQ(failed.error().message,
            "envInjection target podSet \"node\" container \"ghost\" not found in runtime template");
}

TEST(BuildJobSet, TorchtuneExtendsTheCommandAndSetsNoMasterVariables) {
  const json tj = trainjob(
      {{"runtimeRef", {{"name", "torchtune-llama3.2-1b"}}}, {"trainer", {{"command", {"tune", "run"}}}}});
  const auto built = build_jobset(tj, carried("torchtune-llama3.2-1b"), {2, 3, 0});
  ASSERT_TRUE(built) << built.error().message;
  EXPECT_EQ(built->framework, Framework::torchtune);
  const json node = container_of(built->jobset, "node", "node");
  EXPECT_EQ(node["command"], json::parse(R"(["tune", "run", "--rdzv_endpoint=tj-node-0-0.tj:29500",
      "full_finetune_distributed", "--config", "llama3_2/1B_full", "output_dir=/workspace/output",
      "tokenizer.path=/workspace/model/original/tokenizer.model", "checkpointer.checkpoint_dir=/workspace/model"])"));
  EXPECT_EQ(env_names(node), (std::vector<std::string>{"PET_NNODES", "PET_NPROC_PER_NODE", "PET_NODE_RANK"}));
  EXPECT_EQ(env_of(node, "PET_NPROC_PER_NODE")["value"], "auto");  // the runtime's 2 GPUs
}

TEST(BuildJobSet, JaxAndXgboostEnvFromV22) {
  const json tj = trainjob(json::parse(R"({"runtimeRef": {"name": "x"},
      "trainer": {"numNodes": 3, "env": [{"name": "USER_VAR", "value": "1"}]}})"));
  const json jax = container_of(build(tj, carried("jax-distributed"), {2, 3, 0}), "node", "node");
  EXPECT_EQ(env_names(jax), (std::vector<std::string>{"JAX_NUM_PROCESSES", "JAX_PROCESS_ID",
                                                      "JAX_COORDINATOR_ADDRESS", "USER_VAR"}));
  EXPECT_EQ(env_of(jax, "JAX_COORDINATOR_ADDRESS")["value"], "tj-node-0-0.tj:29500");
  EXPECT_EQ(env_of(jax, "JAX_NUM_PROCESSES")["value"], "3");

  json gpu_tj = tj;
  gpu_tj["spec"]["trainer"]["resourcesPerNode"] = {{"limits", {{"nvidia.com/gpu", 4}}}};
  const auto xgb = build_jobset(gpu_tj, carried("xgboost-distributed"), {2, 2, 0});
  ASSERT_TRUE(xgb);
  const json node = container_of(xgb->jobset, "node", "node");
  EXPECT_EQ(env_names(node), (std::vector<std::string>{"USER_VAR", "DMLC_TRACKER_URI", "DMLC_TRACKER_PORT",
                                                       "DMLC_TASK_ID", "DMLC_NUM_WORKER"}));
  EXPECT_EQ(env_of(node, "DMLC_NUM_WORKER")["value"], "12");
  EXPECT_EQ(xgb->notes.size(), 1u);

  // v2.1's CRD has no mlPolicy.jax: the API server prunes it and PlainML handles the job.
  const auto v21 = build_jobset(tj, carried("jax-distributed", {2, 3, 0}), {2, 1, 0});
  ASSERT_TRUE(v21);
  EXPECT_EQ(v21->framework, Framework::plain);
  EXPECT_EQ(env_names(container_of(v21->jobset, "node", "node")), (std::vector<std::string>{"USER_VAR"}));
}

TEST(BuildJobSet, PlainRuntimeCopiesNumNodesAndEnvOnly) {
  json runtime = torch_runtime(
      json::parse(R"({"name": "node", "image": "img", "env": [{"name": "USER_VAR", "value": "0"}]})"));
  runtime["spec"].erase("mlPolicy");
  const json tj = trainjob(json::parse(R"({"runtimeRef": {"name": "rt"},
      "trainer": {"numNodes": 3, "env": [{"name": "USER_VAR", "value": "1"}, {"name": "B"}]}})"));
  const auto built = build_jobset(tj, runtime, {2, 3, 0});
  ASSERT_TRUE(built);
  EXPECT_EQ(built->framework, Framework::plain);
  EXPECT_EQ(built->jobset["spec"]["replicatedJobs"][0]["template"]["spec"]["parallelism"], 3);
  EXPECT_EQ(container_of(built->jobset, "node", "node")["env"],
            json::parse(R"([{"name": "USER_VAR", "value": "1"}, {"name": "B", "value": ""}])"));
}

TEST(BuildJobSet, MpiAndFluxAreNotModelled) {
  const json tj =
      trainjob({{"runtimeRef", {{"name", "deepspeed-distributed"}}}, {"trainer", json::object()}});
  const auto mpi = build_jobset(tj, carried("deepspeed-distributed"), {2, 3, 0});
  ASSERT_FALSE(mpi);
  EXPECT_EQ(mpi.error().code, ErrorCode::usage);
  EXPECT_EQ(mpi.error().message,
            "mlPolicy.mpi: the MPI plugin (launcher and node pod counts, the <name>-mpi-ssh-auth Secret, the "
            "<name>-mpi-hostfile ConfigMap, their volumes and OMPI_* env) is not modelled");
  json flux = torch_runtime({{"name", "node"}});
  flux["spec"]["mlPolicy"] = {{"flux", {{"numProcPerNode", 1}}}};
  const auto f = build_jobset(tj, flux, {2, 3, 0});
  ASSERT_FALSE(f);
  EXPECT_EQ(f.error().message, "mlPolicy.flux: the Flux plugin is not modelled");
  EXPECT_FALSE(framework_modelled(Framework::mpi));
  EXPECT_TRUE(framework_modelled(Framework::xgboost));
}

TEST(BuildJobSet, InitializerJobsGetStorageUriEnvAndSecret) {
  const json js =
      build(load_fixture("dataset-init.yaml", 1), load_fixture("dataset-init.yaml", 0), {2, 3, 0});
  const json& init = js["spec"]["replicatedJobs"][0];
  EXPECT_EQ(init["replicas"], 1);
  EXPECT_EQ(init["template"]["spec"]["parallelism"], 1);
  const json c = container_of(js, "dataset-initializer", "dataset-initializer");
  EXPECT_EQ(c["env"], json::parse(R"([{"name": "STORAGE_URI", "value": "hf://tatsu-lab/alpaca"},
                                      {"name": "HF_HUB_OFFLINE", "value": "0"}])"));
  EXPECT_EQ(c["envFrom"], json::parse(R"([{"secretRef": {"name": "hf-secret"}}])"));
  EXPECT_EQ(js["spec"]["replicatedJobs"][1]["dependsOn"],
            json::parse(R"([{"name": "dataset-initializer", "status": "Complete"}])"));
  EXPECT_EQ(js["spec"]["replicatedJobs"][1]["template"]["spec"]["parallelism"], 2);
}

TEST(BuildJobSet, ContainerFieldsFollowTrainersUpsertRules) {
  const json runtime = torch_runtime(json::parse(R"({"name": "node", "image": "img", "command": ["run"],
      "env": [{"name": "A", "value": "runtime"}, {"name": "Z", "value": "z"}],
      "ports": [{"containerPort": 8080}, {"name": "metrics", "containerPort": 9090}]})"));
  const json tj = trainjob(json::parse(R"({"runtimeRef": {"name": "rt"}, "suspend": true,
      "trainer": {"image": "mine", "command": [], "args": ["--x"], "env": [{"name": "A", "value": "mine"}]}})"));
  const json js = build(tj, runtime, {2, 3, 0});
  const json node = container_of(js, "node", "node");
  EXPECT_EQ(node["image"], "mine");
  EXPECT_FALSE(node.contains("command"));  // an empty list set by the TrainJob removes the runtime's
  EXPECT_EQ(node["args"], (json{"--x"}));
  EXPECT_EQ(env_names(node),
            (std::vector<std::string>{"A", "Z", "PET_NNODES", "PET_NPROC_PER_NODE", "PET_NODE_RANK",
                                      "PET_MASTER_ADDR", "PET_MASTER_PORT"}));
  EXPECT_EQ(env_of(node, "A")["value"], "mine");
  // The unnamed runtime port matches the unnamed 29500 by name and is replaced.
  EXPECT_EQ(node["ports"],
            json::parse(R"([{"containerPort": 29500}, {"name": "metrics", "containerPort": 9090}])"));
  EXPECT_EQ(js["spec"]["suspend"], true);
}

TEST(BuildJobSet, APodGroupPolicyIsReportedAsNotModelled) {
  json runtime = carried("torch-distributed");
  runtime["spec"]["podGroupPolicy"] = {{"coscheduling", {{"scheduleTimeoutSeconds", 60}}}};
  const auto built =
      build_jobset(trainjob({{"runtimeRef", {{"name", "torch-distributed"}}}}), runtime, {2, 3, 0});
  ASSERT_TRUE(built);
  EXPECT_EQ(built->notes,
            (std::vector<std::string>{"podGroupPolicy is not modelled: the real controller also creates a "
                                      "PodGroup and labels every pod template for its scheduler"}));
}

TEST(BuildJobSet, NumNodesHasNoMinimum) {
  const json tj = trainjob({{"runtimeRef", {{"name", "torch-distributed"}}}, {"trainer", {{"numNodes", 0}}}});
  const auto built = build_jobset(tj, carried("torch-distributed"), {2, 3, 0});
  ASSERT_TRUE(built);
  EXPECT_EQ(built->num_nodes, 0);
  EXPECT_EQ(built->jobset["spec"]["replicatedJobs"][0]["template"]["spec"]["completions"], 0);
  EXPECT_EQ(env_of(container_of(built->jobset, "node", "node"), "PET_NNODES")["value"], "0");
}

}  // namespace
}  // namespace kpt::model::trainjob
