#include "model/pytorchjob/lifecycle.hpp"

#include "model/pytorchjob/lifecycle_json.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace kpt::model::pytorchjob {
namespace {

using std::chrono::seconds;

const util::Time k_now = *util::parse_time("2026-11-29T12:00:00Z");

JobPolicy job(std::map<std::string, ReplicaPolicy> replicas) {
  JobPolicy p;
  p.name = "mnist";
  p.namespace_ = "ns";
  p.replicas = std::move(replicas);
  return p;
}
JobPolicy master_worker(RestartPolicy rp = RestartPolicy::on_failure) {
  return job({{"Master", {1, rp}}, {"Worker", {2, rp}}});
}
JobPolicy workers(int n, RestartPolicy rp = RestartPolicy::on_failure) { return job({{"Worker", {n, rp}}}); }

PodObservation pod(const std::string& rtype, int index, const std::string& phase,
                   std::optional<int> exit = {}) {
  std::string lower = rtype == "Master" ? "master" : "worker";
  PodObservation o;
  o.name = "mnist-" + lower + "-" + std::to_string(index);
  o.uid = "uid-" + o.name;
  o.replica_type = rtype;
  o.index = index;
  o.phase = phase;
  o.exit_code = exit;
  return o;
}

/// A status the job has after its first pass at `k_now - 60s`.
JobStatus started() { return decide_lifecycle(master_worker(), {}, {}, {}, k_now - seconds{60}).status; }

TEST(Lifecycle, NewJobGetsCreatedConditionStartTimeAndPods) {
  const auto d = decide_lifecycle(master_worker(), {}, {}, {}, k_now);
  ASSERT_EQ(d.status.conditions.size(), 1u);
  EXPECT_EQ(d.status.conditions[0].type, "Created");
  EXPECT_EQ(d.status.conditions[0].reason, "PyTorchJobCreated");
  EXPECT_EQ(d.status.conditions[0].message, "PyTorchJob mnist is created.");
  EXPECT_EQ(d.status.start_time, "2026-11-29T12:00:00Z");
  EXPECT_TRUE(d.create_missing);
  EXPECT_EQ(d.status.replica_statuses.at("Worker").selector,
            "training.kubeflow.org/job-name=mnist,training.kubeflow.org/operator-name=pytorchjob-controller,"
            "training.kubeflow.org/replica-type=worker");
  EXPECT_EQ(d.events,
            (std::vector<EventRecord>{{"Normal", "PyTorchJobCreated", "PyTorchJob mnist is created."}}));
}

TEST(Lifecycle, AnUnchangedWorldGivesAnUnchangedStatusAndNoEvents) {
  const std::vector<PodObservation> pods{pod("Master", 0, "Running"), pod("Worker", 0, "Running"),
                                         pod("Worker", 1, "Pending")};
  const auto first = decide_lifecycle(master_worker(), started(), pods, {}, k_now);
  const auto second = decide_lifecycle(master_worker(), first.status, pods, {}, k_now + seconds{5});
  EXPECT_EQ(second.status, first.status);
  EXPECT_TRUE(second.events.empty());
  EXPECT_EQ(first.status.conditions.back().type, "Running");
  EXPECT_EQ(first.status.replica_statuses.at("Worker").active, 1);
}

TEST(Lifecycle, SuccessPolicyDependsOnMasterAndElasticity) {
  struct Case {
    const char* name;
    JobPolicy job;
    std::vector<PodObservation> pods;
    bool succeeded;
  };
  auto elastic = workers(2);
  elastic.elastic = true;
  const std::vector<Case> cases{
      {"master succeeded, workers still running",
       master_worker(),
       {pod("Master", 0, "Succeeded"), pod("Worker", 0, "Running"), pod("Worker", 1, "Running")},
       true},
      {"workers succeeded, master running",
       master_worker(),
       {pod("Master", 0, "Running"), pod("Worker", 0, "Succeeded"), pod("Worker", 1, "Succeeded")},
       false},
      {"worker-only: all workers succeeded",
       workers(2),
       {pod("Worker", 0, "Succeeded"), pod("Worker", 1, "Succeeded")},
       true},
      {"worker-only: one of two succeeded",
       workers(2),
       {pod("Worker", 0, "Succeeded"), pod("Worker", 1, "Running")},
       false},
      {"elastic: any worker succeeded",
       elastic,
       {pod("Worker", 0, "Running"), pod("Worker", 1, "Succeeded")},
       true},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    const auto d = decide_lifecycle(c.job, started(), c.pods, {}, k_now);
    EXPECT_EQ(has_true_condition(d.status, "Succeeded"), c.succeeded);
    EXPECT_EQ(d.create_missing, !c.succeeded);
    if (c.succeeded) {
      EXPECT_EQ(d.status.completion_time, "2026-11-29T12:00:00Z");
      EXPECT_EQ(d.status.conditions.back().message, "PyTorchJob mnist is successfully completed.");
      EXPECT_EQ(d.status.replica_statuses.at("Worker").active, 0);  // active folded into succeeded
    }
  }
}

TEST(Lifecycle, RestartPolicyDecidesBetweenRecreatingAndFailing) {
  struct Case {
    const char* name;
    RestartPolicy policy;
    std::optional<int> exit_code;
    bool restarts;
  };
  const std::vector<Case> cases{
      {"Always", RestartPolicy::always, 1, true},
      {"OnFailure", RestartPolicy::on_failure, 1, true},
      {"Never", RestartPolicy::never, 137, false},
      {"ExitCode 137 is retryable", RestartPolicy::exit_code, 137, true},
      {"ExitCode 128 is retryable", RestartPolicy::exit_code, 128, true},
      {"ExitCode 1 is permanent", RestartPolicy::exit_code, 1, false},
      {"ExitCode without exit code is permanent", RestartPolicy::exit_code, std::nullopt, false},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    const std::vector<PodObservation> pods{
        pod("Master", 0, "Running"), pod("Worker", 0, "Failed", c.exit_code), pod("Worker", 1, "Running")};
    const auto d = decide_lifecycle(master_worker(c.policy), started(), pods, {}, k_now);
    if (c.restarts) {
      EXPECT_EQ(d.delete_pods, std::vector<std::string>{"mnist-worker-0"});
      EXPECT_EQ(d.recreations, 1);
      EXPECT_EQ(d.status.conditions.back().type, "Restarting");
      EXPECT_EQ(d.status.conditions.back().message,
                "PyTorchJob mnist is restarting because 1 Worker replica(s) failed.");
      EXPECT_TRUE(d.create_missing);
    } else {
      EXPECT_TRUE(d.delete_pods.empty());
      EXPECT_EQ(d.status.conditions.back().type, "Failed");
      EXPECT_EQ(d.status.conditions.back().message,
                "PyTorchJob mnist is failed because 1 Worker replica(s) failed.");
      EXPECT_FALSE(d.create_missing);
    }
  }
}

TEST(Lifecycle, BackoffLimitCountsRecreationsAndInPlaceRestarts) {
  struct Case {
    const char* name;
    int limit;
    int recreations;
    int restart_count;
    bool failed_pod;
    bool job_fails;
  };
  const std::vector<Case> cases{
      {"first failure within limit", 2, 0, 0, true, false},
      {"two re-creations used up a limit of two", 2, 2, 0, true, true},
      {"one re-creation and one in-place restart leave one", 3, 1, 1, true, false},
      {"in-place restarts past the limit fail without a new failure", 2, 0, 3, false, true},
      {"in-place restarts reaching the limit fail, as the operator's PastBackoffLimit (>=)", 2, 0, 2, false,
       true},
      {"in-place restarts below the limit go on", 3, 0, 2, false, false},
      {"limit zero fails the first failure", 0, 0, 0, true, true},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    auto j = master_worker();
    j.backoff_limit = c.limit;
    j.recreations = c.recreations;
    auto w1 = pod("Worker", 1, "Running");
    w1.restart_count = c.restart_count;
    const std::vector<PodObservation> pods{pod("Master", 0, "Running"),
                                           pod("Worker", 0, c.failed_pod ? "Failed" : "Running", 1), w1};
    const auto d = decide_lifecycle(j, started(), pods, {}, k_now);
    EXPECT_EQ(has_true_condition(d.status, "Failed"), c.job_fails);
    if (c.job_fails) {
      EXPECT_EQ(d.status.conditions.back().message,
                "PyTorchJob mnist has failed because it has reached the specified backoff limit");
      EXPECT_TRUE(d.delete_pods.empty());  // cleanPodPolicy None is respected (#3419)
    }
  }
}

// A controller killed after recording a re-creation and before deleting the pod leaves the count
// written and the failed pod in place: the next pass deletes it without counting it again, so a crash
// cannot spend the backoff limit (the chaos test's "retried" job once ended Failed this way).
TEST(Lifecycle, AFailedPodCountedByAnUnfinishedPassIsNotCountedAgain) {
  auto j = workers(2, RestartPolicy::exit_code);
  j.backoff_limit = 2;
  const std::vector<PodObservation> pods{pod("Worker", 0, "Failed", 137), pod("Worker", 1, "Failed", 137)};
  const auto first = decide_lifecycle(j, started(), pods, {}, k_now);
  EXPECT_EQ(first.recreations, 2);
  EXPECT_EQ(first.counted_pods, (std::set<std::string>{"uid-mnist-worker-0", "uid-mnist-worker-1"}));
  EXPECT_EQ(first.delete_pods, (std::vector<std::string>{"mnist-worker-0", "mnist-worker-1"}));

  j.recreations = first.recreations;  // written; the deletes never happened
  j.counted_pods = first.counted_pods;
  const auto replay = decide_lifecycle(j, first.status, pods, {}, k_now + seconds{1});
  EXPECT_FALSE(has_true_condition(replay.status, "Failed"));
  EXPECT_EQ(replay.recreations, 2);
  EXPECT_EQ(replay.delete_pods, first.delete_pods);
  EXPECT_TRUE(replay.events.empty());  // the Restarting event is not repeated

  // Once the counted pods are gone, their new incarnations failing is new: the limit of two is spent.
  auto w0 = pod("Worker", 0, "Failed", 137);
  w0.uid = "uid-second-incarnation";
  const auto later =
      decide_lifecycle(j, replay.status, {w0, pod("Worker", 1, "Running")}, {}, k_now + seconds{9});
  EXPECT_TRUE(has_true_condition(later.status, "Failed"));
  EXPECT_EQ(later.counted_pods, std::set<std::string>{"uid-mnist-worker-1"});  // gone ones are forgotten
}

TEST(Lifecycle, ActiveDeadlineFailsOnTimeAndOtherwiseAsksToBeCalledAtTheDeadline) {
  auto j = master_worker();
  j.active_deadline_seconds = 100;
  const std::vector<PodObservation> pods{pod("Master", 0, "Running")};
  const auto early = decide_lifecycle(j, started(), pods, {}, k_now);
  EXPECT_FALSE(is_finished(early.status));
  EXPECT_EQ(early.requeue_after_seconds, 40);
  const auto late = decide_lifecycle(j, started(), pods, {}, k_now + seconds{40});
  EXPECT_EQ(late.status.conditions.back().type, "Failed");
  EXPECT_EQ(late.status.conditions.back().message,
            "PyTorchJob mnist was active longer than specified deadline");
  EXPECT_EQ(late.status.completion_time, "2026-11-29T12:00:40Z");
}

TEST(Lifecycle, CleanPodPolicyAppliesOnEveryEnd) {
  struct Case {
    const char* name;
    CleanPodPolicy policy;
    std::vector<std::string> pods;
    std::vector<std::string> services;
  };
  const std::vector<Case> cases{
      {"None", CleanPodPolicy::none, {}, {}},
      {"Running",
       CleanPodPolicy::running,
       {"mnist-worker-0", "mnist-worker-1"},
       {"mnist-worker-0", "mnist-worker-1"}},
      {"All",
       CleanPodPolicy::all,
       {"mnist-master-0", "mnist-worker-0", "mnist-worker-1"},
       {"mnist-master-0", "mnist-worker-0", "mnist-worker-1"}},
  };
  const std::vector<PodObservation> pods{pod("Master", 0, "Succeeded"), pod("Worker", 0, "Running"),
                                         pod("Worker", 1, "Pending")};
  const std::vector<std::string> services{"mnist-master-0", "mnist-worker-0", "mnist-worker-1"};
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    auto j = master_worker();
    j.clean_pod_policy = c.policy;
    const auto d = decide_lifecycle(j, started(), pods, services, k_now);
    EXPECT_TRUE(has_true_condition(d.status, "Succeeded"));
    EXPECT_EQ(d.delete_pods, c.pods);
    EXPECT_EQ(d.delete_services, c.services);
    // A later pass over a finished job applies the policy again (level-triggered).
    const auto again = decide_lifecycle(j, d.status, pods, services, k_now + seconds{1});
    EXPECT_EQ(again.delete_pods, c.pods);
    EXPECT_EQ(again.status, d.status);
  }
}

TEST(Lifecycle, TtlAfterFinishedDeletesTheJobWhenItExpires) {
  auto j = master_worker();
  j.ttl_seconds_after_finished = 30;
  const auto done = decide_lifecycle(j, started(), {pod("Master", 0, "Succeeded")}, {}, k_now);
  EXPECT_EQ(done.requeue_after_seconds, 30);
  EXPECT_FALSE(decide_lifecycle(j, done.status, {}, {}, k_now + seconds{29}).delete_job);
  EXPECT_EQ(decide_lifecycle(j, done.status, {}, {}, k_now + seconds{29}).requeue_after_seconds, 1);
  EXPECT_TRUE(decide_lifecycle(j, done.status, {}, {}, k_now + seconds{30}).delete_job);
}

TEST(Lifecycle, SuspendDeletesEverythingAndResumeRestartsTheClock) {
  auto j = master_worker();
  const std::vector<PodObservation> pods{pod("Master", 0, "Running"), pod("Worker", 0, "Running")};
  const auto running = decide_lifecycle(j, started(), pods, {"mnist-master-0", "mnist-worker-0"}, k_now);
  j.suspend = true;
  const auto suspended =
      decide_lifecycle(j, running.status, pods, {"mnist-master-0", "mnist-worker-0"}, k_now);
  EXPECT_EQ(suspended.delete_pods, (std::vector<std::string>{"mnist-master-0", "mnist-worker-0"}));
  EXPECT_EQ(suspended.delete_services, (std::vector<std::string>{"mnist-master-0", "mnist-worker-0"}));
  EXPECT_FALSE(suspended.create_missing);
  EXPECT_TRUE(has_true_condition(suspended.status, "Suspended"));
  EXPECT_EQ(find_condition(suspended.status, "Running")->status, "False");
  EXPECT_EQ(find_condition(suspended.status, "Running")->reason, "PyTorchJobSuspended");
  EXPECT_EQ(suspended.status.replica_statuses.at("Master").active, 0);

  j.suspend = false;
  const auto resumed = decide_lifecycle(j, suspended.status, {}, {}, k_now + seconds{600});
  EXPECT_EQ(find_condition(resumed.status, "Suspended")->status, "False");
  EXPECT_EQ(find_condition(resumed.status, "Suspended")->reason, "PyTorchJobResumed");
  EXPECT_EQ(resumed.status.start_time, "2026-11-29T12:10:00Z");
  EXPECT_TRUE(resumed.create_missing);
}

TEST(Lifecycle, OnceFailedNothingElseChanges) {
  auto j = master_worker(RestartPolicy::never);
  const auto failed = decide_lifecycle(j, started(), {pod("Master", 0, "Failed", 1)}, {}, k_now);
  ASSERT_TRUE(has_true_condition(failed.status, "Failed"));
  auto status = failed.status;
  EXPECT_FALSE(set_condition(status, "Running", "True", k_reason_running, "x", k_now));
  const auto later =
      decide_lifecycle(j, failed.status, {pod("Master", 0, "Succeeded")}, {}, k_now + seconds{9});
  EXPECT_EQ(later.status, failed.status);
}

TEST(LifecycleJson, ReadsPolicyStatusAndPods) {
  const auto job_json = nlohmann::json::parse(R"({
    "metadata": {"name": "mnist", "namespace": "ns", "annotations": {"kubectl-pytorch.dev/recreations": "3",
                 "kubectl-pytorch.dev/recreated-pod-uids": "u1,,u2"}},
    "spec": {"elasticPolicy": {}, "runPolicy": {"backoffLimit": 4, "cleanPodPolicy": "All", "suspend": true,
             "activeDeadlineSeconds": 60, "ttlSecondsAfterFinished": 5},
             "pytorchReplicaSpecs": {"Worker": {"replicas": 3, "restartPolicy": "ExitCode"}}}})");
  const auto p = job_policy_from_json(job_json);
  EXPECT_EQ(p.name, "mnist");
  EXPECT_EQ(p.recreations, 3);
  EXPECT_EQ(p.counted_pods, (std::set<std::string>{"u1", "u2"}));
  EXPECT_EQ(join_counted_pods(p.counted_pods), "u1,u2");
  EXPECT_EQ(p.backoff_limit, 4);
  EXPECT_EQ(p.active_deadline_seconds, 60);
  EXPECT_EQ(p.ttl_seconds_after_finished, 5);
  EXPECT_EQ(p.clean_pod_policy, CleanPodPolicy::all);
  EXPECT_TRUE(p.suspend);
  EXPECT_TRUE(p.elastic);
  EXPECT_EQ(p.replicas.at("Worker").replicas, 3);
  EXPECT_EQ(p.replicas.at("Worker").restart_policy, RestartPolicy::exit_code);

  const auto pod_json = nlohmann::json::parse(R"({
    "metadata": {"name": "mnist-worker-2", "uid": "pod-uid", "deletionTimestamp": "2026-11-29T12:00:00Z",
                 "labels": {"training.kubeflow.org/replica-type": "worker", "training.kubeflow.org/replica-index": "2"}},
    "status": {"phase": "Failed", "initContainerStatuses": [{"name": "init", "restartCount": 1}],
               "containerStatuses": [{"name": "sidecar", "restartCount": 2, "state": {"terminated": {"exitCode": 9}}},
                                     {"name": "pytorch", "restartCount": 1, "state": {"terminated": {"exitCode": 137}}}]}})");
  const auto o = pod_observation_from_json(pod_json);
  EXPECT_EQ(o.uid, "pod-uid");
  EXPECT_EQ(o.replica_type, "Worker");
  EXPECT_EQ(o.index, 2);
  EXPECT_EQ(o.exit_code, 137);
  EXPECT_EQ(o.restart_count, 4);
  EXPECT_TRUE(o.deleting);

  const auto status = decide_lifecycle(master_worker(), {}, {pod("Master", 0, "Running")}, {}, k_now).status;
  EXPECT_EQ(job_status_from_json(job_status_to_json(status)), status);
}

}  // namespace
}  // namespace kpt::model::pytorchjob
