#include "plugin/env/trainjob_env.hpp"

#include "tests/unit/model/trainjob/fixtures.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <sstream>

namespace kpt::plugin {
namespace {

using model::pytorchjob::EnvVar;
using model::trainjob::AvailableRuntimes;
using model::trainjob::k_trainer_releases;
using model::trainjob::TrainerRelease;
using model::trainjob::testing::load_documents;
using model::trainjob::testing::load_fixture;
using nlohmann::json;

std::vector<EnvTablePod> rows_for(const json& trainjob, TrainerRelease release,
                                  const AvailableRuntimes& given = {}) {
  const auto runtime = find_trainjob_runtime(trainjob, given, nullptr, release);
  EXPECT_TRUE(runtime) << (runtime ? "" : runtime.error().message);
  if (!runtime) return {};
  const auto plan = model::trainjob::plan_env(trainjob, runtime->runtime, release);
  EXPECT_TRUE(plan) << (plan ? "" : plan.error().message);
  return plan ? trainjob_env_rows(*plan) : std::vector<EnvTablePod>{};
}

std::vector<EnvVar> pet_env(const std::string& job, const std::string& nproc, int k,
                            std::vector<EnvVar> before = {}) {
  const std::string rank = std::to_string(k);
  std::vector<EnvVar> env = std::move(before);
  for (EnvVar v : std::vector<EnvVar>{{"PET_NNODES", "2"},
                                      {"PET_NPROC_PER_NODE", nproc},
                                      {"PET_NODE_RANK", rank},
                                      {"PET_MASTER_ADDR", job + "-node-0-0." + job},
                                      {"PET_MASTER_PORT", "29500"},
                                      {"JOB_COMPLETION_INDEX", rank}}) {
    env.push_back(std::move(v));
  }
  return env;
}

void expect_rows(const std::vector<EnvTablePod>& rows, const std::string& job,
                 const std::vector<std::vector<EnvVar>>& env) {
  ASSERT_EQ(rows.size(), env.size());
  for (std::size_t k = 0; k < rows.size(); ++k) {
    const std::string host = job + "-node-0-" + std::to_string(k);
    EXPECT_EQ(rows[k].key, host);
    EXPECT_EQ(rows[k].cells, (std::vector<std::string>{host + "-xxxxx", host, std::to_string(k), job}));
    EXPECT_EQ(rows[k].env, env[k]);
  }
}

// The facts' worked example: 01-multi-node on torch-distributed with numNodes 2 gives every release
// two pods whose torchrun sees world size 2 and rank k.
TEST(TrainJobEnv, TheWorkedExampleGivesEveryReleaseTwoNodesOfOneProcess) {
  const json tj = load_fixture("multi-node.yaml");
  for (const auto release : k_trainer_releases) {
    SCOPED_TRACE(release.to_string());
    // v2.0 passes the runtime's "auto" through when the TrainJob declares no resources.
    const std::string nproc = release.at_least(1) ? "1" : "auto";
    expect_rows(rows_for(tj, release), "multi-node-example",
                {pet_env("multi-node-example", nproc, 0), pet_env("multi-node-example", nproc, 1)});
  }
}

// 02-runtime-patches: cpu requests 2 / limits 4. v2.0 counts limits first, v2.1+ requests first.
TEST(TrainJobEnv, RuntimePatchesExampleCountsCpusAsEachReleaseDoes) {
  const json tj = load_fixture("runtime-patches.yaml");
  const std::vector<EnvVar> user = {{"CUSTOM_VAR", "custom-value"}, {"PYTHONUNBUFFERED", "1"}};
  for (const auto release : k_trainer_releases) {
    SCOPED_TRACE(release.to_string());
    const std::string nproc = release.at_least(1) ? "2" : "4";
    const std::string job = "runtime-patches-example";
    expect_rows(rows_for(tj, release), job, {pet_env(job, nproc, 0, user), pet_env(job, nproc, 1, user)});
  }
}

TEST(TrainJobEnv, TheRuntimeInTheInputWinsOverTheShippedOne) {
  const auto docs = load_documents("dataset-init.yaml");
  AvailableRuntimes given;
  json trainjob;
  for (const auto& d : docs) {
    if (d.value("kind", "") == "TrainingRuntime") given.training_runtimes.push_back(d);
    if (d.value("kind", "") == "TrainJob") trainjob = d;
  }
  const auto found = find_trainjob_runtime(trainjob, given, nullptr, {2, 3, 0});
  ASSERT_TRUE(found);
  EXPECT_EQ(found->from, "from the input");
  expect_rows(rows_for(trainjob, {2, 3, 0}, given), "multi-step",
              {pet_env("multi-step", "1", 0), pet_env("multi-step", "1", 1)});
}

TEST(TrainJobEnv, LooksInTheClusterBeforeTheShippedRuntimes) {
  const json tj = {{"metadata", {{"name", "tj"}, {"namespace", "ns"}}},
                   {"spec", {{"runtimeRef", {{"name", "torch-distributed"}}}}}};
  std::vector<std::string> asked;
  const RuntimeLookup cluster = [&](const model::trainjob::RuntimeRef& ref) -> Expected<json> {
    asked.push_back(ref.kind + "/" + ref.name);
    return json{{"kind", "ClusterTrainingRuntime"}, {"metadata", {{"name", ref.name}}}};
  };
  const auto found = find_trainjob_runtime(tj, {}, cluster, {2, 3, 0});
  ASSERT_TRUE(found);
  EXPECT_EQ(found->from, "from the cluster");
  EXPECT_EQ(asked, (std::vector<std::string>{"ClusterTrainingRuntime/torch-distributed"}));

  const RuntimeLookup none = [](const model::trainjob::RuntimeRef&) -> Expected<json> {
    return make_error(ErrorCode::not_found, "clustertrainingruntimes \"torch-distributed\" not found");
  };
  const auto shipped = find_trainjob_runtime(tj, {}, none, {2, 2, 1});
  ASSERT_TRUE(shipped);
  EXPECT_EQ(shipped->from, "shipped with Trainer v2.2.1");
}

TEST(TrainJobEnv, AMissingRuntimeIsTheControllersErrorAndAnUnknownKindIsUnsupported) {
  const json missing = {{"metadata", {{"name", "tj"}, {"namespace", "ns"}}},
                        {"spec", {{"runtimeRef", {{"name", "nosuch"}}}}}};
  const auto found = find_trainjob_runtime(missing, {}, nullptr, {2, 3, 0});
  ASSERT_FALSE(found);
  EXPECT_EQ(found.error().code, ErrorCode::not_found);
  EXPECT_EQ(found.error().message,
            "not found ClusterTrainingRuntime specified in TrainJob: "
            "clustertrainingruntimes.trainer.kubeflow.org \"nosuch\" not found");
  const json odd = {
      {"metadata", {{"name", "tj"}, {"namespace", "ns"}}},
      {"spec", {{"runtimeRef", {{"name", "x"}, {"kind", "Foo"}, {"apiGroup", "example.com"}}}}}};
  const auto unsupported = find_trainjob_runtime(odd, {}, nullptr, {2, 3, 0});
  ASSERT_FALSE(unsupported);
  EXPECT_EQ(unsupported.error().message, "unsupported runtime: Foo.example.com");
}

TEST(TrainJobEnv, TheTablePrintsPodsThenVariablesInPodOrder) {
  const auto rows = rows_for(load_fixture("multi-node.yaml"), {2, 3, 0});
  std::ostringstream out;
  write_env_table(out, trainjob_env_header(), rows, false);
  EXPECT_EQ(out.str(),
            "POD                                HOSTNAME                     NODE RANK  SERVICE\n"
            "multi-node-example-node-0-0-xxxxx  multi-node-example-node-0-0  0          multi-node-example\n"
            "multi-node-example-node-0-1-xxxxx  multi-node-example-node-0-1  1          multi-node-example\n"
            "\n"
            "VARIABLE                multi-node-example-node-0-0                     "
            "multi-node-example-node-0-1\n"
            "PET_NNODES              2                                               2\n"
            "PET_NPROC_PER_NODE      1                                               1\n"
            "PET_NODE_RANK *         0                                               1\n"
            "PET_MASTER_ADDR         multi-node-example-node-0-0.multi-node-example  "
            "multi-node-example-node-0-0.multi-node-example\n"
            "PET_MASTER_PORT         29500                                           29500\n"
            "JOB_COMPLETION_INDEX *  0                                               1\n"
            "* differs between pods\n");
}

TEST(TrainJobEnv, JsonHasTheDocumentedShape) {
  const json tj = load_fixture("multi-node.yaml");
  const auto runtime = find_trainjob_runtime(tj, {}, nullptr, {2, 3, 0});
  ASSERT_TRUE(runtime);
  const auto plan = model::trainjob::plan_env(tj, runtime->runtime, {2, 3, 0});
  ASSERT_TRUE(plan);
  std::ostringstream out;
  write_trainjob_env_json(out, *plan, {2, 3, 0}, tj, *runtime);
  const auto doc = nlohmann::ordered_json::parse(out.str());
  std::vector<std::string> keys;
  for (const auto& [k, v] : doc.items()) keys.push_back(k);
  EXPECT_EQ(keys, (std::vector<std::string>{"kind", "name", "trainer", "runtime", "framework", "masterAddr",
                                            "masterPort", "pods", "notes"}));
  EXPECT_EQ(doc["runtime"],
            nlohmann::ordered_json::parse(R"({"kind":"ClusterTrainingRuntime","name":"torch-distributed",)"
                                          R"("from":"shipped with Trainer v2.3.0"})"));
  EXPECT_EQ(doc["masterAddr"], "multi-node-example-node-0-0.multi-node-example");
  EXPECT_EQ(doc["masterPort"], 29500);
  EXPECT_EQ(doc["pods"][1]["hostname"], "multi-node-example-node-0-1");
  EXPECT_EQ(
      doc["pods"][1]["env"][2],
      nlohmann::ordered_json::parse(
          R"({"name":"PET_NODE_RANK","value":"1",)"
          R"("valueFrom":"fieldRef metadata.annotations['batch.kubernetes.io/job-completion-index']"})"));
}

TEST(TrainJobEnv, ALivePodIsNamedByItsHostnameWithFieldRefsReadOnIt) {
  const json pod = json::parse(R"({
    "metadata": {"name": "tj-node-0-1-abcde",
                 "annotations": {"batch.kubernetes.io/job-completion-index": "1"}},
    "spec": {"hostname": "tj-node-0-1", "containers": [
      {"name": "sidecar"},
      {"name": "node", "env": [
        {"name": "PET_NODE_RANK", "valueFrom": {"fieldRef": {"fieldPath": "metadata.annotations['batch.kubernetes.io/job-completion-index']"}}},
        {"name": "TOKEN", "valueFrom": {"secretKeyRef": {"name": "s", "key": "k"}}},
        {"name": "A", "value": "b"}]}]}})");
  const auto live = live_trainjob_pod(pod);
  ASSERT_TRUE(live);
  EXPECT_EQ(live->name, "tj-node-0-1");
  EXPECT_EQ(live->env,
            (std::vector<EnvVar>{{"PET_NODE_RANK", "1"}, {"TOKEN", "(secretKeyRef s/k)"}, {"A", "b"}}));
  EXPECT_FALSE(
      live_trainjob_pod(json::parse(R"({"spec": {"containers": [{"name": "dataset-initializer"}]}})")));
  EXPECT_FALSE(live_trainjob_pod(json::parse(R"({"spec": {"containers": 7}})")));
}

TEST(TrainJobEnv, LiveComparisonMatchesByHostname) {
  const std::vector<EnvTablePod> expected = {{"tj-node-0-0", {}, {{"PET_NODE_RANK", "0"}}}};
  const auto same = compare_live_env(expected, {{"tj-node-0-0", {{"PET_NODE_RANK", "0"}}}}, "the model");
  EXPECT_EQ(same.lines, (std::vector<std::string>{"pod tj-node-0-0: env matches"}));
  EXPECT_FALSE(same.differs);
  const auto other =
      compare_live_env(expected, {{"tj-node-0-0", {{"PET_NODE_RANK", "1"}}}, {"x", {}}}, "the model");
  EXPECT_EQ(other.lines, (std::vector<std::string>{"pod tj-node-0-0: 'PET_NODE_RANK' is '1', expected '0'",
                                                   "pod x: not expected by the model"}));
  EXPECT_TRUE(other.differs);
}

}  // namespace
}  // namespace kpt::plugin
