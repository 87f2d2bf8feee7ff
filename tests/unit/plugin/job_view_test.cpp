#include "plugin/follow/job_view.hpp"

#include "plugin/follow/job_follower.hpp"
#include "plugin/run/job_builder.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace kpt::plugin {
namespace {

using nlohmann::json;

json job(bool master, const std::string& condition = "Running", const std::string& message = "") {
  json specs = {{"Worker", {{"replicas", 2}}}};
  if (master) specs["Master"] = {{"replicas", 1}};
  return {{"metadata", {{"name", "mnist"}, {"namespace", "ml"}}},
          {"spec", {{"pytorchReplicaSpecs", specs}}},
          {"status",
           {{"conditions", json::array({{{"type", "Created"}, {"status", "True"}},
                                        {{"type", condition}, {"status", "True"}, {"message", message}}})}}}};
}

json pod(const std::string& type, int index, const std::string& phase, json container_state, int restarts = 0,
         json last = json::object()) {
  return {{"metadata",
           {{"name", "mnist-" + type + "-" + std::to_string(index)},
            {"uid", type + std::to_string(index)},
            {"labels",
             {{"training.kubeflow.org/job-name", "mnist"},
              {"training.kubeflow.org/replica-type", type},
              {"training.kubeflow.org/replica-index", std::to_string(index)}}}}},
          {"status",
           {{"phase", phase},
            {"containerStatuses", json::array({{{"name", "pytorch"},
                                                {"restartCount", restarts},
                                                {"state", container_state},
                                                {"lastState", last}}})}}}};
}

const json k_running = {{"running", {{"startedAt", "t"}}}};
json terminated(int code, const std::string& reason = "Error", const std::string& message = "") {
  return {{"terminated", {{"exitCode", code}, {"reason", reason}, {"message", message}}}};
}

TEST(JobView, RanksMasterFirstThenWorkersFromOne) {
  const auto v = make_job_view(
      job(true), {pod("worker", 1, "Running", k_running), pod("master", 0, "Running", k_running),
                  pod("worker", 0, "Pending", json::object())});
  ASSERT_EQ(v.replicas.size(), 3u);
  EXPECT_EQ(v.replicas[0].pod, "mnist-master-0");
  EXPECT_EQ(v.replicas[0].rank, 0);
  EXPECT_EQ(v.replicas[1].pod, "mnist-worker-0");
  EXPECT_EQ(v.replicas[1].rank, 1);
  EXPECT_EQ(v.replicas[2].rank, 2);
  EXPECT_EQ(status_line(v), "Running | Master x1: 1 running | Worker x2: 1 running, 1 pending");
}

TEST(JobView, WorkerOnlyJobsRankWorkersFromZero) {
  const auto v = make_job_view(
      job(false), {pod("worker", 0, "Running", k_running), pod("worker", 1, "Running", k_running)});
  EXPECT_EQ(v.replicas[0].rank, 0);
  EXPECT_EQ(v.replicas[1].rank, 1);
  EXPECT_EQ(log_prefix(v.replicas[1], false), "[worker-1 r1] ");
  EXPECT_EQ(log_prefix(v.replicas[1], true), log_prefix(v.replicas[1], true));  // stable colour
}

TEST(JobView, AFailedJobExitsWithRankZerosCode) {
  const auto v =
      make_job_view(job(false, "Failed", "PyTorchJob mnist is failed because 1 Worker replica(s) failed."),
                    {pod("worker", 0, "Failed", terminated(3)), pod("worker", 1, "Running", k_running)});
  EXPECT_TRUE(v.finished);
  EXPECT_FALSE(v.succeeded);
  EXPECT_EQ(job_exit_code(v), 3);
  EXPECT_EQ(
      summary_line(v, 2.04),
      "pytorchjob mnist failed after 2.0s: mnist-worker-0 (rank 0) exited with code 3; PyTorchJob mnist is "
      "failed because 1 Worker replica(s) failed.");
}

TEST(JobView, AFailedJobWithoutRankZeroCodeExitsOne) {
  const auto v = make_job_view(
      job(false, "Failed", "PyTorchJob mnist has failed because it has reached the specified backoff limit"),
      {pod("worker", 0, "Running", k_running)});
  EXPECT_EQ(job_exit_code(v), 1);
  EXPECT_EQ(
      summary_line(v, 1.0),
      "pytorchjob mnist failed after 1.0s: PyTorchJob mnist has failed because it has reached the specified "
      "backoff limit (0 restarts)");
}

TEST(JobView, ASucceededJobExitsZeroWithASummary) {
  const auto v =
      make_job_view(job(false, "Succeeded"), {pod("worker", 0, "Succeeded", terminated(0, "Completed")),
                                              pod("worker", 1, "Succeeded", terminated(0, "Completed"), 1)});
  EXPECT_EQ(job_exit_code(v), 0);
  EXPECT_EQ(summary_line(v, 12.34), "pytorchjob mnist succeeded in 12.3s (2 replicas, 1 restart)");
}

TEST(JobView, AFinishedJobKnowsHowLongItRanFromItsStatus) {
  auto j = job(false, "Succeeded");
  EXPECT_FALSE(make_job_view(j, {}).ran_for);
  j["status"]["startTime"] = "2026-12-01T10:00:00Z";
  j["status"]["completionTime"] = "2026-12-01T10:01:05Z";
  EXPECT_EQ(make_job_view(j, {}).ran_for, 65.0);
  j["status"]["completionTime"] = "2026-12-01T09:00:00Z";  // out of order: unknown, not negative
  EXPECT_FALSE(make_job_view(j, {}).ran_for);
  auto running = job(false, "Running");
  running["status"]["startTime"] = "2026-12-01T10:00:00Z";
  EXPECT_FALSE(make_job_view(running, {}).ran_for);
}

TEST(JobView, OneReplicaIsSingular) {
  const auto v =
      make_job_view(job(false, "Succeeded"), {pod("worker", 0, "Succeeded", terminated(0, "Completed"))});
  EXPECT_EQ(summary_line(v, 1.0), "pytorchjob mnist succeeded in 1.0s (1 replica, 0 restarts)");
}

TEST(JobView, ACommandThatCannotStartIsAFatalStall) {
  const json waiting = {{"waiting", {{"reason", "CrashLoopBackOff"}}}};
  const auto v = make_job_view(
      job(false),
      {pod("worker", 0, "Running", waiting, 1,
           terminated(128, "StartError", "exec: \"nosuch\": executable file not found in $PATH"))});
  ASSERT_TRUE(fatal_stall(v));
  EXPECT_EQ(*fatal_stall(v),
            "mnist-worker-0 cannot start its command: exec: \"nosuch\": executable file not found in $PATH");
}

TEST(JobView, ImagePullBackOffIsAFatalStallAndCrashLoopANote) {
  const json pull = {
      {"waiting", {{"reason", "ImagePullBackOff"}, {"message", "Back-off pulling image \"x\""}}}};
  const auto v = make_job_view(job(false), {pod("worker", 0, "Pending", pull)});
  EXPECT_EQ(*fatal_stall(v), "mnist-worker-0 is stuck in ImagePullBackOff: Back-off pulling image \"x\"");
  const json crash = {{"waiting", {{"reason", "CrashLoopBackOff"}}}};
  const auto c = make_job_view(job(false), {pod("worker", 1, "Running", crash, 2, terminated(1))});
  EXPECT_EQ(fatal_stall(c), std::nullopt);
  const auto notes = notable_states(c);
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_EQ(notes[0].second, "mnist-worker-1 restarting (restart 2, last exit code 1)");
}

TEST(BuildJob, MakesAWorkerOnlyJobWithTheCommand) {
  JobRequest r;
  r.name = "demo";
  r.image = "python:3.11";
  r.workers = 3;
  r.nproc_per_node = "2";
  r.command = {"python", "train.py", "--epochs=1"};
  const json j = build_job(r);
  EXPECT_EQ(j["spec"]["pytorchReplicaSpecs"]["Worker"]["replicas"], 3);
  EXPECT_EQ(j["spec"]["nprocPerNode"], "2");
  EXPECT_EQ(j["spec"]["pytorchReplicaSpecs"]["Worker"]["template"]["spec"]["containers"][0]["command"],
            json::array({"python", "train.py", "--epochs=1"}));
  EXPECT_FALSE(j["metadata"].contains("namespace"));
}

}  // namespace
}  // namespace kpt::plugin
