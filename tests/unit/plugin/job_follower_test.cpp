#include "plugin/follow/job_follower.hpp"

#include "plugin/follow/job_kind.hpp"
#include "tests/support/fake_api_client.hpp"
#include "util/clock.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <functional>
#include <mutex>
#include <sstream>
#include <thread>

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

// The job fails, its worker-0 having exited with code 3.
void fail_with_exit_3(testing::FakeApiClient& api) {
  api.put(kube::resources::pytorchjobs(), job("Failed"));
  api.merge("pods", "ml", "mnist-worker-0",
            {{"status",
              {{"phase", "Failed"},
               {"containerStatuses",
                json::array({{{"name", "pytorch"}, {"restartCount", 0}, {"state", k_exited_3}}})}}}});
}

// Each wait moves the fake clock; `on_wait` plays the cluster between two looks. With `real`, a
// wait also lets that much real time pass, for the log threads.
class StepWaiter final : public FollowWaiter {
 public:
  explicit StepWaiter(util::FakeClock& clock) : m_clock(clock) {}
  void wait(milliseconds how_long) override {
    if (real.count() > 0) std::this_thread::sleep_for(real);
    m_clock.advance(how_long);
    ++waits;
    if (on_wait) on_wait(waits);
  }
  int waits = 0;
  std::function<void(int)> on_wait;
  milliseconds real{0};

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
    if (n == 3) fail_with_exit_3(api);
  };
  const auto result = follow();
  EXPECT_EQ(result.end, FollowEnd::failed);
  EXPECT_EQ(result.exit_code, 3);
  EXPECT_EQ(waiter.waits, 3);
  // The last line names the rank that failed first, and how (the diagnosis before it says more).
  EXPECT_NE(
      err.str().find(
          "pytorchjob mnist failed: worker-0 (rank 0) failed first\n  exit:       exited with code 3\n"),
      std::string::npos)
      << err.str();
  const std::string last = "pytorchjob mnist failed after 1.2s: mnist-worker-0 (rank 0) exited with code 3\n";
  EXPECT_EQ(err.str().substr(err.str().size() - last.size()), last) << err.str();
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

// A log endpoint that the test scripts call by call: each call gets its number (1 for the first).
class ScriptedLogs {
 public:
  using Call = std::function<Expected<void>(int n, const std::function<bool(std::string_view)>& on_data,
                                            const std::atomic<bool>* cancel)>;
  explicit ScriptedLogs(testing::FakeApiClient& api, Call call) : m_call(std::move(call)) {
    api.serve_raw([this](const std::string&, const std::function<bool(std::string_view)>& on_data,
                         const std::atomic<bool>* cancel) {
      int n = 0;
      {
        std::lock_guard lock(m_mutex);
        n = ++m_calls;
      }
      return m_call(n, on_data, cancel);
    });
  }
  int calls() {
    std::lock_guard lock(m_mutex);
    return m_calls;
  }

 private:
  Call m_call;
  std::mutex m_mutex;
  int m_calls = 0;
};

const json k_exited_0 = {{"terminated", {{"exitCode", 0}, {"reason", "Completed"}}}};

// The job succeeds at the wait `at`.
void succeed_at(testing::FakeApiClient& api, int n, int at) {
  if (n != at) return;
  api.put(kube::resources::pytorchjobs(), job("Succeeded"));
  api.merge("pods", "ml", "mnist-worker-0",
            {{"status",
              {{"phase", "Succeeded"},
               {"containerStatuses",
                json::array({{{"name", "pytorch"}, {"restartCount", 0}, {"state", k_exited_0}}})}}}});
}

// mnist-worker-0 restarted in place for the `restarts`th time, its run before having exited `code`.
void restart_in_place(testing::FakeApiClient& api, int restarts, int code) {
  api.merge(
      "pods", "ml", "mnist-worker-0",
      {{"status",
        {{"containerStatuses",
          json::array({{{"name", "pytorch"},
                        {"restartCount", restarts},
                        {"state", k_running},
                        {"lastState", {{"terminated", {{"exitCode", code}, {"reason", "Error"}}}}}}})}}}});
}

class JobFollowerLogs : public JobFollower {
 protected:
  JobFollowerLogs() {
    options.logs = true;
    options.progress = false;
    waiter.real = milliseconds(20);
    api.put(kube::resources::pytorchjobs(), job("Running"));
    api.put(kube::resources::pods(), pod("Running", k_running));
  }
};

// The log loss of a first run: the log endpoint answers 400 while the node does not have the
// log yet (a slow start), and the tail used to end for good on it. The rank's first line comes
// after a long silence; it must be printed, once.
TEST_F(JobFollowerLogs, ALogThatAnswers400FirstIsReadWhenItCanBe) {
  ScriptedLogs logs(api, [](int n, const auto& on_data, const std::atomic<bool>*) -> Expected<void> {
    if (n == 1) {
      return testing::api_error(400, "BadRequest",
                                "container \"pytorch\" in pod \"mnist-worker-0\" is waiting to start: "
                                "ContainerCreating");
    }
    on_data("first line after a slow start\n");
    return {};
  });
  waiter.on_wait = [&](int n) { succeed_at(api, n, 40); };
  const auto result = follow();
  EXPECT_EQ(result.end, FollowEnd::succeeded);
  EXPECT_EQ(out.str(), "[worker-0 r0] first line after a slow start\n");
  EXPECT_GE(logs.calls(), 2);
}

TEST_F(JobFollowerLogs, AStreamCutWhileTheRunGoesOnIsReopenedWithoutALineTwice) {
  ScriptedLogs logs(api, [](int n, const auto& on_data, const std::atomic<bool>*) -> Expected<void> {
    // The server sends the run's log from its start each time; the first stream is cut mid-line.
    on_data(n == 1 ? "a\nb" : "a\nbc\nd\n");
    return {};
  });
  waiter.on_wait = [&](int n) { succeed_at(api, n, 40); };
  const auto result = follow();
  EXPECT_EQ(result.end, FollowEnd::succeeded);
  EXPECT_EQ(out.str(), "[worker-0 r0] a\n[worker-0 r0] bc\n[worker-0 r0] d\n");
}

TEST_F(JobFollowerLogs, AReopenedStreamWithOtherBytesIsAnotherRunsAndPrintsNothing) {
  ScriptedLogs logs(api, [](int n, const auto& on_data, const std::atomic<bool>*) -> Expected<void> {
    on_data(n == 1 ? "run one\n" : "RUN TWO\nmore\n");
    return {};
  });
  waiter.on_wait = [&](int n) { succeed_at(api, n, 40); };
  const auto result = follow();
  EXPECT_EQ(result.end, FollowEnd::succeeded);
  EXPECT_EQ(out.str(), "[worker-0 r0] run one\n");
}

TEST_F(JobFollowerLogs, ALogThatCannotBeReadIsSaidNotLostSilently) {
  options.progress = true;
  ScriptedLogs logs(api, [](int, const auto&, const std::atomic<bool>*) -> Expected<void> {
    return testing::api_error(500, "InternalError", "the node is gone");
  });
  waiter.on_wait = [&](int n) { succeed_at(api, n, 3); };
  const auto result = follow();
  EXPECT_EQ(result.end, FollowEnd::succeeded);
  EXPECT_NE(err.str().find("warning: mnist-worker-0: its log could not be read: the node is gone"),
            std::string::npos)
      << err.str();
}

TEST_F(JobFollowerLogs, TheSameFailureThreeTimesInARowEndsTheFollowAsACrashLoop) {
  ScriptedLogs logs(api, [](int, const auto& on_data, const std::atomic<bool>*) -> Expected<void> {
    on_data("  File \"/app/train.py\", line 4\n    def f(:\n          ^\nSyntaxError: invalid syntax\n");
    return {};
  });
  int restarts = 0;
  waiter.on_wait = [&](int n) {
    if (n % 5 != 0 || restarts == 6) return;
    restart_in_place(api, ++restarts, 1);
  };
  const auto result = follow();
  EXPECT_EQ(result.end, FollowEnd::crash_loop);
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_EQ(result.message, "worker-0 failed the same way 3 times in a row: the job would restart forever");
  ASSERT_TRUE(result.diagnosis.has_value());
  EXPECT_EQ(verdict_id(result.diagnosis->verdict), "crash-loop");
  EXPECT_EQ(result.diagnosis->repeats, 3);
  ASSERT_TRUE(result.diagnosis->root.has_value());
  EXPECT_EQ(result.diagnosis->root->error->line, "SyntaxError: invalid syntax");
  EXPECT_NE(out.str().find("--- worker-0 attempt 2 ---\n"), std::string::npos) << out.str();
}

// With runPolicy.backoffLimit 3 the third restart fails the job: the loop is followed to that end,
// which is the verdict, instead of being cut short as one that would restart forever.
TEST_F(JobFollowerLogs, ACrashLoopThatTheBackoffLimitEndsIsFollowedToTheJobsEnd) {
  options.progress = true;
  json limited = job("Running");
  limited["spec"]["runPolicy"] = {{"backoffLimit", 3}};
  limited["spec"]["pytorchReplicaSpecs"]["Worker"]["restartPolicy"] = "OnFailure";
  api.put(kube::resources::pytorchjobs(), limited);
  ScriptedLogs logs(api, [](int, const auto& on_data, const std::atomic<bool>*) -> Expected<void> {
    on_data("FileNotFoundError: /data/shard-1 missing\n");
    return {};
  });
  int restarts = 0;
  waiter.on_wait = [&](int n) {
    if (n % 5 != 0) return;
    if (restarts == 3) {  // the controller's next pass: the third restart has spent the limit
      limited["status"]["conditions"] = json::array({{{"type", "Failed"}, {"status", "True"}}});
      api.put(kube::resources::pytorchjobs(), limited);
      return;
    }
    restart_in_place(api, ++restarts, 2);
  };
  const auto result = follow();
  EXPECT_EQ(result.end, FollowEnd::failed);
  EXPECT_NE(err.str().find("note: worker-0 failed the same way 3 times; its restarts have reached "
                           "runPolicy.backoffLimit 3, so the job fails now: following the job to its end\n"),
            std::string::npos)
      << err.str();
}

// A pod deleted under its running rank and created again under its name: the new pod's log follows
// a separator, and the deleted run stays in the verdict although the new pod no longer shows it.
TEST_F(JobFollowerLogs, APodCreatedAgainUnderItsNameKeepsTheDeletedRunForTheVerdict) {
  options.progress = true;
  ScriptedLogs logs(api, [](int n, const auto& on_data, const std::atomic<bool>*) -> Expected<void> {
    on_data(n == 1 ? "rank 0 step 5\n" : "rank 0 step 1 again\n");
    return {};
  });
  waiter.on_wait = [&](int n) {
    if (n == 5) {
      json again = pod("Running", k_running);
      again["metadata"]["uid"] = "w0-again";
      api.put(kube::resources::pods(), again);
    }
    if (n == 10) fail_with_exit_3(api);
  };
  const auto result = follow();
  EXPECT_EQ(result.end, FollowEnd::failed);
  EXPECT_NE(
      out.str().find("[worker-0 r0] rank 0 step 5\n--- worker-0: a new pod (the one before was deleted) ---\n"
                     "[worker-0 r0] rank 0 step 1 again\n"),
      std::string::npos)
      << out.str();
  ASSERT_TRUE(result.diagnosis.has_value());
  std::vector<RankFailure> all = result.diagnosis->following;
  ASSERT_TRUE(result.diagnosis->root.has_value());
  all.push_back(*result.diagnosis->root);
  EXPECT_TRUE(std::any_of(all.begin(), all.end(), [](const RankFailure& f) {
    return f.replaced && f.last_line == "rank 0 step 5" &&
           f.exit_text == "was deleted while it ran (its processes got SIGTERM), and created again";
  }));
}

// cleanPodPolicy None leaves a failed job's pods restarting in place: a run that began after the
// job ended is not followed, and its restart is no note: the verdict ends the output.
TEST_F(JobFollowerLogs, ARunThatBeginsAfterTheJobFailedIsNotFollowed) {
  options.progress = true;
  ScriptedLogs logs(api, [](int n, const auto& on_data, const std::atomic<bool>*) -> Expected<void> {
    on_data(n == 1 ? "Traceback (most recent call last):\n  File \"/app/train.py\", line 13, in "
                     "<module>\nValueError: bad batch\n"
                   : "run " + std::to_string(n) + "\n");
    return {};
  });
  waiter.on_wait = [&](int n) {
    if (n != 3) return;
    json failed = job("Failed");
    failed["status"]["completionTime"] = "2026-12-06T09:00:10Z";
    api.put(kube::resources::pytorchjobs(), failed);
    api.merge(
        "pods", "ml", "mnist-worker-0",
        {{"status",
          {{"containerStatuses",
            json::array({{{"name", "pytorch"},
                          {"restartCount", 1},
                          {"state", {{"running", {{"startedAt", "2026-12-06T09:00:12Z"}}}}},
                          {"lastState", {{"terminated", {{"exitCode", 2}, {"reason", "Error"}}}}}}})}}}});
  };
  const auto result = follow();
  EXPECT_EQ(result.end, FollowEnd::failed);
  EXPECT_EQ(
      out.str(),
      "[worker-0 r0] Traceback (most recent call last):\n[worker-0 r0]   File \"/app/train.py\", line 13, in "
      "<module>\n[worker-0 r0] ValueError: bad batch\n");
  EXPECT_EQ(err.str().find("note: "), std::string::npos) << err.str();
  // The failed run's lines are the previous log of a pod that runs again: its exception is the verdict's.
  ASSERT_TRUE(result.diagnosis.has_value());
  ASSERT_TRUE(result.diagnosis->root.has_value());
  ASSERT_TRUE(result.diagnosis->root->error.has_value());
  EXPECT_EQ(result.diagnosis->root->error->line, "ValueError: bad batch");
}

// While the follow drains the logs of a failed job, a pod restarting in place fails again: the
// verdict is the run that failed the job (after 1 restart, exit code 2, its exception), not the later.
TEST_F(JobFollowerLogs, AFinishedJobsPodThatFailsAgainKeepsItsStateOfTheEndForTheVerdict) {
  std::atomic<bool> release{false};
  ScriptedLogs logs(api, [&](int n, const auto& on_data, const std::atomic<bool>* cancel) -> Expected<void> {
    on_data(n == 1 ? "Traceback (most recent call last):\n  File \"/app/train.py\", line 13, in "
                     "<module>\nValueError: bad batch\n"
                   : "run " + std::to_string(n) + "\n");
    while (n == 1 && !release.load() && !cancel->load()) std::this_thread::sleep_for(milliseconds(5));
    return {};
  });
  const auto restarted = [&](int count, int code, const std::string& started) {
    api.merge(
        "pods", "ml", "mnist-worker-0",
        {{"status",
          {{"containerStatuses",
            json::array({{{"name", "pytorch"},
                          {"restartCount", count},
                          {"state", {{"running", {{"startedAt", started}}}}},
                          {"lastState", {{"terminated", {{"exitCode", code}, {"reason", "Error"}}}}}}})}}}});
  };
  waiter.on_wait = [&](int n) {
    if (n == 3) {
      json failed = job("Failed");
      failed["status"]["completionTime"] = "2026-12-06T09:00:10Z";
      api.put(kube::resources::pytorchjobs(), failed);
      restarted(1, 2, "2026-12-06T09:00:12Z");
    }
    if (n == 4) restarted(2, 3, "2026-12-06T09:00:20Z");
    if (n == 5) release = true;
  };
  const auto result = follow();
  EXPECT_EQ(result.end, FollowEnd::failed);
  ASSERT_TRUE(result.diagnosis.has_value());
  ASSERT_TRUE(result.diagnosis->root.has_value());
  EXPECT_EQ(result.diagnosis->root->restarts, 1);
  EXPECT_EQ(result.diagnosis->root->exit_code, 2);
  ASSERT_TRUE(result.diagnosis->root->error.has_value());
  EXPECT_EQ(result.diagnosis->root->error->line, "ValueError: bad batch");
}

// A failed job whose controller deletes a pod before the follow sees it end (a JobSet that fails
// deletes its Jobs' pods at once): the deleted pod's log says how it ended, and that can be the
// cause, while the rank whose end was seen only lost its peer.
TEST_F(JobFollowerLogs, APodDeletedBeforeItsEndWasSeenIsJudgedByItsLog) {
  json two = job("Running");
  two["spec"]["pytorchReplicaSpecs"]["Worker"]["replicas"] = 2;
  api.put(kube::resources::pytorchjobs(), two);
  json worker1 = pod("Running", k_running);
  worker1["metadata"]["name"] = "mnist-worker-1";
  worker1["metadata"]["uid"] = "w1";
  worker1["metadata"]["labels"]["training.kubeflow.org/replica-index"] = "1";
  api.put(kube::resources::pods(), worker1);
  api.serve_raw([](const std::string& path, const std::function<bool(std::string_view)>& on_data,
                   const std::atomic<bool>*) -> Expected<void> {
    on_data(
        path.find("mnist-worker-1") != std::string::npos
            ? "Traceback (most recent call last):\n  File \"/app/train.py\", line 13, in <module>\n"
              "ValueError: bad batch\n"
            : "Traceback (most recent call last):\n  File \"/app/train.py\", line 20, in <module>\n"
              "RuntimeError: [../gloo/transport/tcp/pair.cc:598] Connection closed by peer [127.0.0.1]:1\n");
    return {};
  });
  waiter.on_wait = [&](int n) {
    if (n != 3) return;
    json failed = two;
    failed["status"]["conditions"] = json::array({{{"type", "Failed"}, {"status", "True"}}});
    api.put(kube::resources::pytorchjobs(), failed);
    api.merge("pods", "ml", "mnist-worker-0",
              {{"status",
                {{"phase", "Failed"},
                 {"containerStatuses", json::array({{{"name", "pytorch"},
                                                     {"restartCount", 0},
                                                     {"state",
                                                      {{"terminated",
                                                        {{"exitCode", 1},
                                                         {"reason", "Error"},
                                                         {"finishedAt", "1970-01-01T00:00:01Z"}}}}}}})}}}});
    api.purge("pods", "ml", "mnist-worker-1");
  };
  const auto result = follow();
  EXPECT_EQ(result.end, FollowEnd::failed);
  ASSERT_TRUE(result.diagnosis.has_value());
  ASSERT_TRUE(result.diagnosis->root.has_value());
  EXPECT_EQ(result.diagnosis->root->pod, "mnist-worker-1");
  EXPECT_EQ(result.diagnosis->root->exit_text, "was deleted before its exit was seen");
  ASSERT_TRUE(result.diagnosis->root->error.has_value());
  EXPECT_EQ(result.diagnosis->root->error->line, "ValueError: bad batch");
  ASSERT_EQ(result.diagnosis->following.size(), 1u);
  EXPECT_EQ(result.diagnosis->following[0].pod, "mnist-worker-0");
  EXPECT_TRUE(result.diagnosis->left_behind.empty());
}

TEST_F(JobFollowerLogs, ARankSilentForTheStallTimeoutEndsTheFollowWhenAskedTo) {
  std::atomic<bool> printed{false};
  ScriptedLogs logs(api, [&](int, const auto& on_data, const std::atomic<bool>* cancel) -> Expected<void> {
    on_data("rank 0 step 3\n");
    printed = true;
    while (!cancel->load()) std::this_thread::sleep_for(milliseconds(5));
    return {};
  });
  options.stall_timeout = std::chrono::seconds(10);
  options.stall_ends = true;
  waiter.on_wait = [&](int) {
    while (!printed.load()) std::this_thread::sleep_for(milliseconds(5));  // the clock moves after the line
  };
  const auto result = follow();
  EXPECT_EQ(result.end, FollowEnd::stalled);
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_EQ(result.message, "worker-0 (rank 0) has printed nothing for 10s");
  ASSERT_TRUE(result.diagnosis.has_value());
  EXPECT_EQ(verdict_id(result.diagnosis->verdict), "stalled");
  ASSERT_EQ(result.diagnosis->ranks.size(), 1u);
  EXPECT_EQ(result.diagnosis->ranks[0].last_line, "rank 0 step 3");
}

TEST_F(JobFollowerLogs, BeforeTheStallTimeoutOnlyWarnsOncePerSilence) {
  options.progress = true;
  std::atomic<bool> printed{false};
  ScriptedLogs logs(api, [&](int, const auto& on_data, const std::atomic<bool>* cancel) -> Expected<void> {
    on_data("rank 0 step 3\n");
    printed = true;
    while (!cancel->load()) std::this_thread::sleep_for(milliseconds(5));
    return {};
  });
  options.stall_timeout = std::chrono::seconds(2);
  waiter.on_wait = [&](int n) {
    while (!printed.load()) std::this_thread::sleep_for(milliseconds(5));
    succeed_at(api, n, 20);
  };
  const auto result = follow();
  EXPECT_EQ(result.end, FollowEnd::succeeded);
  const std::string text = err.str();
  const std::string warning = "warning: worker-0 (rank 0) has printed nothing for 2s (--stall-timeout 2s)\n";
  ASSERT_NE(text.find(warning), std::string::npos) << text;
  EXPECT_EQ(text.find(warning, text.find(warning) + 1), std::string::npos) << text;
  EXPECT_NE(text.find("  worker-0 (rank 0) 2s ago: 'rank 0 step 3'\n"), std::string::npos) << text;
}

}  // namespace
}  // namespace kpt::plugin
