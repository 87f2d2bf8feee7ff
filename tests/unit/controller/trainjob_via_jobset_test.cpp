// The TrainJob reconciler with --via-jobset against the fake client: it applies the JobSet Trainer
// builds and derives the TrainJob's status from the JobSet's, which the tests write as the JobSet
// controller would.
#include "controller/expectations.hpp"
#include "controller/object_cache.hpp"
#include "controller/trainjob_reconciler.hpp"
#include "model/trainjob/build.hpp"
#include "model/trainjob/runtime_ref.hpp"
#include "tests/support/fake_api_client.hpp"

#include <gtest/gtest.h>

namespace kpt::controller {
namespace {

using kpt::testing::FakeApiClient;
using nlohmann::json;

json trainjob(int nodes, const json& spec = json::object()) {
  json tj = {{"apiVersion", "trainer.kubeflow.org/v1alpha1"},
             {"kind", "TrainJob"},
             {"metadata", {{"name", "mnist"}, {"namespace", "ns"}}},
             {"spec",
              {{"runtimeRef", {{"name", "torch-distributed"}}},
               {"trainer", {{"numNodes", nodes}, {"command", {"torchrun", "train.py"}}}}}}};
  tj["spec"].merge_patch(spec);
  return tj;
}

json condition_json(const char* type, const char* reason, const char* message) {
  return {{"type", type},
          {"status", "True"},
          {"reason", reason},
          {"message", message},
          {"lastTransitionTime", "2026-11-29T12:05:00Z"}};
}

class ViaJobSetTest : public ::testing::Test {
 protected:
  ViaJobSetTest()
      : clock(std::chrono::sys_days{std::chrono::year{2026} / 11 / 29} + std::chrono::hours{12}) {}

  void add(const json& tj) { api.put(kube::resources::trainjobs(), tj); }
  /// Plays the informers: a full re-list of the JobSets and the TrainJob, the JobSets' creations
  /// and deletions meeting the expectations.
  void sync() {
    std::vector<json> items;
    for (const auto& name : api.names("jobsets", "ns")) items.push_back(api.object("jobsets", "ns", name));
    for (const auto& change : jobsets.list_page(items, true, true)) {
      if (change.created) expectations.observe_creation(change.job_key);
      if (change.deleted) expectations.observe_deletion(change.job_key);
    }
    std::vector<json> listed;
    if (auto tj = api.object("trainjobs", "ns", "mnist"); !tj.is_null()) listed.push_back(tj);
    (void)trainjobs.list_page(listed, true, true);
  }
  ReconcileResult pass() {
    sync();
    return reconciler.reconcile("ns/mnist");
  }
  /// Plays the JobSet controller: its status.
  void jobset_status(const json& status) { api.merge("jobsets", "ns", "mnist", {{"status", status}}); }
  json jobset() const { return api.object("jobsets", "ns", "mnist"); }
  json status() const { return api.object("trainjobs", "ns", "mnist")["status"]; }
  json condition(const std::string& type) const {
    for (const auto& c : status().value("conditions", json::array())) {
      if (c["type"] == type) return c;
    }
    return nullptr;
  }
  int applies() const { return api.count("patch", "jobsets"); }
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
  TrainJobReconciler reconciler{api, clock, TrainJobOptions{.emit_events = false, .via_jobset = true},
                                TrainJobCaches{trainjobs, pods, services, jobsets, expectations}};
};

TEST_F(ViaJobSetTest, AppliesTheJobSetTrainerBuildsAsFieldManagerTrainerWithForceAndNoPods) {
  api.put(kube::resources::trainingruntimes(), json::parse(R"({
    "apiVersion": "trainer.kubeflow.org/v1alpha1", "kind": "TrainingRuntime",
    "metadata": {"name": "torch-team", "namespace": "ns"},
    "spec": {"mlPolicy": {"numNodes": 1, "torch": {}},
             "template": {"metadata": {"labels": {"team": "a"}, "annotations": {"note": "n"}},
               "spec": {"network": {"subdomain": "grp"},
                        "successPolicy": {"operator": "All", "targetReplicatedJobs": ["node"]},
                        "failurePolicy": {"maxRestarts": 2},
                        "replicatedJobs": [{"name": "node", "template": {
                 "metadata": {"labels": {"trainer.kubeflow.org/trainjob-ancestor-step": "trainer"}},
                 "spec": {"template": {"spec": {"containers": [{"name": "node", "image": "img"}]}}}}}]}}}})"));
  add(trainjob(2, json::parse(R"({"runtimeRef": {"name": "torch-team", "kind": "TrainingRuntime"},
    "runtimePatches": [{"manager": "example.com/ops",
      "trainingRuntimeSpec": {"template": {"metadata": {"labels": {"cost": "b"}}}}}]})")));
  const auto r = pass();
  ASSERT_FALSE(r.error.has_value()) << r.error->message;
  const auto stored = api.object("trainjobs", "ns", "mnist");
  const auto cm = api.object("configmaps", "ns", "mnist-runtime-snapshot");
  ASSERT_FALSE(cm.is_null());
  const auto runtime = model::trainjob::runtime_from_snapshot(cm, stored);
  ASSERT_TRUE(runtime.has_value()) << runtime.error().message;
  const auto built =
      model::trainjob::build_jobset(stored, *runtime, model::trainjob::k_newest_trainer_release);
  ASSERT_TRUE(built.has_value());
  const auto js = jobset();
  ASSERT_FALSE(js.is_null());
  EXPECT_EQ(js["apiVersion"], "jobset.x-k8s.io/v1alpha2");
  EXPECT_EQ(js["kind"], "JobSet");
  EXPECT_EQ(js["spec"], built->jobset["spec"]);
  EXPECT_EQ(js["metadata"]["labels"], (json{{"team", "a"}, {"cost", "b"}}));
  EXPECT_EQ(js["metadata"]["annotations"], (json{{"note", "n"}}));
  EXPECT_EQ(js["metadata"]["ownerReferences"], (json::array({{{"apiVersion", "trainer.kubeflow.org/v1alpha1"},
                                                              {"kind", "TrainJob"},
                                                              {"name", "mnist"},
                                                              {"uid", stored["metadata"]["uid"]},
                                                              {"controller", true},
                                                              {"blockOwnerDeletion", true}}})));
  // The runtime's policies and network, numNodes as parallelism, torch's env, suspend.
  EXPECT_EQ(js["spec"]["network"]["subdomain"], "grp");
  EXPECT_EQ(js["spec"]["successPolicy"]["operator"], "All");
  EXPECT_EQ(js["spec"]["failurePolicy"]["maxRestarts"], 2);
  EXPECT_EQ(js["spec"]["suspend"], false);
  const auto& job = js["spec"]["replicatedJobs"][0];
  EXPECT_EQ(job["replicas"], 1);
  EXPECT_EQ(job["template"]["spec"]["parallelism"], 2);
  EXPECT_EQ(job["template"]["spec"]["completions"], 2);
  std::map<std::string, json> env;
  for (const auto& e : job["template"]["spec"]["template"]["spec"]["containers"][0]["env"])
    env[e["name"]] = e;
  EXPECT_EQ(env["PET_NNODES"]["value"], "2");
  EXPECT_EQ(env["PET_MASTER_ADDR"]["value"], "mnist-node-0-0.mnist");  // Trainer ignores the subdomain
  const auto calls = api.calls();
  const auto apply =
      std::find_if(calls.begin(), calls.end(), [](const auto& c) { return c.resource == "jobsets"; });
  ASSERT_NE(apply, calls.end());
  EXPECT_EQ(apply->verb, "patch");
  EXPECT_EQ(apply->field_manager, "trainer");
  EXPECT_TRUE(apply->force);
  EXPECT_TRUE(api.names("pods", "ns").empty());
  EXPECT_TRUE(api.names("services", "ns").empty());
  EXPECT_EQ(writes(), 2);  // the snapshot and the JobSet; no status yet, the JobSet has none
  EXPECT_TRUE(status().is_null() || status().empty());
}

TEST_F(ViaJobSetTest, WaitsForTheInformerToShowTheNewJobSetBeforeActingAgain) {
  add(trainjob(2));
  ASSERT_FALSE(pass().error.has_value());
  ASSERT_FALSE(reconciler.reconcile("ns/mnist").error.has_value());  // the cache has not seen it yet
  EXPECT_EQ(applies(), 1);
  ASSERT_FALSE(pass().error.has_value());
  EXPECT_EQ(applies(), 1);
}

TEST_F(ViaJobSetTest, ARunningJobSetIsNeverUpdatedAndItsCountsBecomeJobsStatus) {
  add(trainjob(2));
  ASSERT_FALSE(pass().error.has_value());
  jobset_status({{"restarts", 0},
                 {"replicatedJobsStatus",
                  {{{"name", "node"},
                    {"ready", 1},
                    {"succeeded", 0},
                    {"failed", 0},
                    {"active", 1},
                    {"suspended", 0}}}}});
  ASSERT_FALSE(pass().error.has_value());
  EXPECT_EQ(status()["jobsStatus"], (json::array({{{"name", "node"},
                                                   {"ready", 1},
                                                   {"succeeded", 0},
                                                   {"failed", 0},
                                                   {"active", 1},
                                                   {"suspended", 0}}})));
  EXPECT_FALSE(status().contains("conditions"));
  const int before = writes();
  ASSERT_FALSE(pass().error.has_value());  // a steady job costs nothing
  EXPECT_EQ(writes(), before);
  EXPECT_EQ(applies(), 1);
}

TEST_F(ViaJobSetTest, CompleteAndFailedComeFromTheJobSetsConditions) {
  struct Case {
    const char* name;
    json condition;
    const char* type;
  };
  const char* failed = "jobset failed due to one or more job failures (first failed job: mnist-node-0)";
  for (const auto& c :
       {Case{"completed", condition_json("Completed", "AllJobsCompleted", "jobset completed successfully"),
             "Complete"},
        Case{"failed", condition_json("Failed", "FailedJobs", failed), "Failed"}}) {
    SCOPED_TRACE(c.name);
    api.purge("trainjobs", "ns", "mnist");
    api.purge("jobsets", "ns", "mnist");
    api.purge("configmaps", "ns", "mnist-runtime-snapshot");
    sync();
    (void)reconciler.reconcile("ns/mnist");  // forgets the deleted TrainJob
    add(trainjob(2));
    ASSERT_FALSE(pass().error.has_value());
    jobset_status({{"conditions", {c.condition}}, {"terminalState", c.condition["type"]}});
    ASSERT_FALSE(pass().error.has_value());
    const auto got = condition(c.type);
    ASSERT_FALSE(got.is_null());
    EXPECT_EQ(got["status"], "True");
    EXPECT_EQ(got["reason"], c.condition["reason"]);
    EXPECT_EQ(got["message"], c.condition["message"]);
    EXPECT_EQ(got["lastTransitionTime"], "2026-11-29T12:05:00Z");
    const int before = writes();
    ASSERT_FALSE(pass().error.has_value());  // finished: nothing more
    EXPECT_EQ(writes(), before);
  }
}

// kubeflow/trainer#3891: Trainer v2.3 dropped the Failed condition at the start of each pass, so a
// failed TrainJob whose JobSet was deleted got a new one, its restarts counted from 0 again.
TEST_F(ViaJobSetTest, AFailedTrainJobStaysFailedAndItsDeletedJobSetIsNotRecreated) {
  add(trainjob(2));
  ASSERT_FALSE(pass().error.has_value());
  const json failed = condition_json("Failed", "FailedJobs", "jobset failed");
  jobset_status({{"conditions", {failed}}, {"terminalState", "Failed"}});
  ASSERT_FALSE(pass().error.has_value());
  ASSERT_EQ(condition("Failed"), failed);
  const int applied = applies();
  api.purge("jobsets", "ns", "mnist");
  for (int i = 0; i < 2; ++i) {
    SCOPED_TRACE(i);
    ASSERT_FALSE(pass().error.has_value());
    EXPECT_TRUE(jobset().is_null());
    EXPECT_EQ(applies(), applied);
    EXPECT_EQ(condition("Failed"), failed);
  }
}

TEST_F(ViaJobSetTest, SuspendAndResumeGoToTheJobSetAndASuspendedOneIsNotReappliedUnchanged) {
  add(trainjob(2));
  ASSERT_FALSE(pass().error.has_value());
  api.merge("trainjobs", "ns", "mnist", {{"spec", {{"suspend", true}}}});
  ASSERT_FALSE(pass().error.has_value());
  EXPECT_EQ(jobset()["spec"]["suspend"], true);
  EXPECT_EQ(condition("Suspended")["status"], "True");
  EXPECT_EQ(condition("Suspended")["reason"], "Suspended");
  EXPECT_EQ(condition("Suspended")["message"], "TrainJob is suspended");
  EXPECT_EQ(applies(), 2);
  // Our own apply's answer is in the cache at once: a pass before the watch event changes nothing.
  ASSERT_FALSE(reconciler.reconcile("ns/mnist").error.has_value());
  EXPECT_EQ(applies(), 2);
  jobset_status({{"replicatedJobsStatus",
                  {{{"name", "node"},
                    {"ready", 0},
                    {"succeeded", 0},
                    {"failed", 0},
                    {"active", 0},
                    {"suspended", 1}}}}});
  ASSERT_FALSE(pass().error.has_value());
  EXPECT_EQ(status()["jobsStatus"][0]["suspended"], 1);
  EXPECT_EQ(applies(), 2);  // Trainer would send the same apply again
  api.merge("trainjobs", "ns", "mnist", {{"spec", {{"suspend", false}}}});
  ASSERT_FALSE(pass().error.has_value());
  EXPECT_EQ(jobset()["spec"]["suspend"], false);
  EXPECT_EQ(condition("Suspended")["status"], "False");
  EXPECT_EQ(condition("Suspended")["reason"], "Resumed");
  EXPECT_EQ(condition("Suspended")["message"], "TrainJob is resumed");
  EXPECT_EQ(applies(), 3);
  ASSERT_FALSE(pass().error.has_value());
  EXPECT_EQ(applies(), 3);  // running again: never updated
}

TEST_F(ViaJobSetTest, PastTheActiveDeadlineTheJobSetIsDeletedAndTheTrainJobFails) {
  add(trainjob(2, {{"activeDeadlineSeconds", 60}}));
  const auto first = pass();
  ASSERT_FALSE(first.error.has_value());
  ASSERT_TRUE(first.requeue_after.has_value());
  EXPECT_EQ(*first.requeue_after, std::chrono::seconds{60});
  clock.advance(std::chrono::seconds{61});
  ASSERT_FALSE(pass().error.has_value());
  EXPECT_TRUE(jobset().is_null());
  EXPECT_EQ(condition("Failed")["reason"], "DeadlineExceeded");
  EXPECT_EQ(condition("Failed")["message"], "TrainJob exceeded its active deadline");
  const int before = writes();
  ASSERT_FALSE(pass().error.has_value());
  EXPECT_TRUE(jobset().is_null());  // never recreated
  EXPECT_EQ(writes(), before);
}

TEST_F(ViaJobSetTest, ARejectedApplyIsRetriedAndNothingElseIsWritten) {
  add(trainjob(2));
  api.fail_next("patch", 422, "Invalid");
  const auto r = pass();
  ASSERT_TRUE(r.error.has_value());
  EXPECT_TRUE(r.retriable);
  EXPECT_NE(r.error->message.find("applying JobSet 'mnist'"), std::string::npos) << r.error->message;
  EXPECT_TRUE(status().is_null() || status().empty());  // as Trainer: only an event says so
  ASSERT_FALSE(pass().error.has_value());               // the expectation was forgotten: the retry applies
  EXPECT_FALSE(jobset().is_null());
}

TEST_F(ViaJobSetTest, MultiKueueManagedJobsAreLeftAlone) {
  add(trainjob(2, {{"managedBy", "kueue.x-k8s.io/multikueue"}}));
  ASSERT_FALSE(pass().error.has_value());
  EXPECT_TRUE(api.calls().empty());
}

}  // namespace
}  // namespace kpt::controller
