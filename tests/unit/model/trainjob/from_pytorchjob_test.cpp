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

// Init container, sidecar, pod securityContext, a container field and backoffLimit: torch-distributed
// cannot hold it, so a TrainingRuntime comes with the TrainJob.
const json k_secure_job = json::parse(R"({
  "apiVersion": "kubeflow.org/v1", "kind": "PyTorchJob",
  "metadata": {"name": "secure", "namespace": "ml"},
  "spec": {
    "nprocPerNode": "2",
    "runPolicy": {"backoffLimit": 3, "cleanPodPolicy": "Running"},
    "pytorchReplicaSpecs": {
      "Worker": {"replicas": 2, "restartPolicy": "OnFailure", "template": {
        "metadata": {"annotations": {"sidecar.istio.io/inject": "false"}},
        "spec": {
          "securityContext": {"runAsNonRoot": true, "fsGroup": 1000},
          "initContainers": [{"name": "fetch", "image": "busybox", "command": ["sh", "-c", "cp /src/* /data"]}],
          "volumes": [{"name": "data", "emptyDir": {}}],
          "containers": [
            {"name": "pytorch", "image": "img", "command": ["python", "train.py"], "workingDir": "/data",
             "ports": [{"name": "pytorchjob-port", "containerPort": 23456}],
             "volumeMounts": [{"name": "data", "mountPath": "/data"}]},
            {"name": "logs", "image": "fluent-bit", "volumeMounts": [{"name": "data", "mountPath": "/data"}]}]}}},
      "Master": {"replicas": 1, "restartPolicy": "OnFailure", "template": {
        "metadata": {"annotations": {"sidecar.istio.io/inject": "false"}},
        "spec": {
          "securityContext": {"runAsNonRoot": true, "fsGroup": 1000},
          "initContainers": [{"name": "fetch", "image": "busybox", "command": ["sh", "-c", "cp /src/* /data"]}],
          "volumes": [{"name": "data", "emptyDir": {}}],
          "containers": [
            {"name": "pytorch", "image": "img", "command": ["python", "train.py"], "workingDir": "/data",
             "ports": [{"name": "pytorchjob-port", "containerPort": 23456}],
             "volumeMounts": [{"name": "data", "mountPath": "/data"}]},
            {"name": "logs", "image": "fluent-bit", "volumeMounts": [{"name": "data", "mountPath": "/data"}]}]}}}}}})");

std::map<std::string, std::string> notes_by_field(const Conversion& c) {
  std::map<std::string, std::string> out;
  for (const auto& n : c.notes) out[n.field] = to_string(n.kind) + ": " + n.text;
  return out;
}

TEST(ConvertPyTorchJob, TheTrainJobCarriesNodesProcessesContainerAndScheduling) {
  const auto c = convert_pytorchjob(k_job);
  ASSERT_TRUE(c) << c.error().message;
  EXPECT_TRUE(c->runtime.is_null());
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
  auto kinds = notes_by_field(*c);
  EXPECT_EQ(
      kinds["spec.runPolicy.cleanPodPolicy"],
      "no equivalent: JobSet ttlSecondsAfterFinished 0 would delete the pods, but Trainer v2.3.0 re-creates "
      "a failed TrainJob's JobSet that its TTL deleted, and trains again (kubeflow/trainer#3779), so it is "
      "not set");
  EXPECT_EQ(kinds["spec.pytorchReplicaSpecs.Worker.template.spec.containers[pytorch].ports"],
            "changed: the operator's port 23456 is left out: Trainer adds port 29500 to node");
  EXPECT_EQ(kinds["spec.pytorchReplicaSpecs.Worker.template.spec.nodeSelector"],
            "carried: a runtime patch on the node pods");
  EXPECT_EQ(kinds["port 23456"], "changed: the rendezvous port is 29500 (PET_MASTER_PORT)");
  EXPECT_EQ(kinds["spec.pytorchReplicaSpecs.Worker.restartPolicy"],
            "carried: the node pods restart OnFailure, JobSet's default");
}

TEST(ConvertPyTorchJob, AJobTorchDistributedCannotHoldGetsATrainingRuntimeItsTrainJobNames) {
  const auto c = convert_pytorchjob(k_secure_job);
  ASSERT_TRUE(c) << c.error().message;
  EXPECT_EQ(c->runtime, json::parse(R"({
    "apiVersion": "trainer.kubeflow.org/v1alpha1", "kind": "TrainingRuntime",
    "metadata": {"name": "secure-runtime", "namespace": "ml", "labels": {"trainer.kubeflow.org/framework": "torch"}},
    "spec": {
      "mlPolicy": {"numNodes": 3, "torch": {}},
      "template": {"spec": {
        "failurePolicy": {"maxRestarts": 3},
        "replicatedJobs": [{"name": "node", "template": {
          "metadata": {"labels": {"trainer.kubeflow.org/trainjob-ancestor-step": "trainer"}},
          "spec": {"backoffLimit": 0, "template": {
            "metadata": {"annotations": {"sidecar.istio.io/inject": "false"}},
            "spec": {
              "securityContext": {"runAsNonRoot": true, "fsGroup": 1000},
              "initContainers": [{"name": "fetch", "image": "busybox", "command": ["sh", "-c", "cp /src/* /data"]}],
              "volumes": [{"name": "data", "emptyDir": {}}],
              "containers": [
                {"name": "node", "image": "pytorch/pytorch:2.13.0-cuda13.0-cudnn9-runtime", "workingDir": "/data",
                 "volumeMounts": [{"name": "data", "mountPath": "/data"}]},
                {"name": "logs", "image": "fluent-bit", "volumeMounts": [{"name": "data", "mountPath": "/data"}]}]}}}}}]}}}})"));
  EXPECT_EQ(c->trainjob, json::parse(R"({
    "apiVersion": "trainer.kubeflow.org/v1alpha1", "kind": "TrainJob",
    "metadata": {"name": "secure", "namespace": "ml"},
    "spec": {
      "runtimeRef": {"name": "secure-runtime", "kind": "TrainingRuntime"},
      "trainer": {"numNodes": 3, "numProcPerNode": 2, "image": "img", "command": ["torchrun", "train.py"]}}})"));
  auto kinds = notes_by_field(*c);
  const std::string worker = "spec.pytorchReplicaSpecs.Worker.template.";
  EXPECT_EQ(kinds[worker + "spec.securityContext"], "carried: runtime secure-runtime, the node pods");
  EXPECT_EQ(kinds[worker + "spec.initContainers"], "carried: runtime secure-runtime, the node pods");
  EXPECT_EQ(kinds[worker + "metadata.annotations"], "carried: runtime secure-runtime, the node pods");
  EXPECT_EQ(kinds[worker + "spec.containers[pytorch].workingDir"],
            "carried: runtime secure-runtime, container node");
  EXPECT_EQ(kinds[worker + "spec.containers[pytorch].volumeMounts"],
            "carried: runtime secure-runtime, container node");
  EXPECT_EQ(
      kinds[worker + "spec.containers[logs]"],
      "carried: runtime secure-runtime, a container of the node pods beside node (Trainer sets PET_* only in "
      "node; the operator set its env in every container)");
  EXPECT_EQ(
      kinds["spec.runPolicy.backoffLimit"],
      "changed: runtime secure-runtime, JobSet failurePolicy.maxRestarts 3 and node Job backoffLimit 0: a "
      "failed pod no longer restarts alone (the operator counted container restarts); JobSet recreates every "
      "node pod, up to 3 times, then the TrainJob fails with reason ReachedMaxRestarts");
  EXPECT_EQ(kinds["spec.runPolicy.cleanPodPolicy"],
            "carried: JobSet deletes the node Jobs still running when it finishes, as a failed Job does its "
            "running "
            "pods; nothing to set");
  EXPECT_EQ(kinds.count("spec.pytorchReplicaSpecs.Master.template"), 0U);
}

json worker_only(const json& fragment) {
  json job = json::parse(R"({"apiVersion": "kubeflow.org/v1", "kind": "PyTorchJob", "metadata": {"name": "t"},
    "spec": {"pytorchReplicaSpecs": {"Worker": {"replicas": 2, "template": {"spec": {"containers": [
      {"name": "pytorch", "image": "img", "command": ["torchrun", "train.py"]}]}}}}}})");
  job.merge_patch(fragment);
  return job;
}

json pod_spec(const json& fields) {
  return {{"spec", {{"pytorchReplicaSpecs", {{"Worker", {{"template", {{"spec", fields}}}}}}}}}};
}

json run_policy(const json& fields) { return {{"spec", {{"runPolicy", fields}}}}; }

TEST(ConvertPyTorchJob, EachReleaseNeedsARuntimeForWhatItsTrainJobCannotHold) {
  struct Case {
    const char* name;
    json fragment;
    TrainerRelease release;
    bool runtime;
    std::vector<std::pair<std::string, json>> want;  ///< "/runtime/..." or "/trainjob/..." -> value
  };
  const std::string node_job = "/runtime/spec/template/spec/replicatedJobs/0/template/spec";
  const std::string node_pod = node_job + "/template/spec";
  const Case cases[] = {
      {"a deadline before v2.2 is the node Job's",
       run_policy({{"activeDeadlineSeconds", 600}}),
       {2, 1, 0},
       true,
       {{node_job + "/activeDeadlineSeconds", 600}}},
      {"a deadline from v2.2 is the TrainJob's",
       run_policy({{"activeDeadlineSeconds", 600}}),
       {2, 2, 0},
       false,
       {{"/trainjob/spec/activeDeadlineSeconds", 600}}},
      {"v2.0 overrides no affinity",
       pod_spec({{"affinity", {{"nodeAffinity", json::object()}}}}),
       {2, 0, 0},
       true,
       {{node_pod + "/affinity", {{"nodeAffinity", json::object()}}}}},
      {"v2.1 overrides affinity",
       pod_spec({{"affinity", {{"nodeAffinity", json::object()}}}}),
       {2, 1, 0},
       false,
       {{"/trainjob/spec/podTemplateOverrides/0/spec/affinity", {{"nodeAffinity", json::object()}}},
        {"/trainjob/spec/podTemplateOverrides/0/targetJobs", json::parse(R"([{"name": "node"}])")}}},
      {"v2.0 overrides a nodeSelector",
       pod_spec({{"nodeSelector", {{"pool", "a"}}}}),
       {2, 0, 0},
       false,
       {{"/trainjob/spec/podSpecOverrides/0/nodeSelector", {{"pool", "a"}}}}},
      {"grace period patches from v2.3",
       pod_spec({{"terminationGracePeriodSeconds", 5}}),
       {2, 2, 1},
       true,
       {{node_pod + "/terminationGracePeriodSeconds", 5}}},
      {"grace period patched in v2.3",
       pod_spec({{"terminationGracePeriodSeconds", 5}}),
       {2, 3, 0},
       false,
       {{"/trainjob/spec/runtimePatches/0/trainingRuntimeSpec/template/spec/replicatedJobs/0/template/spec/"
         "template/spec/terminationGracePeriodSeconds",
         5}}},
      {"v2.0 deletes the pods with the JobSet's TTL",
       run_policy({{"cleanPodPolicy", "All"}}),
       {2, 0, 0},
       true,
       {{"/runtime/spec/template/spec/ttlSecondsAfterFinished", 0}}},
      {"v2.3 would re-run a failed job after a TTL",
       run_policy({{"cleanPodPolicy", "All"}}),
       {2, 3, 0},
       false,
       {}},
      {"Never fails at the first pod",
       {{"spec", {{"pytorchReplicaSpecs", {{"Worker", {{"restartPolicy", "Never"}}}}}}}},
       {2, 3, 0},
       true,
       {{node_pod + "/restartPolicy", "Never"}, {node_job + "/backoffLimit", 0}}},
      {"a deadline with restarts fails the group",
       run_policy({{"backoffLimit", 2}, {"activeDeadlineSeconds", 60}}),
       {2, 0, 0},
       true,
       {{"/runtime/spec/template/spec/failurePolicy", json::parse(R"({"maxRestarts": 2, "rules": [
          {"name": "deadline-exceeded", "action": "FailJobSet", "onJobFailureReasons": ["DeadlineExceeded"]}]})")}}},
      {"v2.0 without a command runs the image's entrypoint",
       pod_spec({{"containers", json::parse(R"([{"name": "pytorch", "image": "img"}])")}}),
       {2, 0, 0},
       true,
       {{node_pod + "/containers/0",
         json::parse(R"({"name": "node", "image": "pytorch/pytorch:2.7.1-cuda12.8-cudnn9-runtime"})")}}},
      {"v2.0 with a command fits torch-distributed",
       json::object(),
       {2, 0, 0},
       false,
       {{"/trainjob/spec/runtimeRef", json::parse(R"({"name": "torch-distributed"})")}}},
      {"v2.0 overrides no pod labels",
       {{"spec",
         {{"pytorchReplicaSpecs",
           {{"Worker", {{"template", {{"metadata", {{"labels", {{"a", "b"}}}}}}}}}}}}}},
       {2, 0, 1},
       true,
       {{node_job + "/template/metadata/labels", {{"a", "b"}}}}},
      {"a named extra port needs the runtime's container",
       pod_spec({{"containers",
                  json::parse(R"([{"name": "pytorch", "image": "img", "command": ["torchrun", "t.py"],
         "ports": [{"name": "pytorchjob-port", "containerPort": 23456}, {"name": "metrics", "containerPort": 9090}]}])")}}),
       {2, 3, 0},
       true,
       {{node_pod + "/containers/0/ports", json::parse(R"([{"name": "metrics", "containerPort": 9090}])")}}},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    const auto out = convert_pytorchjob(worker_only(c.fragment), c.release);
    ASSERT_TRUE(out) << out.error().message;
    EXPECT_EQ(!out->runtime.is_null(), c.runtime);
    const json both = {{"runtime", out->runtime}, {"trainjob", out->trainjob}};
    EXPECT_EQ(both["trainjob"]["spec"]["runtimeRef"]["name"], c.runtime ? "t-runtime" : "torch-distributed");
    for (const auto& [pointer, value] : c.want) {
      SCOPED_TRACE(pointer);
      const json::json_pointer p(pointer);
      ASSERT_TRUE(both.contains(p));
      EXPECT_EQ(both.at(p), value);
    }
  }
}

std::string value_of(const std::vector<ResolvedEnv>& env, const std::string& name) {
  for (const auto& v : env) {
    if (v.name == name) return v.value;
  }
  return "";
}

std::string value_of(const std::vector<pytorchjob::EnvVar>& env, const std::string& name) {
  for (const auto& v : env) {
    if (v.name == name) return v.value;
  }
  return "";
}

// The converted job's pods (the TrainJob with the runtime it names) get the rendezvous the operator's
// torchrun style gives the original: world size, node ranks, a master address on the rank 0 pod, and
// the port the notes name.
TEST(ConvertPyTorchJob, RoundTripGivesTorchrunTheSameRendezvousOnEveryRelease) {
  const auto style = pytorchjob::parse_style("torchrun");
  ASSERT_TRUE(style);
  for (const json* job : {&k_job, &k_secure_job}) {
    const auto original = pytorchjob::plan_replica_pods(*job, *style);
    ASSERT_TRUE(original) << original.error().message;
    for (const TrainerRelease release : {TrainerRelease{2, 0, 0}, TrainerRelease{2, 1, 0},
                                         TrainerRelease{2, 2, 1}, TrainerRelease{2, 3, 0}}) {
      SCOPED_TRACE((*job)["metadata"]["name"].get<std::string>() + " " + release.to_string());
      const auto c = convert_pytorchjob(*job, release);
      ASSERT_TRUE(c) << c.error().message;
      const json runtime = c->runtime.is_null() ? testing::carried("torch-distributed", release) : c->runtime;
      const auto plan = plan_env(c->trainjob, runtime, release);
      ASSERT_TRUE(plan) << plan.error().message;
      ASSERT_EQ(plan->pods.size(), original->size());
      for (std::size_t k = 0; k < plan->pods.size(); ++k) {
        SCOPED_TRACE(k);
        for (const char* name : {"PET_NNODES", "PET_NPROC_PER_NODE", "PET_NODE_RANK"}) {
          EXPECT_EQ(value_of(plan->pods[k].resolved, name), value_of((*original)[k].env, name)) << name;
        }
      }
      EXPECT_EQ(value_of((*original)[0].env, "PET_MASTER_ADDR"), (*original)[0].name);
      EXPECT_EQ(plan->master_addr, plan->pods[0].hostname + "." + plan->pods[0].subdomain);
      EXPECT_EQ(value_of((*original)[0].env, "PET_MASTER_PORT"), "23456");
      EXPECT_EQ(plan->master_port, 29500);
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
