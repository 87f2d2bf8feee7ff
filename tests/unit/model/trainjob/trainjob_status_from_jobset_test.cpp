// TrainJob status from a JobSet object as the JobSet controller writes it, per Trainer release
// (kubeflow/trainer pkg/controller/trainjob_controller.go and plugins/jobset/jobset.go at v2.0.0,
// v2.1.0, v2.2.0, v2.2.1 and v2.3.0).
#include "model/trainjob/lifecycle.hpp"
#include "tests/unit/model/trainjob/lifecycle_test_support.hpp"

#include <gtest/gtest.h>

#include <optional>

namespace kpt::model::trainjob {
namespace {

using nlohmann::json;
using testing::k_now;

const std::string k_t0 = "2026-11-29T11:50:00Z";
const std::string k_t1 = "2026-11-29T11:55:00Z";
const char* k_not_found = "jobsets.jobset.x-k8s.io \"tj\" not found";

const json k_trainjob = {{"metadata", {{"name", "tj"}, {"namespace", "ns"}, {"uid", "u"}}}};

json jobset(json status, bool suspend = false) {
  return {{"apiVersion", "jobset.x-k8s.io/v1alpha2"},
          {"kind", "JobSet"},
          {"metadata", {{"name", "tj"}, {"namespace", "ns"}}},
          {"spec", {{"suspend", suspend}}},
          {"status", std::move(status)}};
}

json condition_json(const char* type, const char* status, const char* reason, const char* message) {
  return {{"type", type},
          {"status", status},
          {"reason", reason},
          {"message", message},
          {"lastTransitionTime", k_t1}};
}

json counts_json(std::int64_t ready, std::int64_t succeeded, std::int64_t failed, std::int64_t active,
                 std::int64_t suspended) {
  return {{"name", "node"},   {"ready", ready},   {"succeeded", succeeded},
          {"failed", failed}, {"active", active}, {"suspended", suspended}};
}

const char* k_failed_jobs = "jobset failed due to one or more job failures (first failed job: tj-node-0)";
const char* k_max_restarts =
    "jobset failed due to reaching max number of restarts (first failed job: tj-node-0)";
const char* k_fail_jobset = "applying FailJobSet failure policy action (first failed job: tj-node-0)";
const char* k_completed = "jobset completed successfully";

const Condition k_complete{"Complete", "True", "AllJobsCompleted", k_completed, k_t1};
const Condition k_deadline{"Failed", "True", "DeadlineExceeded", "TrainJob exceeded its active deadline",
                           k_t0};

TrainJobStatus with(std::vector<Condition> conditions, std::vector<ReplicatedJobCounts> jobs = {}) {
  return {std::move(conditions), std::move(jobs)};
}

/// What one release family derives: its status, and the error its Get returns.
struct Outcome {
  TrainJobStatus status = {};
  std::optional<std::string> error = std::nullopt;
};

struct Case {
  std::string name;
  std::optional<json> jobset;  ///< as the JobSet controller left it; nullopt: not found
  TrainJobStatus before;       ///< the TrainJob's status so far in the pass
  Outcome v20;                 ///< v2.0.0, v2.0.1: TerminalCondition only
  Outcome v21;                 ///< v2.1.0: Status with jobsStatus
  Outcome v22;                 ///< v2.2.0 to v2.3.0: a finished TrainJob needs no JobSet
};

const Outcome& expected_for(const Case& c, TrainerRelease release) {
  if (release.at_least(2)) return c.v22;
  if (release.at_least(1)) return c.v21;
  return c.v20;
}

std::vector<Case> cases() {
  const ReplicatedJobCounts running{"node", 1, 0, 0, 1, 0};
  const ReplicatedJobCounts succeeded{"node", 0, 1, 0, 0, 0};
  const ReplicatedJobCounts failed{"node", 0, 0, 1, 0, 0};
  const ReplicatedJobCounts suspended{"node", 0, 0, 0, 0, 1};
  const TrainJobStatus complete = with({k_complete});
  std::vector<Case> out;
  out.push_back({"a JobSet just applied has no status yet, so nothing changes",
                 jobset(json::object()),
                 {},
                 {},
                 {},
                 {}});
  out.push_back({"a running JobSet's counts become jobsStatus from v2.1",
                 jobset({{"replicatedJobsStatus", {counts_json(1, 0, 0, 1, 0)}}, {"restarts", 0}}),
                 {},
                 {},
                 {with({}, {running})},
                 {with({}, {running})}});
  out.push_back(
      {"Completed becomes Complete with the JobSet's reason, message and time",
       jobset({{"conditions", {condition_json("Completed", "True", "AllJobsCompleted", k_completed)}},
               {"replicatedJobsStatus", {counts_json(0, 1, 0, 0, 0)}},
               {"terminalState", "Completed"}}),
       {},
       {complete},
       {with({k_complete}, {succeeded})},
       {with({k_complete}, {succeeded})}});
  for (const auto& [reason, message] :
       {std::pair{"FailedJobs", k_failed_jobs}, std::pair{"ReachedMaxRestarts", k_max_restarts},
        std::pair{"FailJobSetFailurePolicyAction", k_fail_jobset}}) {
    const Condition f{"Failed", "True", reason, message, k_t1};
    out.push_back({std::string("Failed ") + reason + " is copied as it is",
                   jobset({{"conditions", {condition_json("Failed", "True", reason, message)}},
                           {"replicatedJobsStatus", {counts_json(0, 0, 1, 0, 0)}},
                           {"terminalState", "Failed"}}),
                   {},
                   {with({f})},
                   {with({f}, {failed})},
                   {with({f}, {failed})}});
  }
  out.push_back(
      {"Suspended, RestartingJobSet, StartupPolicy and False conditions are not copied",
       jobset({{"conditions",
                {condition_json("Suspended", "True", "SuspendedJobs", "jobset is suspended"),
                 condition_json("RestartingJobSet", "True", "DefaultFailurePolicy", "restarting"),
                 condition_json("StartupPolicyCompleted", "True", "AllReplicatedJobsStarted", "done"),
                 condition_json("Completed", "False", "x", "y")}},
               {"replicatedJobsStatus", {counts_json(0, 0, 0, 0, 1)}}},
              true),
       {},
       {},
       {with({}, {suspended})},
       {with({}, {suspended})}});
  const Condition failed_jobs{"Failed", "True", "FailedJobs", k_failed_jobs, k_t1};
  out.push_back({"v2.0 takes Completed over Failed; later releases copy both in turn",
                 jobset({{"conditions",
                          {condition_json("Failed", "True", "FailedJobs", k_failed_jobs),
                           condition_json("Completed", "True", "AllJobsCompleted", k_completed)}}}),
                 {},
                 {complete},
                 {with({k_complete, failed_jobs})},
                 {with({k_complete, failed_jobs})}});
  out.push_back({"a DeadlineExceeded condition outlives the JobSet's Failed, its time kept",
                 jobset({{"conditions", {condition_json("Failed", "True", "FailedJobs", k_failed_jobs)}}}),
                 with({k_deadline}),
                 {with({k_deadline})},
                 {with({k_deadline})},
                 {with({k_deadline})}});
  out.push_back({"jobsStatus is replaced whole: a JobSet without counts empties it from v2.1",
                 jobset(json::object()),
                 with({}, {running}),
                 {with({}, {running})},
                 {},
                 {}});
  out.push_back({"a missing JobSet is the Get's NotFound, the status left as it was",
                 std::nullopt,
                 with({}, {running}),
                 {with({}, {running}), k_not_found},
                 {with({}, {running}), k_not_found},
                 {with({}, {running}), k_not_found}});
  out.push_back({"a finished TrainJob whose JobSet is gone (its TTL) is no error from v2.2",
                 std::nullopt,
                 complete,
                 {complete, k_not_found},
                 {complete, k_not_found},
                 {complete}});
  return out;
}

TEST(TrainJobStatusFromJobSet, EveryReleaseDerivesTheStatusFromTheJobSetAsItsController) {
  for (const auto& c : cases()) {
    for (const TrainerRelease release : k_trainer_releases) {
      SCOPED_TRACE(c.name + " @ " + release.to_string());
      const json* js = c.jobset ? &*c.jobset : nullptr;
      const auto got = trainjob_status_from_jobset(k_trainjob, c.before, observe_jobset(js), release, k_now);
      const Outcome& want = expected_for(c, release);
      EXPECT_EQ(got.status, want.status);
      EXPECT_EQ(got.error, want.error);
    }
  }
}

TEST(ObserveJobSet, ReadsExistenceSuspendAndStatusFromTheObject) {
  EXPECT_FALSE(observe_jobset(nullptr).exists);
  const json js =
      jobset({{"restarts", 2},
              {"restartsCountTowardsMax", 1},
              {"conditions", {condition_json("Completed", "True", "AllJobsCompleted", k_completed)}},
              {"replicatedJobsStatus", {counts_json(0, 1, 0, 0, 0)}},
              {"terminalState", "Completed"}},
             true);
  const JobSetObservation o = observe_jobset(&js);
  EXPECT_TRUE(o.exists);
  EXPECT_TRUE(o.suspended);
  EXPECT_EQ(o.status.restarts, 2);
  EXPECT_EQ(o.status.restarts_count_towards_max, 1);
  EXPECT_EQ(o.status.terminal_state, "Completed");
  EXPECT_EQ(o.status.conditions,
            (std::vector<Condition>{{"Completed", "True", "AllJobsCompleted", k_completed, k_t1}}));
  EXPECT_EQ(o.status.replicated_jobs_status, (std::vector<ReplicatedJobCounts>{{"node", 0, 1, 0, 0, 0}}));
  // A JobSet without a spec.suspend runs; one with a malformed status reads as empty.
  const json bare = {{"metadata", {{"name", "tj"}}}, {"status", "garbage"}};
  EXPECT_FALSE(observe_jobset(&bare).suspended);
  EXPECT_TRUE(observe_jobset(&bare).status.conditions.empty());
}

}  // namespace
}  // namespace kpt::model::trainjob
