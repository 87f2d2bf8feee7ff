#include "model/trainjob/runtime_ref.hpp"

#include "tests/unit/model/trainjob/fixtures.hpp"
#include "yaml/yaml_writer.hpp"

#include <gtest/gtest.h>

namespace kpt::model::trainjob {
namespace {

using nlohmann::json;

json trainjob(json runtime_ref, const std::string& ns = "team-a") {
  return {{"metadata", {{"name", "job"}, {"namespace", ns}, {"uid", "tj-uid"}}},
          {"spec", {{"runtimeRef", runtime_ref}}}};
}

json runtime(const char* kind, const char* name, const char* ns = nullptr) {
  json r = {{"apiVersion", "trainer.kubeflow.org/v1alpha1"}, {"kind", kind}, {"metadata", {{"name", name}}}};
  if (ns != nullptr) r["metadata"]["namespace"] = ns;
  return r;
}

TEST(RuntimeRef, DefaultsKindAndGroupAsTheCrdDoes) {
  const RuntimeRef ref = runtime_ref_of(trainjob({{"name", "torch-distributed"}}));
  EXPECT_EQ(ref.kind, "ClusterTrainingRuntime");
  EXPECT_EQ(ref.api_group, "trainer.kubeflow.org");
  EXPECT_EQ(ref.registry_key(), "ClusterTrainingRuntime.trainer.kubeflow.org");
  EXPECT_TRUE(ref.supported());
  EXPECT_EQ(ref.to_json_text(), "{\"name\":\"torch-distributed\"}");
}

TEST(ResolveRuntime, FindsNamespacedRuntimesOnlyInTheTrainJobsNamespace) {
  AvailableRuntimes available;
  available.training_runtimes = {runtime("TrainingRuntime", "tr", "other"),
                                 runtime("TrainingRuntime", "tr", "team-a")};
  const auto found = resolve_runtime(trainjob({{"name", "tr"}, {"kind", "TrainingRuntime"}}), available,
                                     LookupBy::controller);
  ASSERT_TRUE(found);
  EXPECT_EQ((*found)["metadata"]["namespace"], "team-a");
}

TEST(ResolveRuntime, FallsBackToTheReleasesCarriedRuntimes) {
  AvailableRuntimes available = with_carried_runtimes({}, {2, 1, 0});
  const auto found =
      resolve_runtime(trainjob({{"name", "torchtune-qwen2.5-1.5b"}}), available, LookupBy::controller);
  ASSERT_TRUE(found);
  EXPECT_EQ((*found)["metadata"]["name"], "torchtune-qwen2.5-1.5b");
  // A runtime of the cluster with the same name wins over the carried one.
  AvailableRuntimes cluster;
  cluster.cluster_training_runtimes = {runtime("ClusterTrainingRuntime", "torch-distributed")};
  const auto merged = with_carried_runtimes(cluster, {2, 3, 0});
  EXPECT_EQ(merged.cluster_training_runtimes.size(), 8u);
  EXPECT_EQ(merged.cluster_training_runtimes[0], cluster.cluster_training_runtimes[0]);
}

TEST(ResolveRuntime, WordsEachFailureAsTheRealComponentDoes) {
  struct Case {
    const char* name;
    json ref;
    LookupBy by;
    ErrorCode code;
    const char* message;
  };
  const Case cases[] = {
      {"unknown kind",
       {{"name", "x"}, {"kind", "Runtime"}},
       LookupBy::controller,
       ErrorCode::usage,
       "unsupported runtime: Runtime.trainer.kubeflow.org"},
      {"unknown group",
       {{"name", "x"}, {"apiGroup", "example.com"}},
       LookupBy::webhook,
       ErrorCode::usage,
       "unsupported runtime: ClusterTrainingRuntime.example.com"},
      {"missing namespaced, controller",
       {{"name", "x"}, {"kind", "TrainingRuntime"}},
       LookupBy::controller,
       ErrorCode::not_found,
       "TrainingRuntime specified in TrainJob is not found: trainingruntimes.trainer.kubeflow.org \"x\" not "
       "found"},
      {"missing cluster, controller",
       {{"name", "x"}},
       LookupBy::controller,
       ErrorCode::not_found,
       "not found ClusterTrainingRuntime specified in TrainJob: clustertrainingruntimes.trainer.kubeflow.org "
       "\"x\" not "
       "found"},
      {"missing namespaced, webhook",
       {{"name", "x"}, {"apiGroup", "trainer.kubeflow.org"}, {"kind", "TrainingRuntime"}},
       LookupBy::webhook,
       ErrorCode::not_found,
       "spec.runtimeRef: Invalid value: "
       "{\"name\":\"x\",\"apiGroup\":\"trainer.kubeflow.org\",\"kind\":\"TrainingRuntime\"}: "
       "trainingruntimes.trainer.kubeflow.org \"x\" not found: specified trainingRuntime must be created "
       "before the "
       "TrainJob is created"},
      {"missing cluster, webhook",
       {{"name", "x"}, {"kind", "ClusterTrainingRuntime"}},
       LookupBy::webhook,
       ErrorCode::not_found,
       "spec.RuntimeRef: Invalid value: {\"name\":\"x\",\"kind\":\"ClusterTrainingRuntime\"}: "
       "clustertrainingruntimes.trainer.kubeflow.org \"x\" not found: specified clusterTrainingRuntime must "
       "be created "
       "before the TrainJob is created"},
  };
  AvailableRuntimes available;
  available.training_runtimes = {runtime("TrainingRuntime", "x", "other")};
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    const auto found = resolve_runtime(trainjob(c.ref), available, c.by);
    ASSERT_FALSE(found);
    EXPECT_EQ(found.error().code, c.code);
    EXPECT_EQ(found.error().message, c.message);
  }
}

TEST(ResolveRuntime, WarnsAboutDeprecatedRuntimes) {
  json deprecated = runtime("ClusterTrainingRuntime", "old");
  deprecated["metadata"]["labels"] = {{"trainer.kubeflow.org/support", "deprecated"}};
  EXPECT_EQ(deprecated_runtime_warning(deprecated),
            "Referenced ClusterTrainingRuntime \"old\" is deprecated and will be removed in a future release "
            "of Kubeflow "
            "Trainer. See runtime deprecation policy: "
            "https://trainer.kubeflow.org/en/latest/operator-guides/runtime.html#runtime-deprecation-policy");
  EXPECT_EQ(deprecated_runtime_warning(runtime("ClusterTrainingRuntime", "new")), "");
}

TEST(RuntimeSnapshot, IsAConfigMapOwnedByTheTrainJobWithTheRuntimeAsYaml) {
  const json r = testing::carried("torch-distributed");
  const json cm = runtime_snapshot_configmap(trainjob({{"name", "torch-distributed"}}, "default"), r);
  EXPECT_EQ(cm["metadata"]["name"], "job-runtime-snapshot");
  EXPECT_EQ(cm["metadata"]["namespace"], "default");
  EXPECT_EQ(cm["metadata"]["ownerReferences"], (json{{{"apiVersion", "trainer.kubeflow.org/v1alpha1"},
                                                      {"kind", "TrainJob"},
                                                      {"name", "job"},
                                                      {"uid", "tj-uid"},
                                                      {"controller", true},
                                                      {"blockOwnerDeletion", true}}}));
  EXPECT_EQ(cm["data"]["runtime"], yaml::to_yaml(r));
  EXPECT_EQ(cm["data"].size(), 1u);
}

json snapshot(const json& runtime_object, const std::string& owner_uid = "tj-uid") {
  return {{"metadata",
           {{"name", "job-runtime-snapshot"},
            {"ownerReferences", {{{"kind", "TrainJob"}, {"uid", owner_uid}, {"controller", true}}}}}},
          {"data", {{"runtime", runtime_object.dump()}}}};
}

TEST(RuntimeSnapshot, InvalidSnapshotsFailWithTheRealMessages) {
  const json tj =
      trainjob({{"name", "tr"}, {"apiGroup", "trainer.kubeflow.org"}, {"kind", "TrainingRuntime"}});
  json missing_key = snapshot(runtime("TrainingRuntime", "tr"));
  missing_key["data"] = json::object();
  json bad_yaml = snapshot(runtime("TrainingRuntime", "tr"));
  bad_yaml["data"]["runtime"] = "{";
  struct Case {
    const char* name;
    json cm;
    const char* message;
  };
  const Case cases[] = {
      {"other owner", snapshot(runtime("TrainingRuntime", "tr"), "someone"),
       "invalid runtime snapshot: a snapshot configmap exists but is owned by another object"},
      {"no data key", missing_key,
       "invalid runtime snapshot: snapshot ConfigMap missing \"runtime\" data key"},
      {"bad yaml", bad_yaml,
       "invalid runtime snapshot: unable to unmarshal the snapshot: error converting YAML to JSON: 'runtime' "
       "line 2, column 1: did not find expected node content (while parsing a flow node at line 2)"},
      {"wrong kind", snapshot(runtime("ClusterTrainingRuntime", "tr")),
       "invalid runtime snapshot: the snapshot refers to the wrong runtime: expecting a runtime with name, "
       "api group "
       "and kind of \"tr\", \"trainer.kubeflow.org\", \"TrainingRuntime\" but found runtime with name, api "
       "group and "
       "kind of \"tr\", \"trainer.kubeflow.org\", \"ClusterTrainingRuntime\""},
      {"wrong name", snapshot(runtime("TrainingRuntime", "other")),
       "invalid runtime snapshot: the snapshot refers to the wrong runtime: expecting a runtime with name, "
       "api group "
       "and kind of \"tr\", \"trainer.kubeflow.org\", \"TrainingRuntime\" but found runtime with name, api "
       "group and "
       "kind of \"other\", \"trainer.kubeflow.org\", \"TrainingRuntime\""},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    const auto got = runtime_from_snapshot(c.cm, tj);
    ASSERT_FALSE(got);
    EXPECT_EQ(got.error().message, c.message);
  }
  EXPECT_TRUE(runtime_from_snapshot(snapshot(runtime("TrainingRuntime", "tr")), tj));
}

TEST(RuntimeForReconcile, V23UsesAnExistingSnapshotAndNeverFallsBack) {
  const json tj = trainjob({{"name", "tr"}, {"kind", "TrainingRuntime"}});
  AvailableRuntimes live;
  live.training_runtimes = {runtime("TrainingRuntime", "tr", "team-a")};
  live.training_runtimes[0]["spec"] = {{"edited", true}};
  const json snap = snapshot(runtime("TrainingRuntime", "tr"));

  const auto from_snapshot = runtime_for_reconcile(tj, &snap, live, {2, 3, 0});
  ASSERT_TRUE(from_snapshot);
  EXPECT_FALSE(from_snapshot->apply_snapshot);
  EXPECT_FALSE(from_snapshot->runtime.contains("spec"));  // the later edit does not reach this TrainJob

  const auto fresh = runtime_for_reconcile(tj, nullptr, live, {2, 3, 0});
  ASSERT_TRUE(fresh);
  EXPECT_TRUE(fresh->apply_snapshot);
  EXPECT_EQ(fresh->runtime["spec"]["edited"], true);

  const json foreign = snapshot(runtime("TrainingRuntime", "tr"), "x");
  const auto invalid = runtime_for_reconcile(tj, &foreign, live, {2, 3, 0});
  ASSERT_FALSE(invalid);
  EXPECT_EQ(
      invalid.error().message,
      "unable to get runtime snapshot: invalid runtime snapshot: a snapshot configmap exists but is owned by "
      "another object");
  const auto cluster = runtime_for_reconcile(trainjob({{"name", "c"}}), &foreign, live, {2, 3, 0});
  ASSERT_FALSE(cluster);
  EXPECT_EQ(cluster.error().message,
            "getting runtime snapshot: invalid runtime snapshot: a snapshot configmap exists but is owned by "
            "another "
            "object");
}

TEST(RuntimeForReconcile, BeforeV23TheLiveRuntimeIsReadEveryTime) {
  const json tj = trainjob({{"name", "tr"}, {"kind", "TrainingRuntime"}});
  AvailableRuntimes live;
  live.training_runtimes = {runtime("TrainingRuntime", "tr", "team-a")};
  const json foreign = snapshot(runtime("TrainingRuntime", "tr"), "x");
  for (const TrainerRelease release : {TrainerRelease{2, 0, 0}, TrainerRelease{2, 2, 1}}) {
    SCOPED_TRACE(release.to_string());
    const auto got = runtime_for_reconcile(tj, &foreign, live, release);
    ASSERT_TRUE(got);
    EXPECT_FALSE(got->apply_snapshot);
    EXPECT_EQ(got->runtime, live.training_runtimes[0]);
  }
}

}  // namespace
}  // namespace kpt::model::trainjob
