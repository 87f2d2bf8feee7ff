#include "plugin/follow/diagnosis.hpp"

#include "plugin/follow/diagnosis_output.hpp"
#include "tests/unit/plugin/failure_fixtures.hpp"
#include "util/strings.hpp"
#include "util/time.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>

namespace kpt::plugin {
namespace {

using nlohmann::json;
using testing::failure_log;

const std::string k_t0 = "2026-12-06T03:14:58Z";

std::string at(int seconds) {
  return util::format_time(*util::parse_time(k_t0) + std::chrono::seconds(seconds));
}

json job(const std::string& condition, const std::string& message = "") {
  return {{"apiVersion", "kubeflow.org/v1"},
          {"kind", "PyTorchJob"},
          {"metadata", {{"name", "dg"}, {"namespace", "ml"}}},
          {"spec", {{"pytorchReplicaSpecs", {{"Worker", {{"replicas", 2}}}}}}},
          {"status",
           {{"conditions", json::array({{{"type", condition}, {"status", "True"}, {"message", message}}})}}}};
}

json terminated(int code, int finished, const std::string& reason = "Error", int signal = 0) {
  json t = {{"exitCode", code}, {"reason", reason}, {"finishedAt", at(finished)}};
  if (signal != 0) t["signal"] = signal;
  return {{"terminated", t}};
}

json running(int started = 0) { return {{"running", {{"startedAt", at(started)}}}}; }

json pod(int index, const std::string& phase, const json& state, int restarts = 0,
         const json& last = json::object(), const json& extra_status = json::object()) {
  json status = {
      {"phase", phase},
      {"containerStatuses",
       json::array(
           {{{"name", "pytorch"}, {"restartCount", restarts}, {"state", state}, {"lastState", last}}})}};
  status.merge_patch(extra_status);
  return {{"metadata",
           {{"name", "dg-worker-" + std::to_string(index)},
            {"namespace", "ml"},
            {"uid", "w" + std::to_string(index)},
            {"labels",
             {{"training.kubeflow.org/job-name", "dg"},
              {"training.kubeflow.org/replica-type", "worker"},
              {"training.kubeflow.org/replica-index", std::to_string(index)}}}}},
          {"status", status}};
}

RunLog log_of(int index, std::vector<std::string> lines, bool previous = false) {
  return RunLog{"dg-worker-" + std::to_string(index), previous, std::move(lines), std::nullopt};
}

DiagnosisInput input(json j, std::vector<json> pods, std::vector<RunLog> logs = {}) {
  DiagnosisInput in;
  in.job = std::move(j);
  in.pods = std::move(pods);
  in.logs = std::move(logs);
  in.now = std::chrono::system_clock::time_point(*util::parse_time(k_t0) + std::chrono::seconds(60));
  in.step.job_word = "dg";
  in.step.flags = " --local -n ml";
  return in;
}

TEST(Diagnose, TheRankWithTheExceptionIsTheRootCauseAndItsLostPeerFollowsIt) {
  const Diagnosis d = diagnose(
      input(job("Failed", "PyTorchJob dg is failed because 1 Worker replica(s) failed."),
            {pod(0, "Failed", terminated(1, 0)), pod(1, "Failed", terminated(1, 0))},
            {log_of(0, failure_log("exception-rank0.log")), log_of(1, failure_log("exception-rank1.log"))}));
  EXPECT_EQ(verdict_id(d.verdict), "failed");
  ASSERT_TRUE(d.root.has_value());
  EXPECT_EQ(d.root->role, "worker-1");
  EXPECT_EQ(d.root->rank, 1);
  EXPECT_EQ(class_id(d.root->klass), "exception");
  ASSERT_TRUE(d.root->error.has_value());
  EXPECT_EQ(d.root->error->line, "RuntimeError: loss is NaN at step 3");
  ASSERT_EQ(d.following.size(), 1u);
  EXPECT_EQ(d.following[0].role, "worker-0");
  EXPECT_TRUE(d.following[0].collateral);
  EXPECT_EQ(class_id(d.following[0].klass), "peer-lost");
  EXPECT_EQ(d.next_step, "fix the error at train.py:36");
}

TEST(Diagnose, ASigkilledRankComesFirstEvenWhenRankZerosExitDecidesRunsCode) {
  const Diagnosis d = diagnose(input(
      job("Failed"), {pod(0, "Failed", terminated(1, 1)), pod(1, "Failed", terminated(137, 0, "Error", 9))},
      {log_of(0, failure_log("sigkill-rank0.log")), log_of(1, failure_log("sigkill-rank1.log"))}));
  ASSERT_TRUE(d.root.has_value());
  EXPECT_EQ(d.root->role, "worker-1");
  EXPECT_EQ(d.root->exit_text, "killed (SIGKILL): often the out-of-memory killer (exit code 137)");
  EXPECT_EQ(class_id(d.root->klass), "killed");
  EXPECT_EQ(d.root->last_line, "rank 1 step 3");
  ASSERT_EQ(d.following.size(), 1u);
  EXPECT_EQ(d.following[0].after_root, 1.0);
  EXPECT_TRUE(d.following[0].collateral);
}

struct OrderCase {
  const char* name;
  int rank0_finished;
  const char* rank0_log;
  int rank1_finished;
  const char* rank1_log;
  const char* root;
};

TEST(Diagnose, TheFirstFailureByTimeIsTheRootUnlessItIsAPeersLossAtTheSameMoment) {
  const OrderCase cases[] = {
      {"a lost peer at the same second gives way", 0, "exception-rank0.log", 0, "exception-rank1.log",
       "worker-1"},
      {"and a few seconds later still (clocks, polling)", 0, "exception-rank0.log", 4, "exception-rank1.log",
       "worker-1"},
      {"but not long after: the first failure is the cause", 0, "collective-timeout-rank0.log", 30,
       "exception-rank1.log", "worker-0"},
      {"two exceptions: the earlier", 10, "exception-rank1.log", 3, "import-rank0.log", "worker-1"},
      {"the same moment and the same kind: the lower rank", 0, "import-rank0.log", 0, "import-rank0.log",
       "worker-0"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    const Diagnosis d =
        diagnose(input(job("Failed"),
                       {pod(0, "Failed", terminated(1, c.rank0_finished)),
                        pod(1, "Failed", terminated(1, c.rank1_finished))},
                       {log_of(0, failure_log(c.rank0_log)), log_of(1, failure_log(c.rank1_log))}));
    ASSERT_TRUE(d.root.has_value());
    EXPECT_EQ(d.root->role, c.root);
  }
}

TEST(Diagnose, ARestartedRanksFailureIsReadFromItsPreviousRun) {
  const Diagnosis d = diagnose(input(
      job("Running"), {pod(0, "Running", running(5)), pod(1, "Running", running(5), 1, terminated(1, 2))},
      {log_of(1, {"rank 1 step 1"}), log_of(1, failure_log("import-rank0.log"), true)}));
  EXPECT_EQ(verdict_id(d.verdict), "running");
  ASSERT_TRUE(d.root.has_value());
  EXPECT_EQ(d.root->restarts, 1);
  EXPECT_EQ(class_id(d.root->klass), "missing-module");
}

TEST(Diagnose, TheSameFailureAgainAndAgainIsACrashLoopWithTheBackoffLimitHint) {
  json waiting = {{"waiting", {{"reason", "CrashLoopBackOff"}}}};
  auto in = input(job("Running"), {pod(0, "Running", waiting, 3, terminated(1, 20))},
                  {log_of(0, failure_log("syntax-rank0.log"))});
  Diagnosis d = diagnose(in);  // diagnose sees three restarts in back-off
  EXPECT_EQ(verdict_id(d.verdict), "crash-loop");
  EXPECT_EQ(d.repeats, 3);
  EXPECT_EQ(d.next_step,
            "fix the error at syntax_error.py:4; then set spec.runPolicy.backoffLimit so that the job fails "
            "instead of restarting forever");
  in.crash_loop_repeats = 4;  // run counted them
  EXPECT_EQ(diagnose(in).repeats, 4);
}

TEST(Diagnose, ACrashLoopUnderABackoffLimitSaysWhenTheJobFailsNotToSetOne) {
  json limited = job("Running");
  limited["spec"]["runPolicy"] = {{"backoffLimit", 5}};
  json waiting = {{"waiting", {{"reason", "CrashLoopBackOff"}}}};
  const Diagnosis d = diagnose(input(limited, {pod(0, "Running", waiting, 3, terminated(1, 20))},
                                     {log_of(0, failure_log("syntax-rank0.log"))}));
  EXPECT_EQ(verdict_id(d.verdict), "crash-loop");
  ASSERT_TRUE(d.backoff.has_value());
  EXPECT_EQ(
      d.next_step,
      "fix the error at syntax_error.py:4; the job fails after 2 more restarts (runPolicy.backoffLimit 5)");
}

TEST(Diagnose, ARendezvousTimeoutNamesTheRanksStillRunningAsTheOnesItWaitedFor) {
  auto in = input(
      job("Failed"), {pod(0, "Failed", terminated(1, 40)), pod(1, "Running", running(0))},
      {log_of(0, failure_log("rendezvous-timeout.log")), log_of(1, {"rank 1 downloading the dataset"})});
  in.logs[1].last_output = in.now - std::chrono::seconds(55);
  const Diagnosis d = diagnose(in);
  EXPECT_EQ(verdict_id(d.verdict), "failed");
  EXPECT_EQ(class_id(d.klass), "rendezvous-timeout");
  ASSERT_EQ(d.ranks.size(), 1U);
  EXPECT_EQ(d.ranks[0].role, "worker-1");
  EXPECT_EQ(
      d.next_step,
      "worker-1 (rank 1) did not join in time: every rank must reach init_process_group within its timeout "
      "(start slow work such as a download after it, or raise timeout=); if it did, check that it reaches "
      "rank 0's MASTER_ADDR:MASTER_PORT");
  const auto lines = diagnosis_lines(d, in.step);
  EXPECT_NE(
      std::find(lines.begin(), lines.end(),
                "  waited for: worker-1 (rank 1), still running: its last line 55s ago 'rank 1 downloading "
                "the dataset'"),
      lines.end())
      << util::join(lines, "\n");
}

TEST(Diagnose, AFailedJobWhosePodsAreGoneSaysItsConditionAndWhereTheLogsWent) {
  auto in =
      input(job("Failed", "jobset failed due to one or more job failures (first failed job: dg-node-0)"), {});
  in.step.kubectl_flags = " -n ml";
  const Diagnosis d = diagnose(in);
  EXPECT_EQ(verdict_id(d.verdict), "failed");
  EXPECT_EQ(d.problem, "jobset failed due to one or more job failures (first failed job: dg-node-0)");
  EXPECT_EQ(
      d.next_step,
      "its pods were deleted when it failed, and their logs with them: kubectl pytorch run follows a job to "
      "its end and keeps each rank's; the job's events may say more (kubectl get events -n ml)");
}

// `kubectl delete pod` (an eviction, a preemption) under a running rank: the controller creates the
// pod again under its name, and its peer loses the connection. The deleted run is the root cause.
TEST(Diagnose, APodDeletedUnderARunningRankAndCreatedAgainIsWhyItsPeerLostIt) {
  auto in = input(job("Failed"), {pod(0, "Failed", terminated(1, 10)), pod(1, "Running", running(12))},
                  {log_of(0, failure_log("exception-rank0.log")), log_of(1, {"rank 1 step 1"})});
  json old = pod(1, "Running", running(0));
  old["metadata"]["uid"] = "w1-old";
  in.replaced.push_back(
      ReplacedRun{old, log_of(1, {"rank 1 step 5"}), *util::parse_time(k_t0) + std::chrono::seconds(10)});
  const Diagnosis d = diagnose(in);
  ASSERT_TRUE(d.root.has_value());
  EXPECT_EQ(d.root->role, "worker-1");
  EXPECT_EQ(d.root->exit_text, "was deleted while it ran (its processes got SIGTERM), and created again");
  EXPECT_EQ(d.root->last_line, "rank 1 step 5");
  EXPECT_EQ(class_id(d.root->klass), "terminated");
  EXPECT_EQ(d.next_step, "something stopped the process (a deletion, a preemption): see the job's events");
  const auto lines = diagnosis_lines(d, in.step);
  EXPECT_NE(std::find(lines.begin(), lines.end(),
                      "  its log:    deleted with its pod; the follow printed it above"),
            lines.end())
      << util::join(lines, "\n");
  ASSERT_EQ(d.following.size(), 1u);
  EXPECT_EQ(d.following[0].role, "worker-0");
  EXPECT_TRUE(d.following[0].collateral);
}

TEST(Diagnose, OomKilledIsSaidAsTheRuntimeSaysIt) {
  const Diagnosis d = diagnose(
      input(job("Failed"), {pod(0, "Failed", terminated(137, 0, "OOMKilled"))}, {log_of(0, {"epoch 1"})}));
  ASSERT_TRUE(d.root.has_value());
  EXPECT_EQ(class_id(d.klass), "host-oom");
  EXPECT_EQ(d.root->exit_text, "OOMKilled (exit code 137): the container went over its memory limit");
}

struct PendingCase {
  const char* name;
  json pod;
  std::vector<json> events;
  const char* verdict;
  const char* klass;
  const char* problem;
};

json event(const std::string& object, const std::string& reason, const std::string& message) {
  return {
      {"involvedObject", {{"name", object}}}, {"reason", reason}, {"message", message}, {"type", "Warning"}};
}

TEST(Diagnose, SaysWhyNothingRuns) {
  const json unscheduled = {
      {"conditions",
       json::array({{{"type", "PodScheduled"},
                     {"status", "False"},
                     {"message", "0/3 nodes are available: 3 Insufficient nvidia.com/gpu."}}})}};
  const json gang = {
      {"conditions", json::array({{{"type", "PodScheduled"},
                                   {"status", "False"},
                                   {"message", "pod group is not ready, 1/2 pods scheduled"}}})}};
  const PendingCase cases[] = {
      {"an image that cannot be pulled",
       pod(0, "Pending",
           {{"waiting", {{"reason", "ImagePullBackOff"}, {"message", "Back-off pulling image \"x\""}}}}),
       {},
       "stuck",
       "image-pull",
       "dg-worker-0 is stuck in ImagePullBackOff: Back-off pulling image \"x\""},
      {"a missing Secret",
       pod(0, "Pending",
           {{"waiting",
             {{"reason", "CreateContainerConfigError"}, {"message", "secret \"token\" not found"}}}}),
       {},
       "stuck",
       "config-error",
       "dg-worker-0 is stuck in CreateContainerConfigError: secret \"token\" not found"},
      {"no node fits",
       pod(0, "Pending", json::object(), 0, json::object(), unscheduled),
       {},
       "pending",
       "unschedulable",
       "dg-worker-0 is not scheduled: 0/3 nodes are available: 3 Insufficient nvidia.com/gpu."},
      {"the gang scheduler waits",
       pod(0, "Pending", json::object(), 0, json::object(), gang),
       {},
       "pending",
       "gang-wait",
       "dg-worker-0 is not scheduled: pod group is not ready, 1/2 pods scheduled"},
      {"a webhook refuses the pods",
       pod(0, "Pending", json::object()),
       {event(
           "dg", "FailedCreatePod",
           "Error creating: admission webhook \"policy.example.com\" denied the request: no GPUs for team")},
       "pending",
       "controller-error",
       "dg: FailedCreatePod: Error creating: admission webhook \"policy.example.com\" denied the request: no "
       "GPUs "
       "for team"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    auto in = input(job("Created"), {c.pod});
    in.events = c.events;
    const Diagnosis d = diagnose(in);
    EXPECT_EQ(verdict_id(d.verdict), c.verdict);
    EXPECT_EQ(class_id(d.klass), c.klass);
    EXPECT_EQ(d.problem, c.problem);
    EXPECT_FALSE(d.next_step.empty());
  }
}

TEST(Diagnose, PodsStillRunningAfterTheEndAreLeftBehind) {
  const Diagnosis d =
      diagnose(input(job("Failed"), {pod(0, "Running", running()), pod(1, "Failed", terminated(2, 0))},
                     {log_of(1, {"bad input"})}));
  EXPECT_EQ(d.left_behind, std::vector<std::string>{"dg-worker-0"});
  ASSERT_TRUE(d.root.has_value());
  EXPECT_EQ(class_id(d.root->klass), "exit-code");
}

TEST(Diagnose, PodsTheJobsCleanUpRemovesAreNotLeftBehind) {
  const std::vector<json> pods = {pod(0, "Running", running()), pod(1, "Failed", terminated(2, 0))};
  for (const char* policy : {"All", "Running"}) {
    json j = job("Failed");
    j["spec"]["runPolicy"]["cleanPodPolicy"] = policy;
    EXPECT_TRUE(diagnose(input(j, pods)).left_behind.empty()) << policy;
  }
  json j = job("Failed");
  j["spec"]["runPolicy"]["cleanPodPolicy"] = "None";
  EXPECT_EQ(diagnose(input(j, pods)).left_behind, std::vector<std::string>{"dg-worker-0"});
  json deleting = pods[0];
  deleting["metadata"]["deletionTimestamp"] = at(1);
  EXPECT_TRUE(diagnose(input(job("Failed"), {deleting, pods[1]})).left_behind.empty());
}

TEST(Diagnose, ARunningJobNamesTheRankSilentForTheThreshold) {
  auto in = input(job("Running"), {pod(0, "Running", running()), pod(1, "Running", running())},
                  {log_of(0, {"rank 0 step 40"}), log_of(1, failure_log("hang-rank1.log"))});
  in.logs[0].last_output = in.now - std::chrono::seconds(2);
  in.logs[1].last_output = in.now - std::chrono::seconds(75);
  const Diagnosis d = diagnose(in);
  EXPECT_EQ(verdict_id(d.verdict), "stalled");
  ASSERT_EQ(d.ranks.size(), 2u);
  EXPECT_FALSE(d.ranks[0].silent);
  EXPECT_EQ(d.ranks[0].seconds, 2);
  EXPECT_TRUE(d.ranks[1].silent);
  EXPECT_EQ(d.ranks[1].seconds, 75);
  EXPECT_EQ(d.ranks[1].last_line, "rank 1 step 3");
  in.logs[1].last_output = in.now - std::chrono::seconds(20);
  EXPECT_EQ(verdict_id(diagnose(in).verdict), "running");
}

TEST(Diagnose, ASucceededJobNeedsNoNextStep) {
  const Diagnosis d = diagnose(input(job("Succeeded"), {pod(0, "Succeeded", terminated(0, 0, "Completed"))}));
  EXPECT_EQ(verdict_id(d.verdict), "succeeded");
  EXPECT_FALSE(d.root.has_value());
  EXPECT_EQ(d.next_step, "");
}

/// A Failed TrainJob whose node pod (node rank 1, torchrun exited 1) left the log `log_name`.
DiagnosisInput failed_trainjob_node(const std::string& log_name) {
  json tj = {{"apiVersion", "trainer.kubeflow.org/v1alpha1"},
             {"kind", "TrainJob"},
             {"metadata", {{"name", "tj"}, {"namespace", "ml"}}},
             {"status",
              {{"conditions",
                json::array({{{"type", "Failed"}, {"status", "True"}, {"message", "jobset failed"}}})}}}};
  json node = {
      {"metadata",
       {{"name", "tj-node-0-1-abcde"},
        {"namespace", "ml"},
        {"uid", "n1"},
        {"labels",
         {{"jobset.sigs.k8s.io/jobset-name", "tj"}, {"jobset.sigs.k8s.io/replicatedjob-name", "node"}}},
        {"annotations", {{"batch.kubernetes.io/job-completion-index", "1"}}}}},
      {"spec", {{"containers", json::array({{{"name", "node"}}})}}},
      {"status",
       {{"phase", "Failed"},
        {"containerStatuses",
         json::array({{{"name", "node"}, {"restartCount", 0}, {"state", terminated(1, 0)}}})}}}};
  auto in = input(tj, {node}, {RunLog{"tj-node-0-1-abcde", false, failure_log(log_name), std::nullopt}});
  in.step.job_word = "trainjob/tj";
  return in;
}

TEST(Diagnose, ATrainJobsNodeIsNamedByItsNodeRank) {
  const Diagnosis d = diagnose(failed_trainjob_node("trainjob-node1.log"));
  ASSERT_TRUE(d.root.has_value());
  EXPECT_EQ(d.root->role, "node-1");
  EXPECT_EQ(d.root->rank, 1);
  EXPECT_EQ(d.root->error->line, "RuntimeError: loss is NaN at step 3");
  EXPECT_EQ(class_id(d.klass), "exception");
}

TEST(Diagnose, ANodeWhoseTorchrunWorkerCouldNotStartSaysWhyNotThatAChildFailed) {
  const Diagnosis d = diagnose(failed_trainjob_node("trainjob-node0-missing-file.log"));
  ASSERT_TRUE(d.root.has_value());
  EXPECT_FALSE(d.root->error.has_value());
  EXPECT_EQ(class_id(d.root->klass), "missing-file");
  EXPECT_EQ(d.root->exit_text,
            "exited with code 1: torchrun's worker of global rank 0 (local rank 0) exited with code 2");
  EXPECT_EQ(
      d.root->last_line,
      "/usr/bin/python3.11: can't open file '/src/failures/trian.py': [Errno 2] No such file or directory");
}

TEST(Diagnose, ANodeWhoseTorchrunWorkerWasKilledIsKilledNotAChildFailedError) {
  const Diagnosis d = diagnose(failed_trainjob_node("trainjob-node1-sigkill.log"));
  ASSERT_TRUE(d.root.has_value());
  EXPECT_FALSE(d.root->error.has_value());
  EXPECT_EQ(class_id(d.root->klass), "killed");
  EXPECT_EQ(d.root->signal, 9);
  EXPECT_EQ(d.root->last_line, "step 3/5 loss 0.333 sum 1.0");
  EXPECT_EQ(
      d.root->exit_text,
      "exited with code 1: torchrun's worker of global rank 1 (local rank 0) was killed (SIGKILL): often "
      "the out-of-memory killer (exit code -9)");
}

TEST(Diagnose, AKilledWorkerOutweighsItsNodePeersLostConnection) {
  const Diagnosis d = diagnose(failed_trainjob_node("trainjob-node1-sigkill-peer-first.log"));
  ASSERT_TRUE(d.root.has_value());
  EXPECT_FALSE(d.root->error.has_value());
  EXPECT_EQ(class_id(d.root->klass), "killed");
  EXPECT_EQ(d.root->last_line, "rank 3 step 3");
  EXPECT_EQ(
      d.root->exit_text,
      "exited with code 1: torchrun's worker of global rank 3 (local rank 1) was killed (SIGKILL): often "
      "the out-of-memory killer (exit code -9)");
}

// Real logs of a two-node TrainJob whose rank 3 (node 1) was SIGKILLed: node 0's end was seen (its
// workers lost their peer), node 1's pod was deleted with the failed JobSet before its end was seen.
TEST(Diagnose, ADeletedNodesLogNamesTheKilledWorkerBeforeTheNodeThatLostItsPeer) {
  DiagnosisInput in = failed_trainjob_node("trainjob-node1-sigkill-peer-first.log");
  const auto status_of = [](const std::string& phase, const json& state) {
    return json{
        {"phase", phase},
        {"containerStatuses", json::array({{{"name", "node"}, {"restartCount", 0}, {"state", state}}})}};
  };
  json& deleted = in.pods[0];
  deleted["status"] = status_of("Running", running());
  in.deleted = {"tj-node-0-1-abcde"};
  in.logs[0].last_output = *util::parse_time(k_t0) + std::chrono::seconds(1);
  json node0 = deleted;
  node0["metadata"]["name"] = "tj-node-0-0-fghij";
  node0["metadata"]["uid"] = "n0";
  node0["metadata"]["annotations"]["batch.kubernetes.io/job-completion-index"] = "0";
  node0["status"] = status_of("Failed", terminated(1, 0));
  in.pods.push_back(node0);
  in.logs.push_back(
      RunLog{"tj-node-0-0-fghij", false, failure_log("trainjob-node0-peer-lost.log"), std::nullopt});
  const Diagnosis d = diagnose(in);
  ASSERT_TRUE(d.root.has_value());
  EXPECT_EQ(d.root->role, "node-1");
  EXPECT_EQ(class_id(d.root->klass), "killed");
  EXPECT_EQ(d.root->exit_text,
            "was deleted before its exit was seen: torchrun's worker of global rank 3 (local rank 1) was "
            "killed (SIGKILL): often the out-of-memory killer (exit code -9)");
  ASSERT_EQ(d.following.size(), 1u);
  EXPECT_EQ(d.following[0].role, "node-0");
  EXPECT_TRUE(d.following[0].collateral);
  EXPECT_TRUE(d.left_behind.empty());
}

// Both nodes restarted in place twice; the JobSet gave up and deleted them while their third runs
// ended. Their lastState is the second run's end (node 0's first by a second): the third runs' logs,
// later, say who failed first in the attempt that ended the job.
TEST(Diagnose, NodesDeletedInALaterRunAreJudgedByThatRunsLogNotTheirLastState) {
  DiagnosisInput in = failed_trainjob_node("trainjob-node1-sigkill-peer-first.log");
  const auto restarted = [](int last_finished) {
    return json{{"phase", "Running"},
                {"containerStatuses", json::array({{{"name", "node"},
                                                    {"restartCount", 2},
                                                    {"state", running(last_finished + 1)},
                                                    {"lastState", terminated(1, last_finished)}}})}};
  };
  in.pods[0]["status"] = restarted(1);
  json node0 = in.pods[0];
  node0["metadata"]["name"] = "tj-node-0-0-fghij";
  node0["metadata"]["uid"] = "n0";
  node0["metadata"]["annotations"]["batch.kubernetes.io/job-completion-index"] = "0";
  node0["status"] = restarted(0);
  in.pods.push_back(node0);
  in.logs.push_back(
      RunLog{"tj-node-0-0-fghij", false, failure_log("trainjob-node0-peer-lost.log"), std::nullopt});
  in.logs[0].last_output = *util::parse_time(k_t0) + std::chrono::seconds(11);
  in.logs[1].last_output = *util::parse_time(k_t0) + std::chrono::seconds(10);
  in.deleted = {"tj-node-0-1-abcde", "tj-node-0-0-fghij"};
  const Diagnosis d = diagnose(in);
  ASSERT_TRUE(d.root.has_value());
  EXPECT_EQ(d.root->role, "node-1");
  EXPECT_EQ(d.root->restarts, 2);
  EXPECT_EQ(class_id(d.root->klass), "killed");
  ASSERT_EQ(d.following.size(), 1u);
  EXPECT_EQ(d.following[0].role, "node-0");
  EXPECT_TRUE(d.following[0].collateral);
}

// Real logs: node 1's worker of global rank 2 segfaulted (FAIL=segv); node 1's other worker and
// node 0's workers lost their peer. Node 0's torchrun exited a second before node 1's.
TEST(Diagnose, ASegfaultedWorkerIsTheRootNotTheLostPeersInItsNodesLog) {
  DiagnosisInput in = failed_trainjob_node("trainjob-node1-segv.log");
  in.pods[0]["status"]["containerStatuses"][0]["state"] = terminated(1, 1);
  json node0 = in.pods[0];
  node0["metadata"]["name"] = "tj-node-0-0-fghij";
  node0["metadata"]["uid"] = "n0";
  node0["metadata"]["annotations"]["batch.kubernetes.io/job-completion-index"] = "0";
  node0["status"]["containerStatuses"][0]["state"] = terminated(1, 0);
  in.pods.push_back(node0);
  in.logs.push_back(
      RunLog{"tj-node-0-0-fghij", false, failure_log("trainjob-node0-segv-peer.log"), std::nullopt});
  const Diagnosis d = diagnose(in);
  ASSERT_TRUE(d.root.has_value());
  EXPECT_EQ(d.root->role, "node-1");
  EXPECT_EQ(class_id(d.root->klass), "signal");
  EXPECT_EQ(
      d.root->exit_text,
      "exited with code 1: torchrun's worker of global rank 2 (local rank 0) died of segmentation fault "
      "(SIGSEGV): a native crash (exit code -11)");
  ASSERT_EQ(d.following.size(), 1u);
  EXPECT_EQ(class_id(d.following[0].klass), "peer-lost");
}

TEST(Diagnose, AFinishedTrainJobLeavesNoNodeBehindAsItsJobSetDeletesItsJobs) {
  DiagnosisInput in = failed_trainjob_node("trainjob-node1.log");
  in.pods[0]["status"] = {
      {"phase", "Running"},
      {"containerStatuses", json::array({{{"name", "node"}, {"restartCount", 0}, {"state", running()}}})}};
  const Diagnosis d = diagnose(in);
  EXPECT_EQ(d.kind, "trainjob");
  EXPECT_TRUE(d.left_behind.empty());
}

}  // namespace
}  // namespace kpt::plugin
