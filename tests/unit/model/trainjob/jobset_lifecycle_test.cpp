#include "model/trainjob/jobset_children.hpp"
#include "model/trainjob/lifecycle.hpp"
#include "tests/unit/model/trainjob/lifecycle_test_support.hpp"

#include <gtest/gtest.h>

namespace kpt::model::trainjob {
namespace {

using nlohmann::json;
using std::chrono::seconds;

using testing::k_now;
using testing::k_t;

/// A defaulted JobSet with a dataset-initializer job and a 2-node trainer that waits for it.
json jobset(json spec_extra = json::object(), const JobSetStatus& status = {}) {
  json spec = json::parse(R"({"replicatedJobs": [
      {"name": "dataset-initializer", "template": {"spec": {"parallelism": 1, "completions": 1, "template": {"spec": {}}}}},
      {"name": "node", "dependsOn": [{"name": "dataset-initializer", "status": "Complete"}],
       "template": {"spec": {"parallelism": 2, "completions": 2, "template": {"spec": {}}}}}]})");
  for (const auto& [k, v] : spec_extra.items()) spec[k] = v;
  json js =
      default_jobset({{"metadata", {{"name", "tj"}, {"namespace", "ns"}, {"uid", "u"}}}, {"spec", spec}});
  js["status"] = to_json(status);
  return js;
}

JobObservation observed(const std::string& rjob, const std::string& state, std::int64_t attempt = 0,
                        const std::string& time = k_t, const std::string& reason = "BackoffLimitExceeded") {
  JobObservation o;
  o.replicated_job = rjob;
  o.name = "tj-" + rjob + "-0";
  o.restart_attempt = attempt;
  o.parallelism = rjob == "node" ? 2 : 1;
  o.completions = o.parallelism;
  if (state == "running") o.status.active = o.parallelism;
  if (state == "ready") {
    o.status.active = o.parallelism;
    o.status.ready = o.parallelism;
  }
  if (state == "complete") o.status.conditions = {{"Complete", "True", "CompletionsReached", "", time}};
  if (state == "failed")
    o.status.conditions = {{"Failed", "True", reason, "Job has reached the specified backoff limit", time}};
  return o;
}

std::vector<std::string> created(const JobSetDecision& d) {
  std::vector<std::string> out;
  for (const auto& j : d.create_jobs) out.push_back(j.name);
  return out;
}

TEST(DecideJobSet, CreatesTheFirstJobsAndWaitsForDependencies) {
  const JobSetDecision d = decide_jobset(jobset(), {}, k_now);
  EXPECT_EQ(created(d), (std::vector<std::string>{"tj-dataset-initializer-0"}));
  EXPECT_TRUE(d.ensure_service);
  EXPECT_FALSE(d.ensure_pvcs);
  EXPECT_EQ(
      d.status.replicated_jobs_status,
      (std::vector<ReplicatedJobCounts>{{"dataset-initializer", 0, 0, 0, 0, 0}, {"node", 0, 0, 0, 0, 0}}));
  const JobSetDecision running = decide_jobset(jobset(), {observed("dataset-initializer", "running")}, k_now);
  EXPECT_TRUE(running.create_jobs.empty());
  EXPECT_EQ(running.status.replicated_jobs_status[0],
            (ReplicatedJobCounts{"dataset-initializer", 0, 0, 0, 1, 0}));
}

TEST(DecideJobSet, TheTrainerStartsOnceTheInitializerCompleted) {
  const JobSetDecision d = decide_jobset(jobset(), {observed("dataset-initializer", "complete")}, k_now);
  EXPECT_EQ(d.create_jobs, (std::vector<JobToCreate>{{"node", 0, "tj-node-0"}}));
  EXPECT_EQ(d.status.replicated_jobs_status[0].succeeded, 1);
  EXPECT_TRUE(d.status.conditions.empty());
}

TEST(DecideJobSet, ReadyDependenciesCountReadyFailedAndSucceededJobs) {
  json spec = {{"replicatedJobs", jobset()["spec"]["replicatedJobs"]}};
  spec["replicatedJobs"][1]["dependsOn"][0]["status"] = "Ready";
  EXPECT_TRUE(
      decide_jobset(jobset(spec), {observed("dataset-initializer", "running")}, k_now).create_jobs.empty());
  EXPECT_EQ(created(decide_jobset(jobset(spec), {observed("dataset-initializer", "ready")}, k_now)),
            (std::vector<std::string>{"tj-node-0"}));
}

TEST(DecideJobSet, CompletesWhenEveryJobSucceeded) {
  JobSetStatus restarting;
  restarting.conditions = {{"RestartingJobSet", "True", "DefaultFailurePolicy", "m", "2026-11-29T11:00:00Z"}};
  const JobSetDecision d =
      decide_jobset(jobset(json::object(), restarting),
                    {observed("dataset-initializer", "complete"), observed("node", "complete")}, k_now);
  const std::vector<Condition> expected = {
      {"RestartingJobSet", "False", "JobSetCompleted", "jobset completed successfully", k_t},
      {"Completed", "True", "AllJobsCompleted", "jobset completed successfully", k_t}};
  EXPECT_EQ(d.status.conditions, expected);
  EXPECT_EQ(d.status.terminal_state, "Completed");
  // Succeeded jobs count as ready, so RestartingJobSet first turns False with JobsReady.
  EXPECT_EQ(d.events, (std::vector<Event>{{"Normal", "JobsReady", "all jobs are ready"},
                                          {"Normal", "AllJobsCompleted", "jobset completed successfully"},
                                          {"Normal", "JobSetCompleted", "jobset completed successfully"}}));
  EXPECT_TRUE(d.create_jobs.empty());
}

TEST(DecideJobSet, WithoutAFailurePolicyTheFirstFailedJobFailsTheJobSet) {
  JobObservation early = observed("dataset-initializer", "failed", 0, "2026-11-29T11:00:00Z");
  JobObservation late = observed("node", "failed", 0, "2026-11-29T11:30:00Z");
  const JobSetDecision d = decide_jobset(jobset(), {late, early}, k_now);
  EXPECT_EQ(d.status.conditions,
            (std::vector<Condition>{{"Failed", "True", "FailedJobs",
                                     "jobset failed due to one or more job failures (first failed job: "
                                     "tj-dataset-initializer-0)",
                                     k_t}}));
  EXPECT_EQ(d.status.terminal_state, "Failed");
  EXPECT_EQ(d.events.size(), 1u);
  EXPECT_EQ(d.events[0].type, "Warning");
}

TEST(DecideJobSet, TheDefaultRuleRestartsTheWholeJobSet) {
  const json policy = {{"failurePolicy", {{"maxRestarts", 2}}}};
  const JobSetDecision d = decide_jobset(
      jobset(policy), {observed("dataset-initializer", "complete"), observed("node", "failed")}, k_now);
  EXPECT_EQ(d.status.restarts, 1);
  EXPECT_EQ(d.status.restarts_count_towards_max, 1);
  const std::string message = "applying RestartJobSet failure policy action (first failed job: tj-node-0)";
  EXPECT_EQ(d.status.conditions,
            (std::vector<Condition>{{"RestartingJobSet", "True", "DefaultFailurePolicy", message, k_t}}));
  EXPECT_EQ(d.events, (std::vector<Event>{{"Warning", "DefaultFailurePolicy", message},
                                          {"Warning", "RestartJobSetFailurePolicyAction", message}}));
  EXPECT_TRUE(d.delete_jobs.empty());
}

TEST(DecideJobSet, AfterARestartThePreviousAttemptIsDeletedThenRecreated) {
  JobSetStatus status;
  status.restarts = 1;
  status.restarts_count_towards_max = 1;
  status.conditions = {{"RestartingJobSet", "True", "DefaultFailurePolicy", "m", k_t}};
  const json js = jobset({{"failurePolicy", {{"maxRestarts", 2}}}}, status);
  const std::vector<JobObservation> old = {observed("dataset-initializer", "complete"),
                                           observed("node", "failed")};
  const JobSetDecision deleting = decide_jobset(js, old, k_now);
  EXPECT_EQ(deleting.delete_jobs, (std::vector<std::string>{"tj-dataset-initializer-0", "tj-node-0"}));
  EXPECT_TRUE(deleting.create_jobs.empty());  // the names are still taken
  const JobSetDecision recreating = decide_jobset(js, {}, k_now);
  EXPECT_EQ(created(recreating), (std::vector<std::string>{"tj-dataset-initializer-0"}));
  EXPECT_EQ(desired_job(js, "dataset-initializer", 0)
                ->at("metadata")
                .at("labels")
                .at("jobset.sigs.k8s.io/restart-attempt"),
            "1");
  const JobSetDecision ready = decide_jobset(
      js, {observed("dataset-initializer", "complete", 1), observed("node", "ready", 1)}, k_now);
  EXPECT_EQ(ready.status.conditions,
            (std::vector<Condition>{{"RestartingJobSet", "False", "JobsReady", "all jobs are ready", k_t}}));
}

TEST(DecideJobSet, FailsOnceRestartsReachMaxRestarts) {
  JobSetStatus status;
  status.restarts = 2;
  status.restarts_count_towards_max = 2;
  const JobSetDecision d = decide_jobset(jobset({{"failurePolicy", {{"maxRestarts", 2}}}}, status),
                                         {observed("dataset-initializer", "failed", 2)}, k_now);
  ASSERT_FALSE(d.status.conditions.empty());
  EXPECT_EQ(
      d.status.conditions[0],
      (Condition{
          "Failed", "True", "ReachedMaxRestarts",
          "jobset failed due to reaching max number of restarts (first failed job: tj-dataset-initializer-0)",
          k_t}));
  EXPECT_EQ(d.status.restarts, 2);
}

TEST(DecideJobSet, RulesMatchByReasonAndTargetJob) {
  const json policy = json::parse(R"({"failurePolicy": {"maxRestarts": 5, "rules": [
      {"name": "other-job", "action": "FailJobSet", "targetReplicatedJobs": ["dataset-initializer"]},
      {"name": "deadline", "action": "FailJobSet", "onJobFailureReasons": ["DeadlineExceeded"]},
      {"name": "free", "action": "RestartJobSetAndIgnoreMaxRestarts", "onJobFailureReasons": ["PodFailurePolicy"]}]}})");
  const JobSetDecision fail = decide_jobset(
      jobset(policy),
      {observed("dataset-initializer", "complete"), observed("node", "failed", 0, k_t, "DeadlineExceeded")},
      k_now);
  EXPECT_EQ(fail.status.conditions[0],
            (Condition{"Failed", "True", "FailJobSetFailurePolicyAction",
                       "applying FailJobSet failure policy action (first failed job: tj-node-0)", k_t}));
  const JobSetDecision free = decide_jobset(
      jobset(policy),
      {observed("dataset-initializer", "complete"), observed("node", "failed", 0, k_t, "PodFailurePolicy")},
      k_now);
  EXPECT_EQ(free.status.restarts, 1);
  EXPECT_EQ(free.status.restarts_count_towards_max, 0);
  EXPECT_EQ(free.status.conditions[0].reason, "FailurePolicy_free");
  EXPECT_EQ(free.status.conditions[0].message,
            "applying RestartJobSetAndIgnoreMaxRestarts failure policy action (first failed job: tj-node-0)");
  // No rule matches: the default RestartJobSet.
  const JobSetDecision fallback = decide_jobset(
      jobset(policy), {observed("dataset-initializer", "complete"), observed("node", "failed")}, k_now);
  EXPECT_EQ(fallback.status.conditions[0].reason, "DefaultFailurePolicy");
  EXPECT_EQ(fallback.status.restarts_count_towards_max, 1);
}

TEST(DecideJobSet, RestartJobNeedsAGateAndMessagePatternsAreNotEvaluated) {
  const json gated = json::parse(R"({"failurePolicy": {"rules": [{"name": "r", "action": "RestartJob"}]}})");
  const JobSetDecision d = decide_jobset(jobset(gated), {observed("dataset-initializer", "failed")}, k_now);
  EXPECT_EQ(d.error,
            "RestartJob failure policy action cannot be used when the feature gate RestartJob is disabled");
  EXPECT_TRUE(d.status.conditions.empty());
  const json patterns = json::parse(
      R"({"failurePolicy": {"maxRestarts": 1, "rules": [{"name": "p", "action": "FailJobSet", "onJobFailureMessagePatterns": ["limit"]}]}})");
  const JobSetDecision p =
      decide_jobset(jobset(patterns), {observed("dataset-initializer", "failed")}, k_now);
  EXPECT_EQ(p.not_modelled, (std::vector<std::string>{
                                "failure policy rule 'p': onJobFailureMessagePatterns (Go regular "
                                "expressions) are not evaluated; the rule is treated as not matching"}));
  EXPECT_EQ(p.status.restarts, 1);
}

TEST(DecideJobSet, SuspendSuspendsActiveJobsAndResumeResumesThem) {
  JobObservation init = observed("dataset-initializer", "running");
  const JobSetDecision s = decide_jobset(jobset({{"suspend", true}}), {init}, k_now);
  EXPECT_EQ(s.suspend_jobs, (std::vector<std::string>{"tj-dataset-initializer-0"}));
  EXPECT_EQ(s.status.conditions,
            (std::vector<Condition>{{"Suspended", "True", "SuspendedJobs", "jobset is suspended", k_t}}));
  init.suspended = true;
  const JobSetDecision r = decide_jobset(jobset(json::object(), s.status), {init}, k_now + seconds(1));
  EXPECT_EQ(r.resume_jobs, (std::vector<std::string>{"tj-dataset-initializer-0"}));
  EXPECT_EQ(r.status.conditions, (std::vector<Condition>{{"Suspended", "False", "ResumeJobs",
                                                          "jobset is resumed", "2026-11-29T12:00:01Z"}}));
  // Never suspended: no Suspended condition appears.
  EXPECT_TRUE(decide_jobset(jobset(), {}, k_now).status.conditions.empty());
}

TEST(DecideJobSet, AFinishedJobSetDeletesActiveJobsAndHonoursItsTtl) {
  JobSetStatus done;
  done.conditions = {
      {"Completed", "True", "AllJobsCompleted", "jobset completed successfully", "2026-11-29T11:59:00Z"}};
  const json js = jobset({{"ttlSecondsAfterFinished", 120}}, done);
  const JobSetDecision early = decide_jobset(js, {observed("node", "running")}, k_now);
  EXPECT_EQ(early.delete_jobs, (std::vector<std::string>{"tj-node-0"}));
  EXPECT_EQ(early.requeue_after_seconds, 60);
  EXPECT_FALSE(early.delete_jobset);
  EXPECT_TRUE(decide_jobset(js, {}, k_now + seconds(60)).delete_jobset);
}

TEST(DecideJobSet, SuccessPolicyTargetsAndOperatorAny) {
  const json launcher_only = {{"successPolicy", {{"operator", "All"}, {"targetReplicatedJobs", {"node"}}}}};
  EXPECT_EQ(decide_jobset(jobset(launcher_only), {observed("node", "complete")}, k_now).status.terminal_state,
            "Completed");
  const json any = {{"successPolicy", {{"operator", "Any"}}}};
  EXPECT_EQ(
      decide_jobset(jobset(any), {observed("dataset-initializer", "complete")}, k_now).status.terminal_state,
      "Completed");
  EXPECT_EQ(
      decide_jobset(jobset(), {observed("dataset-initializer", "complete")}, k_now).status.terminal_state,
      "");
}

TEST(DecideJobSet, BlockingRecreateWaitsForThePreviousJobsAndExternalManagersAreLeftAlone) {
  JobSetStatus status;
  status.restarts = 1;
  const json blocking = {{"failurePolicy", {{"maxRestarts", 3}, {"restartStrategy", "BlockingRecreate"}}}};
  const JobSetDecision d = decide_jobset(jobset(blocking, status), {observed("node", "failed", 0)}, k_now);
  EXPECT_EQ(d.delete_jobs, (std::vector<std::string>{"tj-node-0"}));
  EXPECT_TRUE(d.create_jobs.empty());
  const JobSetDecision external =
      decide_jobset(jobset({{"managedBy", "kueue.x-k8s.io/multikueue"}}), {}, k_now);
  EXPECT_TRUE(external.create_jobs.empty());
  EXPECT_FALSE(external.ensure_service);
  EXPECT_TRUE(decide_jobset(jobset({{"startupPolicy", {{"startupPolicyOrder", "InOrder"}}}}), {}, k_now)
                  .not_modelled.size() == 1);
}

}  // namespace
}  // namespace kpt::model::trainjob
