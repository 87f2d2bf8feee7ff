#include "controller/object_cache.hpp"

#include "controller/expectations.hpp"
#include "controller/metrics.hpp"
#include "controller/reconciler.hpp"
#include "model/pytorchjob/lifecycle_json.hpp"
#include "tests/support/fake_api_client.hpp"
#include "util/clock.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace kpt::controller {
namespace {

using Type = kube::WatchEvent::Type;

nlohmann::json child(const std::string& name, const std::string& job, const std::string& phase = "Running",
                     const std::string& rv = "1") {
  return {
      {"metadata",
       {{"name", name},
        {"namespace", "ns"},
        {"resourceVersion", rv},
        {"labels",
         {{"training.kubeflow.org/replica-type", "worker"}, {"training.kubeflow.org/replica-index", "1"}}},
        {"ownerReferences",
         {{{"kind", "PyTorchJob"}, {"name", job}, {"uid", job + "-uid"}, {"controller", true}}}}}},
      {"spec",
       {{"containers", {{{"name", "pytorch"}, {"env", nlohmann::json::array({{{"name", "RANK"}}})}}}}}},
      {"status", {{"phase", phase}}}};
}

TEST(ChildCache, KeepsATrimmedViewOfEachPodIndexedByItsJob) {
  ChildCache pods(ChildCache::Kind::pods);
  const auto change = pods.apply(Type::added, child("a-worker-1", "a"));
  EXPECT_EQ(change.job_key, "ns/a");
  EXPECT_TRUE(change.created);
  const auto again = pods.apply(Type::modified, child("a-worker-1", "a", "Failed"));
  EXPECT_FALSE(again.created);
  (void)pods.apply(Type::added, child("b-worker-0", "b"));
  const auto of_a = pods.of_job("ns/a");
  ASSERT_EQ(of_a.size(), 1u);
  EXPECT_EQ(of_a[0].owner_uid, "a-uid");
  EXPECT_EQ(of_a[0].pod.name, "a-worker-1");
  EXPECT_EQ(of_a[0].pod.replica_type, "Worker");
  EXPECT_EQ(of_a[0].pod.index, 1);
  EXPECT_EQ(of_a[0].pod.phase, "Failed");
  EXPECT_TRUE(pods.apply(Type::deleted, child("a-worker-1", "a")).deleted);
  EXPECT_TRUE(pods.of_job("ns/a").empty());
  EXPECT_EQ(pods.size(), 1u);
}

TEST(ChildCache, IgnoresObjectsNoPyTorchJobControls) {
  ChildCache services(ChildCache::Kind::services);
  const auto change = services.apply(Type::added, {{"metadata", {{"name", "x"}, {"namespace", "ns"}}}});
  EXPECT_EQ(change.job_key, "");
  EXPECT_EQ(services.size(), 0u);
}

TEST(ChildCache, AListInPagesDropsWhatItNoLongerShows) {
  ChildCache pods(ChildCache::Kind::pods);
  (void)pods.apply(Type::added, child("a-worker-0", "a"));
  (void)pods.apply(Type::added, child("a-worker-1", "a"));
  EXPECT_TRUE(pods.list_page({child("a-worker-1", "a")}, true, false).at(0).job_key == "ns/a");
  EXPECT_EQ(pods.size(), 2u);  // nothing dropped before the last page
  const auto changes = pods.list_page({child("c-worker-0", "c")}, false, true);
  ASSERT_EQ(changes.size(), 2u);
  EXPECT_TRUE(changes[0].created);
  EXPECT_EQ(changes[1].job_key, "ns/a");
  EXPECT_TRUE(changes[1].deleted);
  EXPECT_EQ(pods.size(), 2u);
  EXPECT_EQ(pods.of_job("ns/a").at(0).pod.name, "a-worker-1");
}

nlohmann::json job_with_rv(const std::string& rv, const std::string& state) {
  return {
      {"metadata", {{"name", "j"}, {"namespace", "ns"}, {"resourceVersion", rv}, {"managedFields", {1, 2}}}},
      {"status", {{"state", state}}}};
}

nlohmann::json jobset(const std::string& rv, bool suspend, const std::string& owner_uid = "tj-uid") {
  return {{"metadata",
           {{"name", "tj"},
            {"namespace", "ns"},
            {"resourceVersion", rv},
            {"ownerReferences",
             {{{"kind", "TrainJob"}, {"name", "tj"}, {"uid", owner_uid}, {"controller", true}}}}}},
          {"spec", {{"suspend", suspend}}},
          {"status", {{"replicatedJobsStatus", {{{"name", "node"}, {"active", suspend ? 0 : 1}}}}}}};
}

TEST(ChildCache, KeepsWhatTrainerReadsOfAJobSetUnderItsTrainJob) {
  ChildCache jobsets(ChildCache::Kind::trainjob_jobsets);
  const auto change = jobsets.apply(Type::added, jobset("5", false));
  EXPECT_EQ(change.job_key, "ns/tj");
  EXPECT_TRUE(change.created);
  const auto cached = jobsets.of_job("ns/tj");
  ASSERT_EQ(cached.size(), 1u);
  EXPECT_EQ(cached[0].owner_uid, "tj-uid");
  EXPECT_EQ(cached[0].pod.name, "tj");
  EXPECT_TRUE(cached[0].jobset.exists);
  EXPECT_FALSE(cached[0].jobset.suspended);
  ASSERT_EQ(cached[0].jobset.status.replicated_jobs_status.size(), 1u);
  EXPECT_EQ(cached[0].jobset.status.replicated_jobs_status[0].active, 1);
}

TEST(ChildCache, TheAnswerOfOurOwnApplyIsNotUndoneByAnOlderWatchEvent) {
  ChildCache jobsets(ChildCache::Kind::trainjob_jobsets);
  jobsets.put_newer(jobset("4", true));  // not cached yet: the informer's event must add it
  EXPECT_TRUE(jobsets.of_job("ns/tj").empty());
  EXPECT_TRUE(jobsets.apply(Type::added, jobset("5", false)).created);
  jobsets.put_newer(jobset("7", true));  // our apply suspended it
  EXPECT_TRUE(jobsets.of_job("ns/tj")[0].jobset.suspended);
  const auto late = jobsets.apply(Type::modified, jobset("6", false));  // the watch catching up
  EXPECT_FALSE(late.created);
  EXPECT_TRUE(jobsets.of_job("ns/tj")[0].jobset.suspended);
  jobsets.put_newer(jobset("6", false));
  EXPECT_TRUE(jobsets.of_job("ns/tj")[0].jobset.suspended);
  (void)jobsets.apply(Type::modified, jobset("8", false));
  EXPECT_FALSE(jobsets.of_job("ns/tj")[0].jobset.suspended);
  EXPECT_TRUE(jobsets.apply(Type::deleted, jobset("9", false)).deleted);
  EXPECT_TRUE(jobsets.of_job("ns/tj").empty());
}

TEST(JobCache, AnOlderResourceVersionNeverReplacesANewerOne) {
  JobCache jobs;
  EXPECT_EQ(jobs.apply(Type::added, job_with_rv("5", "first")), "ns/j");
  jobs.put_newer(job_with_rv("9", "our write"));
  (void)jobs.apply(Type::modified, job_with_rv("7", "stale event"));
  const auto got = jobs.get("ns/j");
  ASSERT_TRUE(got.has_value());
  EXPECT_EQ((*got)["status"]["state"], "our write");
  EXPECT_FALSE((*got)["metadata"].contains("managedFields"));
}

TEST(JobCache, OurOwnWriteDoesNotBringBackADeletedJob) {
  JobCache jobs;
  (void)jobs.apply(Type::added, job_with_rv("5", "first"));
  (void)jobs.apply(Type::deleted, job_with_rv("6", "first"));
  jobs.put_newer(job_with_rv("7", "late write"));
  EXPECT_FALSE(jobs.get("ns/j").has_value());
  EXPECT_EQ(jobs.list_page({job_with_rv("8", "x")}, true, true), std::vector<std::string>{"ns/j"});
  EXPECT_EQ(jobs.size(), 1u);
}

/// The reconciler in the controller's mode: it reads only the caches and waits for its own
/// writes to show up in them.
class CachedReconcilerTest : public ::testing::Test {
 protected:
  CachedReconcilerTest() : clock(std::chrono::sys_days{std::chrono::year{2026} / 11 / 29}) {}

  nlohmann::json job() {
    const auto tmpl =
        nlohmann::json::parse(R"({"spec": {"containers": [{"name": "pytorch", "image": "img"}]}})");
    return api.put(
        kube::resources::pytorchjobs(),
        {{"apiVersion", "kubeflow.org/v1"},
         {"kind", "PyTorchJob"},
         {"metadata", {{"name", "mnist"}, {"namespace", "ns"}, {"uid", "job-uid"}}},
         {"spec", {{"pytorchReplicaSpecs", {{"Worker", {{"replicas", 2}, {"template", tmpl}}}}}}}});
  }
  /// Plays the informers: every pod and Service the fake holds goes into the caches.
  void sync() {
    for (auto* cache : {&pods, &services}) {
      const std::string res = cache == &pods ? "pods" : "services";
      for (const auto& name : api.names(res, "ns")) {
        const auto change = cache->apply(Type::added, api.object(res, "ns", name));
        if (change.created) expectations.observe_creation(change.job_key);
      }
    }
    jobs.put_newer(api.object("pytorchjobs", "ns", "mnist"));
  }

  testing::FakeApiClient api;
  util::FakeClock clock;
  JobCache jobs;
  ChildCache pods{ChildCache::Kind::pods};
  ChildCache services{ChildCache::Kind::services};
  Expectations expectations{clock};
  ReconcilerCaches caches{jobs, pods, services, expectations};
  Reconciler reconciler{api, clock, ReconcilerOptions{}, caches};
};

TEST_F(CachedReconcilerTest, ReadsNothingFromTheServerAndWaitsUntilTheCachesShowItsCreations) {
  (void)jobs.apply(Type::added, job());
  ASSERT_FALSE(reconciler.reconcile("ns/mnist").error.has_value());
  EXPECT_EQ(api.count("create", "pods"), 2);
  EXPECT_EQ(api.count("create", "services"), 2);
  EXPECT_EQ(api.count("list"), 0);
  EXPECT_EQ(api.count("get"), 0);
  EXPECT_FALSE(expectations.satisfied("ns/mnist"));
  api.clear_calls();
  // The caches lag: a second pass must not create again.
  ASSERT_FALSE(reconciler.reconcile("ns/mnist").error.has_value());
  EXPECT_EQ(api.count("create"), 0);
  sync();
  EXPECT_TRUE(expectations.satisfied("ns/mnist"));
  ASSERT_FALSE(reconciler.reconcile("ns/mnist").error.has_value());
  EXPECT_EQ(api.count("create"), 0);
  EXPECT_EQ(api.count("update_status"), 0);  // the Created status write is cached already
}

TEST_F(CachedReconcilerTest, ARestartIsCountedOnceWhileTheCacheStillShowsTheDeletedPod) {
  (void)jobs.apply(Type::added, job());
  ASSERT_FALSE(reconciler.reconcile("ns/mnist").error.has_value());
  sync();
  api.merge("pods", "ns", "mnist-worker-1", {{"status", {{"phase", "Failed"}}}});
  const auto failed_pod = api.object("pods", "ns", "mnist-worker-1");
  (void)pods.apply(Type::modified, failed_pod);
  api.clear_calls();
  ASSERT_FALSE(reconciler.reconcile("ns/mnist").error.has_value());
  EXPECT_EQ(api.count("delete", "pods"), 1);
  EXPECT_EQ(api.count("patch"), 1);  // the re-creation is recorded on the job
  api.clear_calls();
  // The watch has not shown the deletion yet: the cache still holds the failed pod.
  ASSERT_FALSE(reconciler.reconcile("ns/mnist").error.has_value());
  EXPECT_EQ(api.count("delete"), 0);
  EXPECT_EQ(api.count("patch"), 0);
  // Now it has: the pod comes back, and the job says one re-creation.
  if (pods.apply(Type::deleted, failed_pod).deleted) expectations.observe_deletion("ns/mnist");
  ASSERT_FALSE(reconciler.reconcile("ns/mnist").error.has_value());
  EXPECT_EQ(api.count("create", "pods"), 1);
  EXPECT_EQ(api.count("patch"), 0);
  EXPECT_EQ(api.object("pytorchjobs", "ns",
                       "mnist")["metadata"]["annotations"][model::pytorchjob::k_recreations_annotation],
            "1");
}

TEST_F(CachedReconcilerTest, AJobGoneFromTheCacheIsNotAnError) {
  const auto r = reconciler.reconcile("ns/missing");
  EXPECT_FALSE(r.error.has_value());
  EXPECT_EQ(api.count("get"), 0);
}

}  // namespace
}  // namespace kpt::controller
