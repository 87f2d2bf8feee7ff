#include "plugin/follow/job_follower.hpp"

#include "plugin/follow/job_kind.hpp"
#include "tests/support/fake_api_client.hpp"
#include "util/clock.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <functional>
#include <sstream>

namespace kpt::plugin {
namespace {

using nlohmann::json;
using std::chrono::milliseconds;

json job(const std::string& condition) {
  return {{"apiVersion", "kubeflow.org/v1"},
          {"kind", "PyTorchJob"},
          {"metadata", {{"name", "mnist"}, {"namespace", "ml"}}},
          {"spec", {{"pytorchReplicaSpecs", {{"Worker", {{"replicas", 1}}}}}}},
          {"status", {{"conditions", json::array({{{"type", condition}, {"status", "True"}}})}}}};
}

json pod(const std::string& phase, const json& state) {
  return {
      {"apiVersion", "v1"},
      {"kind", "Pod"},
      {"metadata",
       {{"name", "mnist-worker-0"},
        {"namespace", "ml"},
        {"uid", "w0"},
        {"labels",
         {{"training.kubeflow.org/job-name", "mnist"},
          {"training.kubeflow.org/replica-type", "worker"},
          {"training.kubeflow.org/replica-index", "0"}}}}},
      {"status",
       {{"phase", phase},
        {"containerStatuses", json::array({{{"name", "pytorch"}, {"restartCount", 0}, {"state", state}}})}}}};
}

const json k_running = {{"running", {{"startedAt", "t"}}}};
const json k_exited_3 = {{"terminated", {{"exitCode", 3}, {"reason", "Error"}}}};

// Each wait moves the fake clock; `on_wait` plays the cluster between two looks.
class StepWaiter final : public FollowWaiter {
 public:
  explicit StepWaiter(util::FakeClock& clock) : m_clock(clock) {}
  void wait(milliseconds how_long) override {
    m_clock.advance(how_long);
    ++waits;
    if (on_wait) on_wait(waits);
  }
  int waits = 0;
  std::function<void(int)> on_wait;

 private:
  util::FakeClock& m_clock;
};

class JobFollower : public ::testing::Test {
 protected:
  JobFollower() {
    options.ns = "ml";
    options.job = "mnist";
    options.logs = false;  // no log threads: the fake serves no logs
    options.clock = &clock;
    options.waiter = &waiter;
  }
  FollowResult follow() { return follow_job(api, options, out, err, interrupted); }

  testing::FakeApiClient api;
  util::FakeClock clock{std::chrono::system_clock::time_point{}};
  StepWaiter waiter{clock};
  FollowOptions options;
  std::ostringstream out;
  std::ostringstream err;
  std::atomic<bool> interrupted{false};
};

TEST_F(JobFollower, AFinishedJobEndsAtOnceWithItsSummary) {
  api.put(kube::resources::pytorchjobs(), job("Succeeded"));
  api.put(kube::resources::pods(), pod("Succeeded", {{"terminated", {{"exitCode", 0}}}}));
  const auto result = follow();
  EXPECT_EQ(result.end, FollowEnd::succeeded);
  EXPECT_EQ(result.exit_code, 0);
  EXPECT_EQ(waiter.waits, 0);
  EXPECT_EQ(err.str(), status_line(result.last) + "\n" + summary_line(result.last, 0.0) + "\n");
}

TEST_F(JobFollower, ARunningJobIsFollowedUntilItFailsWithRankZerosCode) {
  api.put(kube::resources::pytorchjobs(), job("Running"));
  api.put(kube::resources::pods(), pod("Running", k_running));
  waiter.on_wait = [&](int n) {
    if (n != 3) return;
    api.put(kube::resources::pytorchjobs(), job("Failed"));
    api.merge("pods", "ml", "mnist-worker-0",
              {{"status",
                {{"phase", "Failed"},
                 {"containerStatuses",
                  json::array({{{"name", "pytorch"}, {"restartCount", 0}, {"state", k_exited_3}}})}}}});
  };
  const auto result = follow();
  EXPECT_EQ(result.end, FollowEnd::failed);
  EXPECT_EQ(result.exit_code, 3);
  EXPECT_EQ(waiter.waits, 3);
  EXPECT_NE(err.str().find(summary_line(result.last, 1.2)), std::string::npos) << err.str();
}

TEST_F(JobFollower, AReplicaThatNeverStartsIsStuckAfterThePendingTimeout) {
  api.put(kube::resources::pytorchjobs(), job("Created"));
  api.put(kube::resources::pods(), pod("Pending", json::object()));
  options.pending_timeout = std::chrono::seconds(2);
  const auto result = follow();
  EXPECT_EQ(result.end, FollowEnd::stuck);
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_EQ(result.message, "mnist-worker-0 has not started after 2s");
  EXPECT_EQ(waiter.waits, 5);  // 5 x 400 ms
}

TEST_F(JobFollower, TheTimeoutEndsTheFollowWith124) {
  api.put(kube::resources::pytorchjobs(), job("Running"));
  api.put(kube::resources::pods(), pod("Running", k_running));
  options.timeout = std::chrono::seconds(30);
  const auto result = follow();
  EXPECT_EQ(result.end, FollowEnd::timeout);
  EXPECT_EQ(result.exit_code, 124);
  EXPECT_EQ(result.message, "timed out after 30s");
  EXPECT_EQ(waiter.waits, 75);  // 75 x 400 ms
}

TEST_F(JobFollower, AJobDeletedWhileFollowedIsGone) {
  api.put(kube::resources::pytorchjobs(), job("Running"));
  api.put(kube::resources::pods(), pod("Running", k_running));
  waiter.on_wait = [&](int n) {
    if (n == 2) api.purge("pytorchjobs", "ml", "mnist");
  };
  const auto result = follow();
  EXPECT_EQ(result.end, FollowEnd::gone);
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_EQ(result.message, "pytorchjob 'mnist' was deleted");
}

TEST_F(JobFollower, AnInterruptEndsTheFollowWith130BeforeAnyLook) {
  api.put(kube::resources::pytorchjobs(), job("Running"));
  interrupted.store(true);
  const auto result = follow();
  EXPECT_EQ(result.end, FollowEnd::interrupted);
  EXPECT_EQ(result.exit_code, 130);
  EXPECT_EQ(api.count("get", "pytorchjobs"), 0);
  EXPECT_EQ(err.str(), "");
}

TEST_F(JobFollower, AJobNoControllerActsOnIsStuckAfterThePendingTimeout) {
  json bare = job("Created");
  bare.erase("status");
  api.put(kube::resources::pytorchjobs(), bare);
  options.pending_timeout = std::chrono::seconds(2);
  const auto result = follow();
  EXPECT_EQ(result.end, FollowEnd::stuck);
  EXPECT_EQ(
      result.message,
      "pytorchjob 'mnist' has no pods after 2s: no controller has acted on it (is the Training Operator, or "
      "kubectl pytorch controller, running?)");
}

TEST_F(JobFollower, ATrainJobIsFollowedByItsJobSetsPodsToItsVerdict) {
  json tj = {{"apiVersion", "trainer.kubeflow.org/v1alpha1"},
             {"kind", "TrainJob"},
             {"metadata", {{"name", "mnist"}, {"namespace", "ml"}}},
             {"spec", json::object()}};
  api.put(kube::resources::trainjobs(), tj);
  json node = {
      {"metadata",
       {{"name", "mnist-node-0-0-abcde"},
        {"namespace", "ml"},
        {"uid", "n0"},
        {"labels",
         {{"jobset.sigs.k8s.io/jobset-name", "mnist"}, {"jobset.sigs.k8s.io/replicatedjob-name", "node"}}},
        {"annotations", {{"batch.kubernetes.io/job-completion-index", "0"}}}}},
      {"spec", {{"containers", json::array({{{"name", "node"}}})}}},
      {"status",
       {{"phase", "Running"},
        {"containerStatuses",
         json::array({{{"name", "node"}, {"restartCount", 0}, {"state", k_running}}})}}}};
  api.put(kube::resources::pods(), node);
  options.kind = &trainjob_kind();
  waiter.on_wait = [&](int n) {
    if (n != 2) return;
    tj["status"]["conditions"] =
        json::array({{{"type", "Failed"}, {"status", "True"}, {"message", "jobset failed"}}});
    api.put(kube::resources::trainjobs(), tj);
    api.merge("pods", "ml", "mnist-node-0-0-abcde",
              {{"status",
                {{"phase", "Failed"},
                 {"containerStatuses",
                  json::array({{{"name", "node"}, {"restartCount", 0}, {"state", k_exited_3}}})}}}});
  };
  const auto result = follow();
  EXPECT_EQ(result.end, FollowEnd::failed);
  EXPECT_EQ(result.exit_code, 3);
  EXPECT_EQ(api.count("get", "pytorchjobs"), 0);
  EXPECT_NE(
      err.str().find("trainjob mnist failed after 0.8s: mnist-node-0-0-abcde (rank 0) exited with code 3"),
      std::string::npos)
      << err.str();
}

}  // namespace
}  // namespace kpt::plugin
