#include "model/pytorchjob/gang.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace kpt::model::pytorchjob {
namespace {

nlohmann::json job(const std::string& scheduling_policy = "null") {
  const auto master = nlohmann::json::parse(R"({"replicas": 1, "template": {"spec": {"containers": [
      {"name": "pytorch", "image": "img", "resources": {"requests": {"cpu": "500m", "memory": "1Gi"}}},
      {"name": "sidecar", "image": "img", "resources": {"limits": {"cpu": "1", "nvidia.com/gpu": 1}}}]}}})");
  const auto worker = nlohmann::json::parse(R"({"replicas": 3, "template": {"spec": {"containers": [
      {"name": "pytorch", "image": "img", "resources": {"requests": {"cpu": "2"}, "limits": {"cpu": "4", "memory": "2Gi"}}}]}}})");
  nlohmann::json j = {
      {"apiVersion", "kubeflow.org/v1"},
      {"kind", "PyTorchJob"},
      {"metadata", {{"name", "mnist"}, {"namespace", "ns"}, {"uid", "u1"}, {"annotations", {{"team", "a"}}}}},
      {"spec", {{"pytorchReplicaSpecs", {{"Master", master}, {"Worker", worker}}}}}};
  const auto policy = nlohmann::json::parse(scheduling_policy);
  if (!policy.is_null()) j["spec"]["runPolicy"] = {{"schedulingPolicy", policy}};
  return j;
}

TEST(GangScheduler, TheFlagReadsAsTheV17OperatorReadsGangSchedulerName) {
  struct Case {
    std::string flag;
    GangKind kind;
    std::string scheduler;
  };
  for (const auto& c :
       std::vector<Case>{{"", GangKind::none, ""},
                         {"volcano", GangKind::volcano, "volcano"},
                         {"scheduler-plugins", GangKind::scheduler_plugins, "scheduler-plugins"},
                         {"my-scheduler", GangKind::scheduler_plugins, "my-scheduler"}}) {
    SCOPED_TRACE(c.flag);
    const auto g = parse_gang_scheduler(c.flag);
    EXPECT_EQ(g.kind, c.kind);
    EXPECT_EQ(g.scheduler_name, c.scheduler);
  }
}

TEST(GangScheduler, AJobAsksThroughSchedulingPolicyWhenNoFlagIsSet) {
  EXPECT_EQ(gang_for_job(job(), {}).kind, GangKind::none);
  EXPECT_EQ(gang_for_job(job(R"({"queue": "q"})"), {}).kind, GangKind::volcano);
  EXPECT_EQ(gang_for_job(job(), parse_gang_scheduler("sp")).kind, GangKind::scheduler_plugins);
}

TEST(GangScheduler, TheVolcanoPodGroupIsOwnedByTheJobAndCountsEveryReplica) {
  const auto pg = desired_pod_group(job(), parse_gang_scheduler("volcano"));
  const auto expected = nlohmann::json::parse(R"({
    "apiVersion": "scheduling.volcano.sh/v1beta1", "kind": "PodGroup",
    "metadata": {"name": "mnist", "namespace": "ns", "annotations": {"team": "a"},
                 "ownerReferences": [{"apiVersion": "kubeflow.org/v1", "kind": "PyTorchJob", "name": "mnist",
                                      "uid": "u1", "controller": true, "blockOwnerDeletion": true}]},
    "spec": {"minMember": 4, "queue": "default",
             "minResources": {"cpu": "7500m", "memory": "7516192768", "nvidia.com/gpu": "1"}}})");
  EXPECT_EQ(pg, expected) << pg.dump(2);
}

TEST(GangScheduler, MinAvailableLimitsTheMembersAndTheResourcesCounted) {
  const auto pg = desired_pod_group(job(R"({"minAvailable": 2, "queue": "gpu", "priorityClass": "high"})"),
                                    parse_gang_scheduler("volcano"));
  EXPECT_EQ(pg["spec"]["minMember"], 2);
  EXPECT_EQ(pg["spec"]["queue"], "gpu");
  EXPECT_EQ(pg["spec"]["priorityClassName"], "high");
  // The Master (500m + 1 cpu, 1Gi, 1 gpu) and one Worker (2 cpu, 2Gi).
  EXPECT_EQ(pg["spec"]["minResources"], nlohmann::json::parse(R"({"cpu": "3500m", "memory": "3221225472",
                                                                   "nvidia.com/gpu": "1"})"));
}

TEST(GangScheduler, TheSchedulerPluginsPodGroupTakesTheTimeoutAndTheJobsMinResources) {
  const auto pg = desired_pod_group(job(R"({"scheduleTimeoutSeconds": 60, "minResources": {"cpu": "8"}})"),
                                    parse_gang_scheduler("scheduler-plugins"));
  EXPECT_EQ(pg["apiVersion"], "scheduling.x-k8s.io/v1alpha1");
  EXPECT_EQ(pg["spec"], nlohmann::json::parse(R"({"minMember": 4, "scheduleTimeoutSeconds": 60,
                                                  "minResources": {"cpu": "8"}})"));
  EXPECT_EQ(pod_group_api(GangKind::scheduler_plugins).crd_name, "podgroups.scheduling.x-k8s.io");
  EXPECT_EQ(pod_group_api(GangKind::volcano).crd_name, "podgroups.scheduling.volcano.sh");
}

TEST(GangScheduler, PodsAreDecoratedAsTheFactsDescribe) {
  nlohmann::json pod = {{"metadata", {{"name", "mnist-worker-0"}}},
                        {"spec", {{"containers", nlohmann::json::array()}}}};
  auto volcano = pod;
  decorate_gang_pod(volcano, "mnist", "Worker", parse_gang_scheduler("volcano"));
  EXPECT_EQ(volcano["spec"]["schedulerName"], "volcano");
  EXPECT_EQ(volcano["metadata"]["annotations"],
            nlohmann::json::parse(
                R"({"scheduling.k8s.io/group-name": "mnist", "volcano.sh/task-spec": "worker"})"));
  auto plugins = pod;
  plugins["spec"]["schedulerName"] = "custom";
  decorate_gang_pod(plugins, "mnist", "Worker", parse_gang_scheduler("sp-scheduler"));
  EXPECT_EQ(plugins["spec"]["schedulerName"], "custom");  // set only when empty
  EXPECT_EQ(plugins["metadata"]["labels"],
            nlohmann::json::parse(R"({"scheduling.x-k8s.io/pod-group": "mnist"})"));
  auto none = pod;
  decorate_gang_pod(none, "mnist", "Worker", {});
  EXPECT_EQ(none, pod);
}

TEST(GangScheduler, QuantitiesAddInBaseUnits) {
  struct Case {
    std::string a, b, sum;
  };
  for (const auto& c : std::vector<Case>{{"500m", "1", "1500m"},
                                         {"1Gi", "1Gi", "2147483648"},
                                         {"1k", "24", "1024"},
                                         {"0.5", "0.25", "750m"},
                                         {"1e3", "1", "1001"},
                                         {"1x", "1", ""}}) {
    SCOPED_TRACE(c.a + " + " + c.b);
    EXPECT_EQ(add_quantities(c.a, c.b), c.sum);
  }
}

}  // namespace
}  // namespace kpt::model::pytorchjob
