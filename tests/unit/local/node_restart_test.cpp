#include "local/node_restart.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace kpt::local {
namespace {

using nlohmann::json;
using namespace std::chrono_literals;

json pod(const std::string& policy) {
  json spec = {{"restartPolicy", policy},
               {"containers", json::array({{{"name", "pytorch"}, {"command", json::array({"true"})}}})}};
  return {{"metadata", {{"name", "p"}, {"namespace", "default"}, {"uid", "u"}}}, {"spec", spec}};
}

/// The status the node wrote while the container ran (after `restarts` restarts).
json running_status(int restarts) {
  return {{"phase", "Running"},
          {"containerStatuses",
           json::array({{{"name", "pytorch"},
                         {"restartCount", restarts},
                         {"state", {{"running", {{"startedAt", "2026-01-01T00:00:00Z"}}}}}}})}};
}

TEST(NodeRestart, OnlyAPodWhoseContainersStartedRanBefore) {
  EXPECT_TRUE(ran_before(running_status(0)));
  EXPECT_FALSE(ran_before(
      json{{"phase", "Pending"},
           {"containerStatuses",
            json::array(
                {{{"name", "pytorch"}, {"restartCount", 0}, {"state", {{"waiting", json::object()}}}}})}}));
  EXPECT_FALSE(ran_before(json::object()));
  EXPECT_FALSE(ran_before(json("not an object")));
}

TEST(NodeRestart, AlwaysRestartsTheLostContainerAtOnceAndCountsTheRestart) {
  NodeEnvironment node;
  auto run = make_pod_run(pod("Always"), node, "t0");
  const auto now = SteadyTime{} + 100s;
  resume_after_node_restart(run, running_status(2), "t1", now);
  const auto& c = run.containers[0];
  EXPECT_EQ(c.phase, ContainerRun::Phase::waiting);
  EXPECT_EQ(c.restart_count, 3);
  ASSERT_TRUE(c.last_state);
  EXPECT_EQ(c.last_state->exit_code, 137);
  EXPECT_EQ(c.last_state->reason, "ContainerStatusUnknown");
  EXPECT_EQ(c.last_state->message, "The container could not be located when the pod was terminated");
  EXPECT_EQ(c.last_state->started_at, "2026-01-01T00:00:00Z");
  EXPECT_EQ(due_starts(run, now), (std::vector<std::size_t>{0}));
  EXPECT_EQ(pod_phase(run), "Running");
}

TEST(NodeRestart, OnFailureRestartsTheLostContainer) {
  NodeEnvironment node;
  auto run = make_pod_run(pod("OnFailure"), node, "t0");
  resume_after_node_restart(run, running_status(0), "t1", SteadyTime{});
  EXPECT_EQ(run.containers[0].restart_count, 1);
  EXPECT_EQ(due_starts(run, SteadyTime{}).size(), 1U);
}

TEST(NodeRestart, NeverFailsThePodWithTheLostContainersReason) {
  NodeEnvironment node;
  auto run = make_pod_run(pod("Never"), node, "t0");
  resume_after_node_restart(run, running_status(0), "t1", SteadyTime{});
  EXPECT_EQ(pod_phase(run), "Failed");
  EXPECT_TRUE(due_starts(run, SteadyTime{} + 1h).empty());
  const json status = pod_status(run, node);
  const auto& terminated = status["containerStatuses"][0]["state"]["terminated"];
  EXPECT_EQ(terminated["reason"], "ContainerStatusUnknown");
  EXPECT_EQ(terminated["exitCode"], 137);
  EXPECT_EQ(terminated["finishedAt"], "t1");
}

TEST(NodeRestart, AFinishedContainerStaysFinished) {
  NodeEnvironment node;
  auto run = make_pod_run(pod("OnFailure"), node, "t0");
  json status = {{"containerStatuses",
                  json::array({{{"name", "pytorch"},
                                {"restartCount", 1},
                                {"state", {{"terminated", {{"exitCode", 0}, {"reason", "Completed"}}}}}}})}};
  resume_after_node_restart(run, status, "t1", SteadyTime{});
  EXPECT_EQ(pod_phase(run), "Succeeded");
  EXPECT_EQ(run.containers[0].restart_count, 1);
  EXPECT_TRUE(due_starts(run, SteadyTime{} + 1h).empty());
}

}  // namespace
}  // namespace kpt::local
