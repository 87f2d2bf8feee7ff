#include "model/trainjob/jobset_children.hpp"

#include "model/trainjob/name_limits.hpp"
#include "tests/unit/model/trainjob/fixtures.hpp"
#include "util/sha1.hpp"

#include <gtest/gtest.h>

namespace kpt::model::trainjob {
namespace {

using nlohmann::json;

json jobset_with(const json& spec, const std::string& name = "js") {
  return {{"apiVersion", "jobset.x-k8s.io/v1alpha2"},
          {"kind", "JobSet"},
          {"metadata", {{"name", name}, {"namespace", "ns"}, {"uid", "js-uid"}}},
          {"spec", spec}};
}

TEST(DefaultJobSet, AppliesTheWebhookAndCrdDefaults) {
  const json js = default_jobset(jobset_with(json::parse(R"({
      "replicatedJobs": [{"name": "node", "template": {"spec": {"template": {"spec": {}}}}}],
      "failurePolicy": {"maxRestarts": 2, "rules": [{"action": "FailJobSet"}, {"name": "mine", "action": "RestartJobSet"}]},
      "volumeClaimPolicies": [{"templates": []}]})")));
  EXPECT_EQ(js["spec"]["successPolicy"], (json{{"operator", "All"}}));
  EXPECT_EQ(js["spec"]["startupPolicy"], (json{{"startupPolicyOrder", "AnyOrder"}}));
  EXPECT_EQ(js["spec"]["network"], (json{{"enableDNSHostnames", true}, {"publishNotReadyAddresses", true}}));
  const json& job = js["spec"]["replicatedJobs"][0];
  EXPECT_EQ(job["replicas"], 1);
  EXPECT_EQ(job["groupName"], "default");
  EXPECT_EQ(job["template"]["spec"]["completionMode"], "Indexed");
  EXPECT_EQ(job["template"]["spec"]["template"]["spec"]["restartPolicy"], "OnFailure");
  EXPECT_EQ(js["spec"]["failurePolicy"]["restartStrategy"], "Recreate");
  EXPECT_EQ(js["spec"]["failurePolicy"]["rules"][0]["name"], "failurePolicyRule0");
  EXPECT_EQ(js["spec"]["failurePolicy"]["rules"][1]["name"], "mine");
  EXPECT_EQ(js["spec"]["volumeClaimPolicies"][0]["retentionPolicy"], (json{{"whenDeleted", "Delete"}}));
  // What is set stays.
  const json kept = default_jobset(jobset_with(json::parse(R"({"network": {"enableDNSHostnames": false},
      "replicatedJobs": [{"name": "a", "replicas": 3, "template": {"spec": {"completionMode": "NonIndexed",
          "template": {"spec": {"restartPolicy": "Never"}}}}}]})")));
  EXPECT_EQ(kept["spec"]["network"]["enableDNSHostnames"], false);
  EXPECT_EQ(kept["spec"]["replicatedJobs"][0]["replicas"], 3);
  EXPECT_EQ(kept["spec"]["replicatedJobs"][0]["template"]["spec"]["completionMode"], "NonIndexed");
  EXPECT_EQ(kept["spec"]["replicatedJobs"][0]["template"]["spec"]["template"]["spec"]["restartPolicy"],
            "Never");
  EXPECT_EQ(headless_service(kept), std::nullopt);
}

TEST(DesiredJobs, CountGlobalAndGroupIndexesAcrossReplicatedJobs) {
  json js = default_jobset(jobset_with(json::parse(R"({"replicatedJobs": [
      {"name": "a", "replicas": 2, "groupName": "g1", "template": {"spec": {"template": {"spec": {}}}}},
      {"name": "b", "replicas": 3, "groupName": "g2", "template": {"spec": {"template": {"spec": {}}}}},
      {"name": "c", "replicas": 1, "groupName": "g1", "template": {"spec": {"template": {"spec": {}}}}}],
      "network": {"subdomain": "net"}})")));
  js["status"] = {{"restarts", 2}};
  const auto jobs = desired_jobs(js);
  ASSERT_EQ(jobs.size(), 6u);
  const json& c0 = jobs[5];
  const json& labels = c0["metadata"]["labels"];
  EXPECT_EQ(c0["metadata"]["name"], "js-c-0");
  EXPECT_EQ(labels["jobset.sigs.k8s.io/global-replicas"], "6");
  EXPECT_EQ(labels["jobset.sigs.k8s.io/job-global-index"], "5");
  EXPECT_EQ(labels["jobset.sigs.k8s.io/group-replicas"], "3");
  EXPECT_EQ(labels["jobset.sigs.k8s.io/job-group-index"], "2");
  EXPECT_EQ(labels["jobset.sigs.k8s.io/restart-attempt"], "2");
  EXPECT_EQ(labels["jobset.sigs.k8s.io/job-key"], util::sha1_hex("ns/js-c-0"));
  EXPECT_EQ(jobs[3]["metadata"]["labels"]["jobset.sigs.k8s.io/job-index"], "1");
  EXPECT_EQ(jobs[3]["metadata"]["labels"]["jobset.sigs.k8s.io/job-global-index"], "3");
  EXPECT_EQ(c0["spec"]["template"]["spec"]["subdomain"], "net");
  EXPECT_EQ(c0["metadata"]["ownerReferences"][0]["kind"], "JobSet");
  EXPECT_EQ(desired_job(js, "b", 3), std::nullopt);
  EXPECT_EQ(desired_job(js, "nope", 0), std::nullopt);
  EXPECT_EQ(desired_job(js, "b", 2)->at("metadata").at("name"), "js-b-2");
}

TEST(DesiredJobs, CoordinatorExclusivePlacementAndClaimVolumes) {
  json js = default_jobset(jobset_with(json::parse(R"({
      "coordinator": {"replicatedJob": "node", "jobIndex": 0, "podIndex": 0},
      "volumeClaimPolicies": [{"templates": [{"metadata": {"name": "initializer", "labels": {"x": "y"}},
                                              "spec": {"accessModes": ["ReadWriteOnce"]}}]}],
      "replicatedJobs": [{"name": "node", "template": {
          "metadata": {"annotations": {"alpha.jobset.sigs.k8s.io/exclusive-topology": "rack",
                                       "alpha.jobset.sigs.k8s.io/node-selector": "true"}},
          "spec": {"template": {"spec": {"containers": [{"name": "node",
              "volumeMounts": [{"name": "initializer", "mountPath": "/workspace"}]}]}}}}}]})")));
  const json job = desired_jobs(js)[0];
  EXPECT_EQ(job["metadata"]["labels"]["jobset.sigs.k8s.io/coordinator"], "js-node-0-0.js");
  EXPECT_EQ(job["metadata"]["annotations"]["alpha.jobset.sigs.k8s.io/exclusive-topology"], "rack");
  EXPECT_EQ(job["spec"]["template"]["spec"]["nodeSelector"]["alpha.jobset.sigs.k8s.io/namespaced-job"],
            "ns_js-node-0");
  EXPECT_EQ(job["spec"]["template"]["spec"]["tolerations"][0]["key"], "alpha.jobset.sigs.k8s.io/no-schedule");
  EXPECT_EQ(
      job["spec"]["template"]["spec"]["volumes"],
      json::parse(R"([{"name": "initializer", "persistentVolumeClaim": {"claimName": "initializer-js"}}])"));
  const auto pvcs = desired_pvcs(js);
  ASSERT_EQ(pvcs.size(), 1u);
  EXPECT_EQ(pvcs[0]["metadata"]["name"], "initializer-js");
  EXPECT_EQ(pvcs[0]["metadata"]["labels"], (json{{"x", "y"}, {"jobset.sigs.k8s.io/jobset-name", "js"}}));
  EXPECT_EQ(pvcs[0]["metadata"]["ownerReferences"][0]["uid"], "js-uid");
}

TEST(CreatedJob, GetsTheBatchDefaultsAndSelectorLabels) {
  const json job =
      created_job(json::parse(R"({"metadata": {"name": "js-node-0"}, "spec": {"backoffLimit": 2}})"), "u1");
  EXPECT_EQ(job["metadata"]["uid"], "u1");
  EXPECT_EQ(job["spec"]["backoffLimit"], 2);
  EXPECT_EQ(job["spec"]["selector"],
            json::parse(R"({"matchLabels": {"batch.kubernetes.io/controller-uid": "u1"}})"));
  EXPECT_EQ(
      job["spec"]["template"]["metadata"]["labels"],
      json::parse(R"({"batch.kubernetes.io/controller-uid": "u1", "batch.kubernetes.io/job-name": "js-node-0",
                            "controller-uid": "u1", "job-name": "js-node-0"})"));
  EXPECT_EQ(
      created_job(json::parse(R"({"metadata": {"name": "j"}, "spec": {}})"), "u")["spec"]["backoffLimit"], 6);
}

TEST(PodGenerateName, KeepsTheIndexWhenTheJobNameIsTooLong) {
  EXPECT_EQ(pod_generate_name("multi-node-example-node-0", 1), "multi-node-example-node-0-1-");
  const std::string job(60, 'a');
  const std::string prefix = pod_generate_name(job, 12);
  EXPECT_EQ(prefix.size(), 58u);
  EXPECT_EQ(prefix, std::string(54, 'a') + "-12-");
  EXPECT_EQ(pod_generate_name(std::string(54, 'b'), 1), std::string(54, 'b') + "-1-");
}

TEST(DesiredPod, AddsJobCompletionIndexOnlyWhereMissingAndFollowsTheOptions) {
  const json job = created_job(json::parse(R"({"metadata": {"name": "js-node-0", "namespace": "ns"},
      "spec": {"completions": 1, "template": {"metadata": {"labels": {"l": "v"}},
          "spec": {"initContainers": [{"name": "init"}],
                   "containers": [{"name": "node", "env": [{"name": "JOB_COMPLETION_INDEX", "value": "mine"}]},
                                  {"name": "side"}]}}}})"),
                               "u");
  PodOptions old_cluster;
  old_cluster.pod_index_label = false;
  old_cluster.priority = std::nullopt;
  const json pod = desired_pod(
      job, 0, [](const std::string& g, std::int64_t) { return g.substr(0, 1); }, old_cluster);
  EXPECT_EQ(pod["metadata"]["name"], "js-node-0-0-j");
  EXPECT_FALSE(pod["metadata"]["labels"].contains("batch.kubernetes.io/job-completion-index"));
  EXPECT_FALSE(pod["metadata"]["labels"].contains("jobset.sigs.k8s.io/priority"));
  EXPECT_EQ(pod["metadata"]["labels"]["l"], "v");
  EXPECT_EQ(pod["spec"]["containers"][0]["env"],
            json::parse(R"([{"name": "JOB_COMPLETION_INDEX", "value": "mine"}])"));
  const json expected_env = json::parse(R"([{"name": "JOB_COMPLETION_INDEX", "valueFrom": {"fieldRef":
      {"fieldPath": "metadata.annotations['batch.kubernetes.io/job-completion-index']"}}}])");
  EXPECT_EQ(pod["spec"]["containers"][1]["env"], expected_env);
  EXPECT_EQ(pod["spec"]["initContainers"][0]["env"], expected_env);
  EXPECT_EQ(pod["metadata"]["ownerReferences"][0],
            json::parse(R"({"apiVersion": "batch/v1", "kind": "Job", "name": "js-node-0", "uid": "u",
                            "controller": true, "blockOwnerDeletion": true})"));
}

TEST(DesiredPods, NoneWhileTheJobSetOrAJobIsSuspended) {
  const json job =
      created_job(json::parse(R"({"metadata": {"name": "j"}, "spec": {"completions": 3}})"), "u");
  const auto suffix = [](const std::string&, std::int64_t) { return std::string("x"); };
  EXPECT_EQ(desired_pods(json::object(), {job}, suffix).size(), 3u);
  EXPECT_TRUE(desired_pods(json::parse(R"({"spec": {"suspend": true}})"), {job}, suffix).empty());
  json suspended = job;
  suspended["spec"]["suspend"] = true;
  EXPECT_TRUE(desired_pods(json::object(), {suspended}, suffix).empty());
}

TEST(NameLimits, TheJobSetWebhookAllows48CharactersUpToTenNodes) {
  json tj = testing::load_fixture("multi-node.yaml");
  struct Case {
    std::int64_t nodes;
    std::size_t max;
  };
  for (const Case c : {Case{1, 48}, Case{10, 48}, Case{11, 47}, Case{100, 47}, Case{101, 46}}) {
    SCOPED_TRACE(c.nodes);
    tj["spec"]["trainer"]["numNodes"] = c.nodes;
    const auto limit = name_limit_for(tj, testing::carried("torch-distributed"), k_newest_trainer_release);
    ASSERT_TRUE(limit);
    EXPECT_EQ(limit->max_length, c.max);
    EXPECT_EQ(limit->limiting_job, "node");
    EXPECT_TRUE(limit->by_pod_name);
  }
}

TEST(NameLimits, ADatasetInitializerAllowsOnly33) {
  const auto limit = name_limit_for(testing::load_fixture("dataset-init.yaml", 1),
                                    testing::load_fixture("dataset-init.yaml", 0), k_newest_trainer_release);
  ASSERT_TRUE(limit);
  EXPECT_EQ(limit->max_length, 33u);
  EXPECT_EQ(limit->limiting_job, "dataset-initializer");
}

TEST(NameLimits, TheWebhooksMessagesForTooLongNames) {
  const json js = default_jobset(jobset_with(json::parse(R"({"replicatedJobs": [
      {"name": "node", "template": {"spec": {"completions": 2, "template": {"spec": {}}}}}]})"),
                                             std::string(49, 'n')));
  const std::string job = std::string(49, 'n') + "-node-0";
  EXPECT_EQ(jobset_name_errors(js),
            (std::vector<std::string>{
                "spec.replicatedJobs[0].name: Invalid value: \"" + job +
                "\": JobSet name is too long, pod names generated for this JobSet will exceed 63 "
                "characters"}));
  const json longer = default_jobset(jobset_with(js["spec"], std::string(60, 'n')));
  EXPECT_EQ(jobset_name_errors(longer).size(), 2u);
  EXPECT_EQ(jobset_name_errors(longer)[0], "spec.replicatedJobs[0].name: Invalid value: \"" +
                                               std::string(60, 'n') +
                                               "-node-0\": JobSet name is too long, job names generated for "
                                               "this JobSet will exceed 63 characters");
  EXPECT_TRUE(jobset_name_errors(default_jobset(jobset_with(js["spec"], std::string(48, 'n')))).empty());
}

}  // namespace
}  // namespace kpt::model::trainjob
