#include "local/pod_run.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace kpt::local {
namespace {

using nlohmann::json;
using namespace std::chrono_literals;

json pod(const std::string& policy, bool with_init = false) {
  json spec = {{"restartPolicy", policy},
               {"containers", json::array({{{"name", "pytorch"}, {"command", json::array({"true"})}}})}};
  if (with_init)
    spec["initContainers"] = json::array({{{"name", "init"}, {"command", json::array({"true"})}}});
  return {{"metadata", {{"name", "p"}, {"namespace", "default"}, {"uid", "u"}}}, {"spec", spec}};
}

ProcessExit exited(int code) {
  ProcessExit e;
  e.exit_code = code;
  return e;
}

TEST(PodRun, OnFailureRestartsInPlaceWithBackoffAndStaysRunning) {
  NodeEnvironment node;
  auto run = make_pod_run(pod("OnFailure"), node, "t0");
  const auto t0 = SteadyTime{} + 100s;
  EXPECT_EQ(pod_phase(run), "Pending");
  ASSERT_EQ(due_starts(run, t0), (std::vector<std::size_t>{0}));
  record_start(run, 0, 42, "t1");
  EXPECT_EQ(pod_phase(run), "Running");
  record_exit(run, 0, exited(3), "t2", t0);
  EXPECT_EQ(pod_phase(run), "Running");
  EXPECT_EQ(run.containers[0].restart_count, 1);
  EXPECT_EQ(run.containers[0].waiting_reason, "CrashLoopBackOff");
  EXPECT_TRUE(due_starts(run, t0 + 500ms).empty());
  EXPECT_EQ(due_starts(run, t0 + 1s).size(), 1u);
  const json status = pod_status(run, node);
  EXPECT_EQ(status["containerStatuses"][0]["restartCount"], 1);
  EXPECT_EQ(status["containerStatuses"][0]["lastState"]["terminated"]["exitCode"], 3);
  EXPECT_EQ(status["containerStatuses"][0]["state"]["waiting"]["reason"], "CrashLoopBackOff");
}

TEST(PodRun, OnFailureSucceedsOnExitZero) {
  NodeEnvironment node;
  auto run = make_pod_run(pod("OnFailure"), node, "t0");
  record_start(run, 0, 42, "t1");
  record_exit(run, 0, exited(0), "t2", SteadyTime{});
  EXPECT_EQ(pod_phase(run), "Succeeded");
  EXPECT_EQ(pod_status(run, node)["containerStatuses"][0]["state"]["terminated"]["reason"], "Completed");
}

TEST(PodRun, NeverFailsWithTheExitCode) {
  NodeEnvironment node;
  auto run = make_pod_run(pod("Never"), node, "t0");
  record_start(run, 0, 42, "t1");
  record_exit(run, 0, exited(3), "t2", SteadyTime{});
  EXPECT_EQ(pod_phase(run), "Failed");
  EXPECT_EQ(pod_status(run, node)["containerStatuses"][0]["state"]["terminated"]["exitCode"], 3);
}

TEST(PodRun, AStartErrorIsReportedWithItsMessage) {
  NodeEnvironment node;
  auto run = make_pod_run(pod("Never"), node, "t0");
  ProcessExit e;
  e.exit_code = 128;
  e.start_failed = true;
  e.start_error = "exec: \"nosuch\": executable file not found in $PATH";
  record_start(run, 0, 42, "t1");
  record_exit(run, 0, e, "t2", SteadyTime{});
  const json t = pod_status(run, node)["containerStatuses"][0]["state"]["terminated"];
  EXPECT_EQ(t["reason"], "StartError");
  EXPECT_EQ(t["message"], "exec: \"nosuch\": executable file not found in $PATH");
  EXPECT_EQ(pod_phase(run), "Failed");
}

TEST(PodRun, InitContainersRunFirstAndOneAtATime) {
  NodeEnvironment node;
  auto run = make_pod_run(pod("Never", true), node, "t0");
  ASSERT_EQ(run.containers.size(), 2u);
  EXPECT_EQ(due_starts(run, SteadyTime{}), (std::vector<std::size_t>{0}));
  record_start(run, 0, 1, "t1");
  EXPECT_TRUE(due_starts(run, SteadyTime{}).empty());
  record_exit(run, 0, exited(0), "t2", SteadyTime{});
  EXPECT_EQ(due_starts(run, SteadyTime{}), (std::vector<std::size_t>{1}));
}

TEST(PodRun, AConfigErrorKeepsThePodPendingWithTheReason) {
  NodeEnvironment node;
  json p = pod("Never");
  p["spec"]["containers"][0].erase("command");
  auto run = make_pod_run(p, node, "t0");
  EXPECT_EQ(pod_phase(run), "Pending");
  EXPECT_TRUE(due_starts(run, SteadyTime{}).empty());
  EXPECT_EQ(pod_status(run, node)["containerStatuses"][0]["state"]["waiting"]["reason"],
            "CreateContainerConfigError");
}

TEST(PodRun, PastItsActiveDeadlineAPodFailsAsTheKubeletSaysAndNothingRestarts) {
  NodeEnvironment node;
  auto run = make_pod_run(pod("Always"), node, "t0");
  record_start(run, 0, 42, "t1");
  mark_deadline_exceeded(run);
  EXPECT_EQ(pod_phase(run), "Failed");
  // The container, stopped with SIGTERM, stays terminated: an Always pod past its deadline is over.
  ProcessExit killed;
  killed.signal = 15;
  killed.exit_code = 143;
  record_exit(run, 0, killed, "t2", SteadyTime{});
  EXPECT_TRUE(due_starts(run, SteadyTime{} + 1h).empty());
  const json status = pod_status(run, node);
  EXPECT_EQ(status["phase"], "Failed");
  EXPECT_EQ(status["reason"], "DeadlineExceeded");
  EXPECT_EQ(status["message"], "Pod was active on the node longer than the specified deadline");
  EXPECT_EQ(status["containerStatuses"][0]["state"]["terminated"]["exitCode"], 143);
  EXPECT_EQ(status["containerStatuses"][0]["state"]["terminated"]["reason"], "Error");
  EXPECT_EQ(status["containerStatuses"][0]["restartCount"], 0);
}

TEST(PodRun, AContainerNameThatIsNoDnsLabelNeverBecomesALaunch) {
  NodeEnvironment node;
  json p = pod("Never");
  p["spec"]["containers"][0]["name"] = "../x";
  auto run = make_pod_run(p, node, "t0");
  EXPECT_TRUE(due_starts(run, SteadyTime{}).empty());
  EXPECT_EQ(
      run.config_error,
      "spec.containers[0].name: Invalid value: \"../x\": a lowercase RFC 1123 label must consist of lower "
      "case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. "
      "'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')");
}

TEST(RestartBackoff, DoublesAndCaps) {
  EXPECT_EQ(restart_backoff(0), 1000ms);
  EXPECT_EQ(restart_backoff(1), 2000ms);
  EXPECT_EQ(restart_backoff(4), 16000ms);
  EXPECT_EQ(restart_backoff(9), 20000ms);
}

}  // namespace
}  // namespace kpt::local
