#include "plugin/follow/diagnosis_output.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace kpt::plugin {
namespace {

using nlohmann::json;

StepContext step() {
  StepContext s;
  s.job_word = "dg";
  s.flags = " --local -n ml";
  s.kubectl_flags = " --kubeconfig /home/u/.kube/kubectl-pytorch-local.yaml -n ml";
  return s;
}

RankFailure failure(const std::string& role, int rank, FailureClass klass, const std::string& exit_text) {
  RankFailure f;
  f.pod = "dg-" + role;
  f.role = role;
  f.rank = rank;
  f.exit_code = 1;
  f.reason = "Error";
  f.exit_text = exit_text;
  f.finished_at = "2026-12-06T03:14:58Z";
  f.klass = klass;
  return f;
}

Diagnosis failed_job() {
  Diagnosis d;
  d.kind = "pytorchjob";
  d.name = "dg";
  d.ns = "ml";
  d.state = "Failed";
  d.message = "PyTorchJob dg is failed because 1 Worker replica(s) failed.";
  d.verdict = JobVerdict::failed;
  d.root = failure("worker-1", 1, FailureClass::exception, "exited with code 1");
  d.root->error = PythonError{"RuntimeError: loss is NaN at step 3", "RuntimeError", "train.py:36"};
  RankFailure peer = failure("worker-0", 0, FailureClass::peer_lost, "exited with code 1");
  peer.collateral = true;
  peer.after_root = 1.0;
  peer.last_line =
      "RuntimeError: [./gloo/transport/tcp/pair.cc:598] Connection closed by peer [127.0.0.1]:16796";
  d.following.push_back(peer);
  d.klass = FailureClass::exception;
  d.next_step = "fix the error at train.py:36";
  return d;
}

TEST(DiagnosisLines, AFailedJobOnOneScreen) {
  Diagnosis d = failed_job();
  d.left_behind = {"dg-worker-2"};
  const std::vector<std::string> want = {
      "pytorchjob dg failed: worker-1 (rank 1) failed first",
      "  exit:       exited with code 1, at 2026-12-06T03:14:58Z",
      "  exception:  RuntimeError: loss is NaN at step 3 (train.py:36)",
      "  class:      Python exception",
      "  then:       worker-0 (rank 0) 1s later: lost a peer (connection closed or reset)",
      "  next step:  fix the error at train.py:36",
      "  its log:    kubectl pytorch logs dg --rank 1 --local -n ml",
      "  left behind: dg-worker-2 still running: kubectl delete pytorchjob dg --kubeconfig "
      "/home/u/.kube/kubectl-pytorch-local.yaml -n ml removes the job and its pods",
  };
  EXPECT_EQ(diagnosis_lines(d, step()), want);
}

TEST(DiagnosisLines, ManyFollowingRanksAreCounted) {
  Diagnosis d = failed_job();
  for (int i = 2; i < 6; ++i) d.following.push_back(d.following.front());
  const auto lines = diagnosis_lines(d, step());
  EXPECT_LE(lines.size(), 10u);
  EXPECT_EQ(lines[7], "  then:       2 more");
}

TEST(DiagnosisLines, AStalledJobNamesTheSilentRankAndTheOthersLastLines) {
  Diagnosis d;
  d.kind = "pytorchjob";
  d.name = "dg";
  d.verdict = JobVerdict::stalled;
  d.ranks = {{"dg-worker-0", "worker-0", 0, 2, "rank 0 step 40", false},
             {"dg-worker-1", "worker-1", 1, 75, "rank 1 step 3", true}};
  d.next_step = "see where it waits (py-spy dump --pid PID) and whether a peer it waits for has failed";
  const std::vector<std::string> want = {
      "pytorchjob dg is running, but worker-1 (rank 1) has printed nothing for 75s",
      "  silent:     worker-1 (rank 1) 75s ago: last line 'rank 1 step 3'",
      "  active:     worker-0 (rank 0) 2s ago: last line 'rank 0 step 40'",
      "  next step:  see where it waits (py-spy dump --pid PID) and whether a peer it waits for has failed",
  };
  EXPECT_EQ(diagnosis_lines(d, step()), want);
}

TEST(DiagnosisLines, APendingJobSaysWhyAndTheClass) {
  Diagnosis d;
  d.kind = "trainjob";
  d.name = "tj";
  d.verdict = JobVerdict::pending;
  d.klass = FailureClass::unschedulable;
  d.problem = "tj-node-0-0-x is not scheduled: 0/3 nodes are available: 3 Insufficient nvidia.com/gpu.";
  d.next_step = "no node fits the pod";
  const std::vector<std::string> want = {
      "trainjob tj is pending: tj-node-0-0-x is not scheduled: 0/3 nodes are available: 3 Insufficient "
      "nvidia.com/gpu.",
      "  class:      pod cannot be scheduled",
      "  next step:  no node fits the pod",
  };
  EXPECT_EQ(diagnosis_lines(d, step()), want);
}

TEST(DiagnosisJson, HasTheRootCauseTheFollowingRanksAndTheClassIds) {
  const json j = diagnosis_json(failed_job());
  EXPECT_EQ(j["verdict"], "failed");
  EXPECT_EQ(j["class"], "exception");
  EXPECT_EQ(j["rootCause"]["pod"], "dg-worker-1");
  EXPECT_EQ(j["rootCause"]["rank"], 1);
  EXPECT_EQ(j["rootCause"]["exception"]["line"], "RuntimeError: loss is NaN at step 3");
  EXPECT_EQ(j["rootCause"]["exception"]["where"], "train.py:36");
  EXPECT_EQ(j["rootCause"]["signal"], nullptr);
  EXPECT_EQ(j["following"][0]["class"], "peer-lost");
  EXPECT_EQ(j["following"][0]["collateral"], true);
  EXPECT_EQ(j["following"][0]["secondsAfterRoot"], 1.0);
  EXPECT_EQ(j["nextStep"], "fix the error at train.py:36");
  EXPECT_EQ(j["leftBehind"], json::array());
}

TEST(FailureSummary, NamesTheFirstRankToFailAndHowMany) {
  EXPECT_EQ(
      failure_summary(failed_job(), 12.34),
      "pytorchjob dg failed after 12.3s: dg-worker-1 (rank 1) exited with code 1, the first of 2 failed "
      "ranks; PyTorchJob dg is failed because 1 Worker replica(s) failed.");
  Diagnosis alone = failed_job();
  alone.following.clear();
  alone.message.clear();
  EXPECT_EQ(failure_summary(alone, 3.0),
            "pytorchjob dg failed after 3.0s: dg-worker-1 (rank 1) exited with code 1");
}

}  // namespace
}  // namespace kpt::plugin
