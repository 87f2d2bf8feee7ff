#include "model/trainjob/lifecycle.hpp"
#include "tests/unit/model/trainjob/lifecycle_test_support.hpp"

#include <gtest/gtest.h>

namespace kpt::model::trainjob {
namespace {

using nlohmann::json;
using std::chrono::seconds;

using testing::k_now;
const std::string& k_now_text = testing::k_t;

json job(std::int64_t completions = 2, const std::string& restart_policy = "OnFailure",
         json extra = json::object()) {
  json spec = {{"completions", completions},
               {"parallelism", completions},
               {"completionMode", "Indexed"},
               {"backoffLimit", 6},
               {"template", {{"spec", {{"restartPolicy", restart_policy}}}}}};
  for (const auto& [k, v] : extra.items()) spec[k] = v;
  return {{"metadata", {{"name", "tj-node-0"}}}, {"spec", spec}};
}

json with_status(json j, const JobStatus& status) {
  j["status"] = to_json(status);
  return j;
}

PodObservation pod(std::int64_t index, const std::string& phase, bool ready = false,
                   std::int64_t restarts = 0) {
  return {"tj-node-0-" + std::to_string(index) + "-x", index, phase, ready, restarts, false};
}

TEST(DecideJob, ANewJobGetsAPodPerIndexAndAStartTime) {
  const JobDecision d = decide_job(job(), {}, k_now);
  EXPECT_EQ(d.create_indexes, (std::vector<std::int64_t>{0, 1}));
  EXPECT_EQ(d.status.start_time, k_now_text);
  EXPECT_EQ(d.status.active, 2);  // the pods this sync creates count, as manageJob counts them
  EXPECT_TRUE(d.status.conditions.empty());
}

TEST(DecideJob, RunningPodsAreCountedAndNotRecreated) {
  const JobDecision d = decide_job(job(), {pod(0, "Running", true), pod(1, "Pending")}, k_now);
  EXPECT_TRUE(d.create_indexes.empty());
  EXPECT_EQ(d.status.active, 2);
  EXPECT_EQ(d.status.ready, 1);
}

TEST(DecideJob, SucceededIndexesAreCompressed) {
  const JobDecision d = decide_job(job(6),
                                   {pod(0, "Succeeded"), pod(1, "Succeeded"), pod(2, "Succeeded"),
                                    pod(4, "Succeeded"), pod(3, "Running"), pod(5, "Running")},
                                   k_now);
  EXPECT_EQ(d.status.succeeded, 4);
  EXPECT_EQ(d.status.completed_indexes, "0-2,4");
  EXPECT_TRUE(d.create_indexes.empty());
}

TEST(DecideJob, CompletesWhenEveryIndexSucceeded) {
  const JobDecision d = decide_job(job(), {pod(0, "Succeeded"), pod(1, "Succeeded")}, k_now);
  const std::vector<Condition> expected = {
      {"SuccessCriteriaMet", "True", "CompletionsReached", "Reached expected number of succeeded pods",
       k_now_text},
      {"Complete", "True", "CompletionsReached", "Reached expected number of succeeded pods", k_now_text}};
  EXPECT_EQ(d.status.conditions, expected);
  EXPECT_EQ(d.status.completion_time, k_now_text);
  EXPECT_EQ(d.events, (std::vector<Event>{{"Normal", "Completed", "Job completed"}}));
}

TEST(DecideJob, AFailedPodIsReplacedUntilTheBackoffLimit) {
  const JobDecision d = decide_job(job(2, "Never"), {pod(0, "Failed"), pod(1, "Running")}, k_now);
  EXPECT_EQ(d.status.failed, 1);
  EXPECT_EQ(d.create_indexes, (std::vector<std::int64_t>{0}));
  std::vector<PodObservation> pods(7, pod(0, "Failed"));
  pods.push_back(pod(1, "Running"));
  const JobDecision failed = decide_job(job(2, "Never"), pods, k_now);
  ASSERT_EQ(failed.status.conditions.size(), 2u);
  EXPECT_EQ(failed.status.conditions[0],
            (Condition{"FailureTarget", "True", "BackoffLimitExceeded",
                       "Job has reached the specified backoff limit", k_now_text}));
  EXPECT_EQ(failed.status.conditions[1].type, "Failed");
  EXPECT_EQ(failed.delete_pods, (std::vector<std::string>{"tj-node-0-1-x"}));
  EXPECT_TRUE(failed.create_indexes.empty());
}

TEST(DecideJob, WithOnFailureContainerRestartsCountTowardsTheBackoffLimit) {
  const JobDecision five = decide_job(job(), {pod(0, "Running", true, 3), pod(1, "Running", true, 2)}, k_now);
  EXPECT_TRUE(five.status.conditions.empty());
  const JobDecision six = decide_job(job(), {pod(0, "Running", true, 3), pod(1, "Pending", false, 3)}, k_now);
  ASSERT_FALSE(six.status.conditions.empty());
  EXPECT_EQ(six.status.conditions.back().reason, "BackoffLimitExceeded");
  const JobDecision zero_limit =
      decide_job(job(2, "OnFailure", {{"backoffLimit", 0}}), {pod(0, "Running", true, 1)}, k_now);
  ASSERT_FALSE(zero_limit.status.conditions.empty());
  EXPECT_EQ(zero_limit.status.conditions.back().type, "Failed");
  // Restarts of a Never pod do not count.
  EXPECT_TRUE(decide_job(job(2, "Never"), {pod(0, "Running", true, 9)}, k_now).status.conditions.empty());
}

TEST(DecideJob, FailsPastItsActiveDeadline) {
  JobStatus started;
  started.start_time = "2026-11-29T11:58:00Z";
  const json j = with_status(job(2, "OnFailure", {{"activeDeadlineSeconds", 120}}), started);
  EXPECT_TRUE(
      decide_job(j, {pod(0, "Running"), pod(1, "Running")}, k_now - seconds(1)).status.conditions.empty());
  const JobDecision d = decide_job(j, {pod(0, "Running"), pod(1, "Running")}, k_now);
  ASSERT_EQ(d.status.conditions.size(), 2u);
  EXPECT_EQ(d.status.conditions[1], (Condition{"Failed", "True", "DeadlineExceeded",
                                               "Job was active longer than specified deadline", k_now_text}));
  EXPECT_EQ(d.delete_pods.size(), 2u);
}

TEST(DecideJob, SuspendDeletesActivePodsAndResumeRecreatesThem) {
  const JobDecision s =
      decide_job(job(2, "OnFailure", {{"suspend", true}}), {pod(0, "Running"), pod(1, "Succeeded")}, k_now);
  EXPECT_EQ(s.delete_pods, (std::vector<std::string>{"tj-node-0-0-x"}));
  EXPECT_TRUE(s.create_indexes.empty());
  EXPECT_EQ(s.status.conditions,
            (std::vector<Condition>{{"Suspended", "True", "JobSuspended", "Job suspended", k_now_text}}));
  EXPECT_FALSE(s.status.start_time);
  const JobDecision r = decide_job(with_status(job(), s.status), {pod(1, "Succeeded")}, k_now + seconds(5));
  EXPECT_EQ(
      r.status.conditions,
      (std::vector<Condition>{{"Suspended", "False", "JobResumed", "Job resumed", "2026-11-29T12:00:05Z"}}));
  EXPECT_EQ(r.create_indexes, (std::vector<std::int64_t>{0}));
  EXPECT_EQ(r.status.start_time, "2026-11-29T12:00:05Z");
}

TEST(DecideJob, AFinishedJobOnlyCleansUp) {
  JobStatus complete;
  complete.conditions = {{"Complete", "True", "CompletionsReached", "m", k_now_text}};
  EXPECT_TRUE(decide_job(with_status(job(), complete), {}, k_now).create_indexes.empty());
  JobStatus failed;
  failed.conditions = {{"Failed", "True", "BackoffLimitExceeded", "m", k_now_text}};
  const JobDecision d = decide_job(with_status(job(), failed), {pod(0, "Running")}, k_now);
  EXPECT_EQ(d.delete_pods, (std::vector<std::string>{"tj-node-0-0-x"}));
  EXPECT_TRUE(d.create_indexes.empty());
}

TEST(DecideJob, ATerminatingPodIsReplaced) {
  PodObservation leaving = pod(0, "Running");
  leaving.deleting = true;
  const JobDecision d = decide_job(job(), {leaving, pod(1, "Running")}, k_now);
  EXPECT_EQ(d.create_indexes, (std::vector<std::int64_t>{0}));
  EXPECT_EQ(d.status.active, 2);  // the running one and its replacement; the terminating one is not active
}

}  // namespace
}  // namespace kpt::model::trainjob
