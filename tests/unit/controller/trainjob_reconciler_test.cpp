#include "controller/trainjob_reconciler.hpp"

#include "controller/expectations.hpp"
#include "controller/object_cache.hpp"
#include "tests/support/fake_api_client.hpp"
#include "tests/unit/controller/informer_replay.hpp"

#include <gtest/gtest.h>

namespace kpt::controller {
namespace {

using kpt::testing::FakeApiClient;

/// A TrainJob of `nodes` nodes on the carried torch-distributed runtime, plus `spec` merged in.
nlohmann::json trainjob(int nodes, const nlohmann::json& spec = nlohmann::json::object()) {
  nlohmann::json tj = {{"apiVersion", "trainer.kubeflow.org/v1alpha1"},
                       {"kind", "TrainJob"},
                       {"metadata", {{"name", "mnist"}, {"namespace", "ns"}}},
                       {"spec",
                        {{"runtimeRef", {{"name", "torch-distributed"}}},
                         {"trainer", {{"numNodes", nodes}, {"command", {"torchrun", "train.py"}}}}}}};
  tj["spec"].merge_patch(spec);
  return tj;
}

class TrainJobReconcilerTest : public ::testing::Test {
 protected:
  TrainJobReconcilerTest()
      : clock(std::chrono::sys_days{std::chrono::year{2026} / 11 / 29} + std::chrono::hours{12}) {}

  void add(const nlohmann::json& tj) { api.put(kube::resources::trainjobs(), tj); }
  /// Plays the informers: a full re-list of what the fake holds, creations and deletions meeting
  /// the expectations.
  void sync() { replay_informers(api, pods, services, trainjobs, expectations, "trainjobs", "mnist"); }
  ReconcileResult pass() {
    sync();
    return reconciler.reconcile("ns/mnist");
  }
  std::vector<std::string> pod_names() const { return api.names("pods", "ns"); }
  /// Plays the kubelet for every pod.
  void set_all(const std::string& phase, int restarts = 0) {
    for (const auto& pod : pod_names()) {
      api.merge("pods", "ns", pod,
                {{"status",
                  {{"phase", phase},
                   {"conditions", {{{"type", "Ready"}, {"status", phase == "Running" ? "True" : "False"}}}},
                   {"containerStatuses", {{{"name", "node"}, {"restartCount", restarts}}}}}}});
    }
  }
  nlohmann::json status() const { return api.object("trainjobs", "ns", "mnist")["status"]; }
  nlohmann::json condition(const std::string& type) const {
    for (const auto& c : status().value("conditions", nlohmann::json::array())) {
      if (c["type"] == type) return c;
    }
    return nullptr;
  }
  int writes() const {
    return api.count("create") + api.count("update_status") + api.count("update") + api.count("patch") +
           api.count("delete");
  }

  FakeApiClient api;
  util::FakeClock clock;
  JobCache trainjobs;
  ChildCache pods{ChildCache::Kind::trainjob_pods};
  ChildCache services{ChildCache::Kind::trainjob_services};
  ChildCache jobsets{ChildCache::Kind::trainjob_jobsets};
  Expectations expectations{clock};
  TrainJobReconciler reconciler{api, clock, TrainJobOptions{.emit_events = false},
                                TrainJobCaches{trainjobs, pods, services, jobsets, expectations}};
};

TEST_F(TrainJobReconcilerTest, CreatesTheSnapshotTheHeadlessServiceAndOnePodPerNodeAsJobSetNamesThem) {
  add(trainjob(2));
  ASSERT_FALSE(pass().error.has_value());
  const auto cm = api.object("configmaps", "ns", "mnist-runtime-snapshot");
  ASSERT_FALSE(cm.is_null());
  EXPECT_EQ(cm["metadata"]["ownerReferences"][0]["kind"], "TrainJob");
  const auto svc = api.object("services", "ns", "mnist");
  ASSERT_FALSE(svc.is_null());
  EXPECT_EQ(svc["spec"]["clusterIP"], "None");
  EXPECT_EQ(svc["spec"]["selector"]["jobset.sigs.k8s.io/jobset-name"], "mnist");
  EXPECT_EQ(svc["metadata"]["ownerReferences"][0]["kind"], "TrainJob");
  const auto names = pod_names();
  ASSERT_EQ(names.size(), 2u);
  for (int k = 0; k < 2; ++k) {
    const auto& name = names[k];
    EXPECT_EQ(name.rfind("mnist-node-0-" + std::to_string(k) + "-", 0), 0u) << name;
    EXPECT_EQ(name.size(), std::string("mnist-node-0-0-").size() + 5);
    const auto pod = api.object("pods", "ns", name);
    EXPECT_EQ(pod["spec"]["hostname"], "mnist-node-0-" + std::to_string(k));
    EXPECT_EQ(pod["spec"]["subdomain"], "mnist");
    const auto& labels = pod["metadata"]["labels"];
    EXPECT_EQ(labels["jobset.sigs.k8s.io/jobset-name"], "mnist");
    EXPECT_EQ(labels["jobset.sigs.k8s.io/replicatedjob-name"], "node");
    EXPECT_EQ(labels["jobset.sigs.k8s.io/restart-attempt"], "0");
    EXPECT_EQ(labels["batch.kubernetes.io/job-name"], "mnist-node-0");
    EXPECT_EQ(labels["batch.kubernetes.io/job-completion-index"], std::to_string(k));
    EXPECT_EQ(pod["metadata"]["annotations"]["batch.kubernetes.io/job-completion-index"], std::to_string(k));
    EXPECT_EQ(pod["metadata"]["ownerReferences"][0]["kind"], "TrainJob");
    EXPECT_EQ(pod["metadata"]["ownerReferences"][0]["uid"],
              api.object("trainjobs", "ns", "mnist")["metadata"]["uid"]);
    std::map<std::string, nlohmann::json> env;
    for (const auto& e : pod["spec"]["containers"][0]["env"]) env[e["name"]] = e;
    EXPECT_EQ(env["PET_NNODES"]["value"], "2");
    EXPECT_EQ(env["PET_MASTER_ADDR"]["value"], "mnist-node-0-0.mnist");
    EXPECT_EQ(env["PET_MASTER_PORT"]["value"], "29500");
    EXPECT_EQ(env["PET_NODE_RANK"]["valueFrom"]["fieldRef"]["fieldPath"],
              "metadata.annotations['batch.kubernetes.io/job-completion-index']");
  }
}

TEST_F(TrainJobReconcilerTest, ASteadyJobCostsNoWritesAndARetriedCreateMakesNoSecondPod) {
  add(trainjob(2));
  ASSERT_FALSE(pass().error.has_value());
  set_all("Running");
  ASSERT_FALSE(pass().error.has_value());  // jobsStatus: 1 active
  const int before = writes();
  ASSERT_FALSE(pass().error.has_value());
  EXPECT_EQ(writes(), before);
  // A lost pod comes back under the same deterministic name.
  const auto lost = pod_names().front();
  api.purge("pods", "ns", lost);
  ASSERT_FALSE(pass().error.has_value());
  EXPECT_EQ(pod_names().size(), 2u);
  EXPECT_FALSE(api.object("pods", "ns", lost).is_null());
}

TEST_F(TrainJobReconcilerTest, TheCreatingPassWritesTheStatusThePendingPodsConfirm) {
  add(trainjob(2));
  ASSERT_FALSE(pass().error.has_value());
  const auto status = api.object("trainjobs", "ns", "mnist")["status"];
  const int before = writes();
  ASSERT_FALSE(pass().error.has_value());           // the informers now show the pods, Pending
  EXPECT_EQ(status["jobsStatus"][0]["active"], 1);  // Jobs, not pods: one Job of 2 indexed pods
  EXPECT_EQ(writes(), before);
}

TEST_F(TrainJobReconcilerTest, CompletesWhenEveryNodeSucceeded) {
  add(trainjob(2));
  ASSERT_FALSE(pass().error.has_value());
  set_all("Succeeded");
  ASSERT_FALSE(pass().error.has_value());
  const auto c = condition("Complete");
  ASSERT_FALSE(c.is_null());
  EXPECT_EQ(c["status"], "True");
  EXPECT_EQ(c["reason"], "AllJobsCompleted");
  EXPECT_EQ(c["message"], "jobset completed successfully");
  EXPECT_EQ(status()["jobsStatus"][0]["name"], "node");
  EXPECT_EQ(status()["jobsStatus"][0]["succeeded"], 1);
  const int before = writes();
  ASSERT_FALSE(pass().error.has_value());  // finished: nothing more
  EXPECT_EQ(writes(), before);
}

TEST_F(TrainJobReconcilerTest, FailsWithoutAFailurePolicyOnceTheBackoffLimitIsReached) {
  add(trainjob(2));
  ASSERT_FALSE(pass().error.has_value());
  set_all("Running", 6);  // restartPolicy OnFailure: container restarts count toward backoffLimit 6
  ASSERT_FALSE(pass().error.has_value());
  const auto c = condition("Failed");
  ASSERT_FALSE(c.is_null());
  EXPECT_EQ(c["reason"], "FailedJobs");
  EXPECT_EQ(c["message"], "jobset failed due to one or more job failures (first failed job: mnist-node-0)");
  EXPECT_TRUE(pod_names().empty());  // the failed Job's active pods are deleted
  sync();
  ASSERT_FALSE(pass().error.has_value());
  EXPECT_TRUE(pod_names().empty());  // and never recreated
  EXPECT_EQ(condition("Failed")["reason"], "FailedJobs");
}

TEST_F(TrainJobReconcilerTest, RestartsTheWholeGroupUpToMaxRestartsThenFails) {
  api.put(kube::resources::clustertrainingruntimes(), nlohmann::json::parse(R"({
    "apiVersion": "trainer.kubeflow.org/v1alpha1", "kind": "ClusterTrainingRuntime",
    "metadata": {"name": "torch-restarting"},
    "spec": {"mlPolicy": {"numNodes": 1, "torch": {}},
             "template": {"spec": {"failurePolicy": {"maxRestarts": 1},
               "replicatedJobs": [{"name": "node", "template": {
                 "metadata": {"labels": {"trainer.kubeflow.org/trainjob-ancestor-step": "trainer"}},
                 "spec": {"template": {"spec": {"containers": [{"name": "node", "image": "img"}]}}}}}]}}}})"));
  add(trainjob(2, {{"runtimeRef", {{"name", "torch-restarting"}}}}));
  ASSERT_FALSE(pass().error.has_value());
  set_all("Running", 6);
  ASSERT_FALSE(pass().error.has_value());
  EXPECT_TRUE(condition("Failed").is_null());
  EXPECT_EQ(api.object("trainjobs", "ns", "mnist")["metadata"]["annotations"][k_jobset_restarts_annotation],
            "1/1");
  EXPECT_TRUE(pod_names().empty());  // the old attempt goes first
  ASSERT_FALSE(pass().error.has_value());
  ASSERT_EQ(pod_names().size(), 2u);
  EXPECT_EQ(
      api.object("pods", "ns", pod_names()[0])["metadata"]["labels"]["jobset.sigs.k8s.io/restart-attempt"],
      "1");
  set_all("Running", 6);
  ASSERT_FALSE(pass().error.has_value());
  EXPECT_EQ(condition("Failed")["reason"], "ReachedMaxRestarts");
}

TEST_F(TrainJobReconcilerTest, SuspendDeletesThePodsAndResumeRecreatesThem) {
  add(trainjob(2));
  ASSERT_FALSE(pass().error.has_value());
  api.merge("trainjobs", "ns", "mnist", {{"spec", {{"suspend", true}}}});
  ASSERT_FALSE(pass().error.has_value());
  EXPECT_TRUE(pod_names().empty());
  EXPECT_EQ(condition("Suspended")["status"], "True");
  EXPECT_EQ(condition("Suspended")["reason"], "Suspended");
  EXPECT_EQ(condition("Suspended")["message"], "TrainJob is suspended");
  api.merge("trainjobs", "ns", "mnist", {{"spec", {{"suspend", false}}}});
  ASSERT_FALSE(pass().error.has_value());
  EXPECT_EQ(pod_names().size(), 2u);
  EXPECT_EQ(condition("Suspended")["status"], "False");
  EXPECT_EQ(condition("Suspended")["reason"], "Resumed");
  EXPECT_EQ(condition("Suspended")["message"], "TrainJob is resumed");
}

TEST_F(TrainJobReconcilerTest, ActiveDeadlineRequeuesForItThenFailsAndDeletesEverything) {
  add(trainjob(2, {{"activeDeadlineSeconds", 60}}));
  const auto first = pass();
  ASSERT_FALSE(first.error.has_value());
  ASSERT_TRUE(first.requeue_after.has_value());
  EXPECT_EQ(*first.requeue_after, std::chrono::seconds{60});
  clock.advance(std::chrono::seconds{61});
  ASSERT_FALSE(pass().error.has_value());
  EXPECT_EQ(condition("Failed")["reason"], "DeadlineExceeded");
  EXPECT_EQ(condition("Failed")["message"], "TrainJob exceeded its active deadline");
  EXPECT_TRUE(pod_names().empty());
  EXPECT_TRUE(api.names("services", "ns").empty());
  ASSERT_FALSE(pass().error.has_value());
  EXPECT_TRUE(pod_names().empty());  // never recreated
}

TEST_F(TrainJobReconcilerTest, MultiKueueManagedJobsAreLeftAlone) {
  add(trainjob(2, {{"managedBy", "kueue.x-k8s.io/multikueue"}}));
  ASSERT_FALSE(pass().error.has_value());
  EXPECT_TRUE(api.calls().empty());
}

TEST_F(TrainJobReconcilerTest, AMissingRuntimeIsARetriedErrorWithTheRealText) {
  add(trainjob(1, {{"runtimeRef", {{"name", "nope"}, {"kind", "TrainingRuntime"}}}}));
  const auto r = pass();
  ASSERT_TRUE(r.error.has_value());
  EXPECT_TRUE(r.retriable);
  EXPECT_EQ(
      r.error->message,
      "TrainingRuntime specified in TrainJob is not found: trainingruntimes.trainer.kubeflow.org \"nope\" "
      "not found");
  EXPECT_TRUE(pod_names().empty());
}

TEST_F(TrainJobReconcilerTest, ServerErrorsAreRetriedAndTheRetryConverges) {
  add(trainjob(2));
  api.fail_next("create", 500, "InternalError");
  const auto r = pass();
  ASSERT_TRUE(r.error.has_value());
  EXPECT_TRUE(r.retriable);
  ASSERT_FALSE(pass().error.has_value());
  EXPECT_EQ(pod_names().size(), 2u);
  EXPECT_EQ(api.names("services", "ns").size(), 1u);
}

TEST_F(TrainJobReconcilerTest, InitializersRunBeforeTheTrainer) {
  add(trainjob(1, {{"runtimeRef", {{"name", "torchtune-llama3.2-1b"}}},
                   {"trainer", {{"command", nlohmann::json::array({"tune", "run"})}}}}));
  ASSERT_FALSE(pass().error.has_value());
  std::set<std::string> jobs;
  for (const auto& name : pod_names())
    jobs.insert(
        api.object("pods", "ns", name)["metadata"]["labels"]["jobset.sigs.k8s.io/replicatedjob-name"]);
  EXPECT_EQ(jobs, (std::set<std::string>{"dataset-initializer", "model-initializer"}));
  set_all("Succeeded");
  ASSERT_FALSE(pass().error.has_value());
  jobs.clear();
  for (const auto& name : pod_names())
    jobs.insert(
        api.object("pods", "ns", name)["metadata"]["labels"]["jobset.sigs.k8s.io/replicatedjob-name"]);
  EXPECT_EQ(jobs, (std::set<std::string>{"dataset-initializer", "model-initializer", "node"}));
}

}  // namespace
}  // namespace kpt::controller
