// The job view of a TrainJob: its pods as JobSet labels them, ranks from the completion index.
#include "plugin/follow/job_follower.hpp"
#include "plugin/follow/job_view.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace kpt::plugin {
namespace {

using nlohmann::json;

json trainjob(const std::string& condition = "", const std::string& message = "") {
  json j = {{"apiVersion", "trainer.kubeflow.org/v1alpha1"},
            {"kind", "TrainJob"},
            {"metadata", {{"name", "mnist"}, {"namespace", "ml"}}},
            {"spec", {{"runtimeRef", {{"name", "torch-distributed"}}}}}};
  if (!condition.empty()) {
    j["status"]["conditions"] =
        json::array({{{"type", condition}, {"status", "True"}, {"reason", "R"}, {"message", message}}});
  }
  return j;
}

json pod(const std::string& rjob, int index, const std::string& phase, const json& state, int attempt = 0) {
  return {{"metadata",
           {{"name", "mnist-" + rjob + "-0-" + std::to_string(index) + "-x" + std::to_string(attempt)},
            {"uid", rjob + std::to_string(index) + "-" + std::to_string(attempt)},
            {"labels",
             {{"jobset.sigs.k8s.io/jobset-name", "mnist"},
              {"jobset.sigs.k8s.io/replicatedjob-name", rjob},
              {"jobset.sigs.k8s.io/restart-attempt", std::to_string(attempt)}}},
            {"annotations", {{"batch.kubernetes.io/job-completion-index", std::to_string(index)}}}}},
          {"spec", {{"containers", json::array({{{"name", "sidecar"}}, {{"name", rjob}}})}}},
          {"status",
           {{"phase", phase},
            {"containerStatuses",
             json::array({{{"name", "sidecar"}, {"restartCount", 9}, {"state", json::object()}},
                          {{"name", rjob}, {"restartCount", 0}, {"state", state}}})}}}};
}

const json k_running = {{"running", {{"startedAt", "t"}}}};
json exited(int code) {
  return {{"terminated", {{"exitCode", code}, {"reason", code == 0 ? "Completed" : "Error"}}}};
}

TEST(TrainJobView, NodesRankByCompletionIndexAfterTheInitializers) {
  const auto v =
      make_job_view(trainjob(), {pod("node", 1, "Running", k_running), pod("node", 0, "Running", k_running),
                                 pod("dataset-initializer", 0, "Succeeded", exited(0))});
  ASSERT_EQ(v.replicas.size(), 3U);
  EXPECT_EQ(v.kind, "trainjob");
  EXPECT_EQ(v.replicas[0].role, "dataset-initializer-0");
  EXPECT_EQ(v.replicas[0].rank, -1);
  EXPECT_EQ(v.replicas[1].role, "node-0");
  EXPECT_EQ(v.replicas[1].rank, 0);
  EXPECT_EQ(v.replicas[2].rank, 1);
  EXPECT_EQ(v.replicas[1].container, "node");  // the container named as its job, not the first
  EXPECT_EQ(v.replicas[1].restarts, 0);
  EXPECT_EQ(log_prefix(v.replicas[1], false), "[node-0 r0] ");
  EXPECT_EQ(log_prefix(v.replicas[0], false), "[dataset-initializer-0] ");
  EXPECT_EQ(v.state, "Running");  // no condition says so: a pod runs
  EXPECT_EQ(status_line(v), "Running | dataset-initializer x1: 1 succeeded | node x2: 2 running");
}

TEST(TrainJobView, WithoutPodsOrConditionsItWaitsForTheController) {
  const auto v = make_job_view(trainjob(), {});
  EXPECT_EQ(v.state, "");
  EXPECT_EQ(status_line(v), "waiting for the controller");
  const auto created = make_job_view(trainjob(), {pod("node", 0, "Pending", json::object())});
  EXPECT_EQ(created.state, "Created");
}

TEST(TrainJobView, CompleteIsSuccessAndFailedEndsWithRankZerosCode) {
  const auto done =
      make_job_view(trainjob("Complete", "jobset completed successfully"),
                    {pod("node", 0, "Succeeded", exited(0)), pod("node", 1, "Succeeded", exited(0))});
  EXPECT_TRUE(done.finished);
  EXPECT_TRUE(done.succeeded);
  EXPECT_EQ(job_exit_code(done), 0);
  EXPECT_EQ(summary_line(done, 3.21), "trainjob mnist succeeded in 3.2s (2 nodes, 0 restarts)");
  EXPECT_FALSE(done.ran_for);  // no times in the fixture
  auto timed = trainjob("Complete");
  timed["metadata"]["creationTimestamp"] = "2026-12-01T10:00:00Z";
  timed["status"]["conditions"][0]["lastTransitionTime"] = "2026-12-01T10:00:42Z";
  EXPECT_EQ(make_job_view(timed, {}).ran_for, 42.0);

  const auto failed =
      make_job_view(trainjob("Failed", "jobset failed with failure policy"),
                    {pod("node", 0, "Failed", exited(7)), pod("node", 1, "Failed", exited(1))});
  EXPECT_TRUE(failed.finished);
  EXPECT_FALSE(failed.succeeded);
  EXPECT_EQ(job_exit_code(failed), 7);
  EXPECT_EQ(
      summary_line(failed, 2.0),
      "trainjob mnist failed after 2.0s: mnist-node-0-0-x0 (rank 0) exited with code 7; jobset failed with "
      "failure policy");
}

TEST(TrainJobView, OnlyTheLatestRestartAttemptCounts) {
  const auto v = make_job_view(
      trainjob(), {pod("node", 0, "Failed", exited(1), 0), pod("node", 1, "Failed", exited(1), 0),
                   pod("node", 0, "Running", k_running, 1)});
  ASSERT_EQ(v.replicas.size(), 1U);
  EXPECT_EQ(v.replicas[0].uid, "node0-1");
  EXPECT_EQ(v.group_restarts, 1);
  EXPECT_EQ(summary_line(v, 1.0), "trainjob mnist is Running after 1.0s (0 restarts, 1 group restart)");
}

TEST(TrainJobView, SuspendedIsItsState) {
  const auto v = make_job_view(trainjob("Suspended", "TrainJob is suspended"), {});
  EXPECT_EQ(v.state, "Suspended");
  EXPECT_FALSE(v.finished);
}

TEST(TrainJobView, PodsOfAnotherJobSetAreIgnored) {
  json other = pod("node", 0, "Running", k_running);
  other["metadata"]["labels"]["jobset.sigs.k8s.io/jobset-name"] = "other";
  EXPECT_TRUE(make_job_view(trainjob(), {other}).replicas.empty());
}

}  // namespace
}  // namespace kpt::plugin
