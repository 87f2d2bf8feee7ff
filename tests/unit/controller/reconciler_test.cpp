#include "controller/reconciler.hpp"

#include "controller/expectations.hpp"
#include "controller/metrics.hpp"
#include "controller/object_cache.hpp"
#include "tests/support/fake_api_client.hpp"
#include "tests/unit/controller/informer_replay.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <functional>

namespace kpt::controller {
namespace {

using kpt::testing::FakeApiClient;
using std::chrono::seconds;

nlohmann::json job_json(const std::string& run_policy = "{}", const std::string& restart = "OnFailure",
                        bool master = true) {
  auto replicas = nlohmann::json::object();
  const auto tmpl =
      nlohmann::json::parse(R"({"spec": {"containers": [{"name": "pytorch", "image": "img"}]}})");
  if (master) replicas["Master"] = {{"replicas", 1}, {"restartPolicy", restart}, {"template", tmpl}};
  replicas["Worker"] = {{"replicas", 2}, {"restartPolicy", restart}, {"template", tmpl}};
  return {{"apiVersion", "kubeflow.org/v1"},
          {"kind", "PyTorchJob"},
          {"metadata", {{"name", "mnist"}, {"namespace", "ns"}, {"uid", "job-uid"}}},
          {"spec", {{"runPolicy", nlohmann::json::parse(run_policy)}, {"pytorchReplicaSpecs", replicas}}}};
}

class ReconcilerTest : public ::testing::Test {
 protected:
  ReconcilerTest()
      : clock(std::chrono::sys_days{std::chrono::year{2026} / 11 / 29} + std::chrono::hours{12}) {}

  void add_job(const nlohmann::json& job) { api.put(kube::resources::pytorchjobs(), job); }
  /// Plays the informers: a full re-list of what the fake holds goes into the caches, and the
  /// creations and deletions it shows meet the expectations.
  void sync() { replay_informers(api, pods, services, jobs, expectations, "pytorchjobs", "mnist"); }
  ReconcileResult pass() {
    sync();
    return reconciler.reconcile("ns/mnist");
  }
  int writes() const {
    return api.count("create", "pods") + api.count("create", "services") + api.count("update_status") +
           api.count("update") + api.count("patch") + api.count("delete");
  }
  /// Plays the kubelet: sets a pod's phase (and the pytorch container's exit code).
  void set_phase(const std::string& pod, const std::string& phase, std::optional<int> exit_code = {}) {
    nlohmann::json status = {{"phase", phase}};
    if (exit_code) {
      status["containerStatuses"] = {{{"name", "pytorch"},
                                      {"restartCount", 0},
                                      {"state", {{"terminated", {{"exitCode", *exit_code}}}}}}};
    }
    api.merge("pods", "ns", pod, {{"status", status}});
  }
  nlohmann::json status() const { return api.object("pytorchjobs", "ns", "mnist")["status"]; }
  std::string state() const { return status()["conditions"].back()["type"]; }

  FakeApiClient api;
  util::FakeClock clock;
  Metrics metrics;
  JobCache jobs;
  ChildCache pods{ChildCache::Kind::pods};
  ChildCache services{ChildCache::Kind::services};
  Expectations expectations{clock};
  Reconciler reconciler{api, clock, ReconcilerOptions{}, ReconcilerCaches{jobs, pods, services, expectations},
                        &metrics};
};

TEST_F(ReconcilerTest, CreatesOneHeadlessServiceAndOnePodPerReplicaWithOwnerReferences) {
  add_job(job_json());
  const auto r = pass();
  ASSERT_FALSE(r.error.has_value()) << r.error->message;
  const std::vector<std::string> names{"mnist-master-0", "mnist-worker-0", "mnist-worker-1"};
  EXPECT_EQ(api.names("pods", "ns"), names);
  EXPECT_EQ(api.names("services", "ns"), names);
  const auto pod = api.object("pods", "ns", "mnist-worker-1");
  EXPECT_EQ(pod["metadata"]["ownerReferences"][0]["uid"], "job-uid");
  EXPECT_EQ(pod["metadata"]["ownerReferences"][0]["controller"], true);
  EXPECT_EQ(pod["metadata"]["labels"]["training.kubeflow.org/replica-index"], "1");
  EXPECT_EQ(api.object("services", "ns", "mnist-master-0")["spec"]["clusterIP"], "None");
  EXPECT_EQ(api.count("update_status"), 1);
  EXPECT_EQ(state(), "Created");
  EXPECT_EQ(writes(), 7);  // the minimum: 3 Services, 3 Pods, 1 status
}

TEST_F(ReconcilerTest, ASecondPassOverAnUnchangedWorldWritesNothing) {
  add_job(job_json());
  ASSERT_FALSE(pass().error.has_value());
  api.clear_calls();
  ASSERT_FALSE(pass().error.has_value());
  EXPECT_EQ(writes(), 0);
}

TEST_F(ReconcilerTest, AlreadyExistsCountsAsSuccess) {
  add_job(job_json());
  api.fail_next("create", 409, "AlreadyExists", 2);
  const auto r = pass();
  EXPECT_FALSE(r.error.has_value());
}

TEST_F(ReconcilerTest, ServerErrorsAreRetriableAndSayWhatFailed) {
  add_job(job_json());
  api.fail_next("create", 500, "InternalError");
  const auto r = pass();
  ASSERT_TRUE(r.error.has_value());
  EXPECT_TRUE(r.retriable);
  EXPECT_EQ(r.error->message, "creating service 'mnist-master-0': injected InternalError");
  EXPECT_FALSE(pass().error.has_value());  // the retry converges
  EXPECT_EQ(api.names("pods", "ns").size(), 3u);
}

TEST_F(ReconcilerTest, MasterSuccessSucceedsTheJobAndCleanPodPolicyAllRemovesEverything) {
  add_job(job_json(R"({"cleanPodPolicy": "All"})"));
  ASSERT_FALSE(pass().error.has_value());
  for (const auto* p : {"mnist-master-0", "mnist-worker-0", "mnist-worker-1"}) set_phase(p, "Running");
  ASSERT_FALSE(pass().error.has_value());
  EXPECT_EQ(state(), "Running");
  set_phase("mnist-master-0", "Succeeded", 0);
  clock.advance(seconds{10});
  ASSERT_FALSE(pass().error.has_value());
  EXPECT_EQ(state(), "Succeeded");
  EXPECT_EQ(status()["completionTime"], "2026-11-29T12:00:10Z");
  EXPECT_TRUE(api.names("pods", "ns").empty());
  EXPECT_TRUE(api.names("services", "ns").empty());
}

TEST_F(ReconcilerTest, AFailedPodIsRecreatedAndTheRecreationIsRecordedOnTheJob) {
  add_job(job_json());
  api.set_graceful_delete(true);
  ASSERT_FALSE(pass().error.has_value());
  set_phase("mnist-worker-0", "Failed", 1);
  ASSERT_FALSE(pass().error.has_value());
  EXPECT_EQ(state(), "Restarting");
  const auto job = api.object("pytorchjobs", "ns", "mnist");
  EXPECT_EQ(job["metadata"]["annotations"]["kubectl-pytorch.dev/recreations"], "1");
  ASSERT_FALSE(pass().error.has_value());  // still terminating: not re-created yet, nor deleted twice
  EXPECT_EQ(api.count("delete", "pods"), 1);
  EXPECT_EQ(api.count("create", "pods"), 3);
  api.purge("pods", "ns", "mnist-worker-0");
  ASSERT_FALSE(pass().error.has_value());
  EXPECT_EQ(api.count("create", "pods"), 4);
  EXPECT_EQ(api.object("pods", "ns", "mnist-worker-0")["status"], nullptr);
}

// SIGKILL between recording two re-creations and deleting the pods: the restarted controller (fresh
// caches and expectations) deletes and re-creates them without counting them again, so a backoff
// limit of two still allows these two retries.
TEST(ReconcilerRestart, AKillBetweenRecordingAndDeletingDoesNotSpendTheBackoffLimitTwice) {
  FakeApiClient api;
  util::FakeClock clock(std::chrono::sys_days{std::chrono::year{2026} / 11 / 29});
  api.put(kube::resources::pytorchjobs(), job_json(R"({"backoffLimit": 2})", "ExitCode", false));
  auto controller_pass = [&] {  // a new controller process each time
    Metrics metrics;
    JobCache jobs;
    ChildCache pods{ChildCache::Kind::pods};
    ChildCache services{ChildCache::Kind::services};
    Expectations expectations{clock};
    Reconciler reconciler{api, clock, ReconcilerOptions{},
                          ReconcilerCaches{jobs, pods, services, expectations}, &metrics};
    replay_informers(api, pods, services, jobs, expectations, "pytorchjobs", "mnist");
    return reconciler.reconcile("ns/mnist");
  };
  ASSERT_FALSE(controller_pass().error.has_value());
  for (const auto* w : {"mnist-worker-0", "mnist-worker-1"}) {
    api.merge("pods", "ns", w,
              {{"status",
                {{"phase", "Failed"},
                 {"containerStatuses",
                  {{{"name", "pytorch"}, {"state", {{"terminated", {{"exitCode", 137}}}}}}}}}}});
  }
  api.fail_next("delete", 500, "InternalError");  // the process dies here: nothing after the patch
  ASSERT_TRUE(controller_pass().error.has_value());
  const auto recorded = api.object("pytorchjobs", "ns", "mnist")["metadata"]["annotations"];
  EXPECT_EQ(recorded["kubectl-pytorch.dev/recreations"], "2");
  EXPECT_EQ(api.names("pods", "ns").size(), 2u);

  ASSERT_FALSE(controller_pass().error.has_value());
  const auto job = api.object("pytorchjobs", "ns", "mnist");
  EXPECT_EQ(job["status"]["conditions"].back()["type"], "Restarting");
  EXPECT_EQ(job["metadata"]["annotations"]["kubectl-pytorch.dev/recreations"], "2");
  ASSERT_FALSE(controller_pass().error.has_value());  // the deleted pods come back
  EXPECT_EQ(api.names("pods", "ns"), (std::vector<std::string>{"mnist-worker-0", "mnist-worker-1"}));
  EXPECT_EQ(api.object("pods", "ns", "mnist-worker-0")["status"], nullptr);
}

// The garbage collector's pod deletion can reach the pod cache before the job's deletion reaches
// the job cache: the stale job must not get its pods back.
class StaleJobCacheTest : public ReconcilerTest {
 protected:
  /// Creates the job's children, then lets the pod cache see the master pod go while the job
  /// cache keeps the job as it was; `server_side` then changes the job on the server only.
  void master_pod_gone_then(const std::function<void()>& server_side) {
    add_job(job_json());
    ASSERT_FALSE(pass().error.has_value());
    sync();  // the caches show what the pass created
    api.purge("pods", "ns", "mnist-master-0");
    sync();
    server_side();
    const auto r = reconciler.reconcile("ns/mnist");
    ASSERT_FALSE(r.error.has_value()) << r.error->message;
    EXPECT_EQ(api.count("create", "pods"), 3);
    EXPECT_EQ(api.names("pods", "ns"), (std::vector<std::string>{"mnist-worker-0", "mnist-worker-1"}));
  }
};

TEST_F(StaleJobCacheTest, APodOfADeletedJobIsNotRecreated) {
  master_pod_gone_then([&] { api.purge("pytorchjobs", "ns", "mnist"); });
}

TEST_F(StaleJobCacheTest, APodOfAJobBeingDeletedIsNotRecreated) {
  master_pod_gone_then([&] {
    api.merge("pytorchjobs", "ns", "mnist", {{"metadata", {{"deletionTimestamp", "2026-11-29T12:00:01Z"}}}});
  });
}

TEST_F(ReconcilerTest, APodDeletedUnderALiveJobIsRecreated) {
  add_job(job_json());
  ASSERT_FALSE(pass().error.has_value());
  sync();  // the caches show what the pass created
  api.purge("pods", "ns", "mnist-master-0");
  ASSERT_FALSE(pass().error.has_value());
  EXPECT_EQ(api.count("create", "pods"), 4);
  EXPECT_EQ(api.names("pods", "ns").size(), 3u);
}

TEST_F(ReconcilerTest, BackoffLimitCountsRecreations) {
  add_job(job_json(R"({"backoffLimit": 1})"));
  ASSERT_FALSE(pass().error.has_value());
  set_phase("mnist-worker-0", "Failed", 1);
  ASSERT_FALSE(pass().error.has_value());  // first failure: re-created
  ASSERT_FALSE(pass().error.has_value());
  set_phase("mnist-worker-0", "Failed", 1);
  ASSERT_FALSE(pass().error.has_value());  // second: over the limit
  EXPECT_EQ(state(), "Failed");
  EXPECT_EQ(status()["conditions"].back()["message"],
            "PyTorchJob mnist has failed because it has reached the specified backoff limit");
  EXPECT_EQ(api.names("pods", "ns").size(), 3u);  // cleanPodPolicy None keeps them
}

TEST_F(ReconcilerTest, ExitCodePolicyFailsOnPermanentExitCodes) {
  add_job(job_json("{}", "ExitCode"));
  ASSERT_FALSE(pass().error.has_value());
  EXPECT_EQ(api.object("pods", "ns", "mnist-worker-0")["spec"]["restartPolicy"], "Never");
  set_phase("mnist-worker-1", "Failed", 2);
  ASSERT_FALSE(pass().error.has_value());
  EXPECT_EQ(state(), "Failed");
  EXPECT_EQ(status()["conditions"].back()["message"],
            "PyTorchJob mnist is failed because 1 Worker replica(s) failed.");
}

TEST_F(ReconcilerTest, DeadlineIsEnforcedOnTimeThroughRequeueAfter) {
  add_job(job_json(R"({"activeDeadlineSeconds": 30})"));
  const auto r = pass();
  ASSERT_TRUE(r.requeue_after.has_value());
  EXPECT_EQ(*r.requeue_after, seconds{30});
  clock.advance(seconds{30});
  ASSERT_FALSE(pass().error.has_value());
  EXPECT_EQ(state(), "Failed");
  EXPECT_EQ(status()["conditions"].back()["message"],
            "PyTorchJob mnist was active longer than specified deadline");
}

TEST_F(ReconcilerTest, TtlDeletesTheFinishedJob) {
  add_job(job_json(R"({"ttlSecondsAfterFinished": 60})"));
  ASSERT_FALSE(pass().error.has_value());
  set_phase("mnist-master-0", "Succeeded", 0);
  const auto done = pass();
  ASSERT_TRUE(done.requeue_after.has_value());
  EXPECT_EQ(*done.requeue_after, seconds{60});
  clock.advance(seconds{60});
  ASSERT_FALSE(pass().error.has_value());
  EXPECT_EQ(api.object("pytorchjobs", "ns", "mnist"), nullptr);
}

TEST_F(ReconcilerTest, SuspendDeletesPodsAndServicesAndResumeRecreatesThem) {
  add_job(job_json());
  ASSERT_FALSE(pass().error.has_value());
  api.merge("pytorchjobs", "ns", "mnist", {{"spec", {{"runPolicy", {{"suspend", true}}}}}});
  ASSERT_FALSE(pass().error.has_value());
  EXPECT_TRUE(api.names("pods", "ns").empty());
  EXPECT_TRUE(api.names("services", "ns").empty());
  EXPECT_EQ(state(), "Suspended");
  api.merge("pytorchjobs", "ns", "mnist", {{"spec", {{"runPolicy", {{"suspend", false}}}}}});
  ASSERT_FALSE(pass().error.has_value());
  EXPECT_EQ(api.names("pods", "ns").size(), 3u);
}

TEST_F(ReconcilerTest, JobsManagedByAnotherControllerAreLeftAlone) {
  add_job(job_json(R"({"managedBy": "kueue.x-k8s.io/multikueue"})"));
  ASSERT_FALSE(pass().error.has_value());
  EXPECT_TRUE(api.calls().empty());  // the job came from the cache: no call at all
}

TEST_F(ReconcilerTest, ADeletedJobIsNotAnError) {
  const auto r = pass();
  EXPECT_FALSE(r.error.has_value());
  EXPECT_FALSE(r.requeue_after.has_value());
}

TEST_F(ReconcilerTest, RecordsEventsForWhatItDoes) {
  add_job(job_json());
  ASSERT_FALSE(pass().error.has_value());
  std::vector<std::string> reasons;
  for (const auto& name : api.names("events", "ns")) {
    reasons.push_back(api.object("events", "ns", name)["reason"]);
  }
  std::sort(reasons.begin(), reasons.end());
  EXPECT_EQ(reasons,
            (std::vector<std::string>{"PyTorchJobCreated", "SuccessfulCreatePod", "SuccessfulCreatePod",
                                      "SuccessfulCreatePod", "SuccessfulCreateService",
                                      "SuccessfulCreateService", "SuccessfulCreateService"}));
}

}  // namespace
}  // namespace kpt::controller
