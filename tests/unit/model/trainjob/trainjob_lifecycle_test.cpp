#include "model/trainjob/lifecycle.hpp"
#include "tests/unit/model/trainjob/lifecycle_test_support.hpp"

#include <gtest/gtest.h>

namespace kpt::model::trainjob {
namespace {

using nlohmann::json;
using std::chrono::seconds;

using testing::k_now;
using testing::k_t;
const TrainerRelease k_v23{2, 3, 0};

json trainjob(json spec_extra = json::object(), const TrainJobStatus& status = {}) {
  json spec = {{"runtimeRef",
                {{"name", "torch-distributed"},
                 {"kind", "ClusterTrainingRuntime"},
                 {"apiGroup", "trainer.kubeflow.org"}}},
               {"trainer", {{"numNodes", 2}}}};
  for (const auto& [k, v] : spec_extra.items()) spec[k] = v;
  json tj = {
      {"metadata",
       {{"name", "tj"}, {"namespace", "ns"}, {"uid", "u"}, {"creationTimestamp", "2026-11-29T11:50:00Z"}}},
      {"spec", spec}};
  tj["status"] = to_json(status);
  return tj;
}

JobSetObservation running_jobset() {
  JobSetObservation js;
  js.exists = true;
  js.status.replicated_jobs_status = {{"node", 1, 0, 0, 1, 0}};
  return js;
}

JobSetObservation finished_jobset(const char* type, const char* reason, const char* message) {
  JobSetObservation js = running_jobset();
  js.status.conditions = {{type, "True", reason, message, "2026-11-29T11:55:00Z"}};
  return js;
}

TEST(DecideTrainJob, ANewTrainJobAppliesItsJobSet) {
  const TrainJobDecision d = decide_trainjob(trainjob(), {}, true, k_v23, k_now);
  EXPECT_TRUE(d.apply_objects);
  EXPECT_TRUE(d.status.conditions.empty());
  EXPECT_EQ(d.error, "jobsets.jobset.x-k8s.io \"tj\" not found");  // read before the cache has it: retried
  EXPECT_FALSE(d.requeue_after_seconds);
}

TEST(DecideTrainJob, ARunningJobSetIsNotReappliedAndItsCountsAreCopied) {
  const TrainJobDecision d = decide_trainjob(trainjob(), running_jobset(), true, k_v23, k_now);
  EXPECT_FALSE(d.apply_objects);
  EXPECT_FALSE(d.error);
  EXPECT_EQ(d.status.jobs_status, (std::vector<ReplicatedJobCounts>{{"node", 1, 0, 0, 1, 0}}));
  EXPECT_EQ(state_column(d.status), "");
}

TEST(DecideTrainJob, CompleteAndFailedAreCopiedFromTheJobSet) {
  const TrainJobDecision done = decide_trainjob(
      trainjob(), finished_jobset("Completed", "AllJobsCompleted", "jobset completed successfully"), true,
      k_v23, k_now);
  EXPECT_EQ(done.status.conditions,
            (std::vector<Condition>{{"Complete", "True", "AllJobsCompleted", "jobset completed successfully",
                                     "2026-11-29T11:55:00Z"}}));
  EXPECT_EQ(state_column(done.status), "Complete");
  const char* failed_message = "jobset failed due to one or more job failures (first failed job: tj-node-0)";
  const TrainJobDecision failed = decide_trainjob(
      trainjob(), finished_jobset("Failed", "FailedJobs", failed_message), true, k_v23, k_now);
  EXPECT_EQ(
      failed.status.conditions,
      (std::vector<Condition>{{"Failed", "True", "FailedJobs", failed_message, "2026-11-29T11:55:00Z"}}));
  // A JobSet condition that is not True is not copied, nor are its other types.
  JobSetObservation restarting = running_jobset();
  restarting.status.conditions = {{"RestartingJobSet", "True", "DefaultFailurePolicy", "m", k_t},
                                  {"Completed", "False", "x", "y", k_t}};
  EXPECT_TRUE(decide_trainjob(trainjob(), restarting, true, k_v23, k_now).status.conditions.empty());
}

TEST(DecideTrainJob, SuspendAndResume) {
  JobSetObservation suspended_js = running_jobset();
  suspended_js.suspended = true;
  const TrainJobDecision s =
      decide_trainjob(trainjob({{"suspend", true}}), running_jobset(), true, k_v23, k_now);
  EXPECT_EQ(s.status.conditions,
            (std::vector<Condition>{{"Suspended", "True", "Suspended", "TrainJob is suspended", k_t}}));
  EXPECT_TRUE(
      s.apply_objects);  // a suspended TrainJob's JobSet is re-applied (patches go out with the resume)
  const TrainJobDecision r = decide_trainjob(trainjob({{"suspend", false}}, s.status), suspended_js, true,
                                             k_v23, k_now + seconds(30));
  EXPECT_EQ(r.status.conditions, (std::vector<Condition>{{"Suspended", "False", "Resumed",
                                                          "TrainJob is resumed", "2026-11-29T12:00:30Z"}}));
  EXPECT_TRUE(r.apply_objects);
  EXPECT_EQ(state_column(r.status), "Suspended");  // the printer column shows the last condition's type
}

TEST(DecideTrainJob, TheActiveDeadlineRequeuesThenFailsAndDeletesTheJobSet) {
  const json spec = {{"activeDeadlineSeconds", 900}};
  const TrainJobDecision early = decide_trainjob(trainjob(spec), running_jobset(), true, k_v23, k_now);
  EXPECT_EQ(early.requeue_after_seconds, 300);  // created 11:50, deadline 12:05
  EXPECT_FALSE(early.delete_jobset);
  EXPECT_EQ(decide_trainjob(trainjob(spec), running_jobset(), true, k_v23, k_now + seconds(300))
                .requeue_after_seconds,
            1);
  const TrainJobDecision late =
      decide_trainjob(trainjob(spec), running_jobset(), true, k_v23, k_now + seconds(301));
  EXPECT_TRUE(late.delete_jobset);
  const Condition deadline{"Failed", "True", "DeadlineExceeded", "TrainJob exceeded its active deadline",
                           "2026-11-29T12:05:01Z"};
  EXPECT_EQ(late.status.conditions, (std::vector<Condition>{deadline}));
  // The next pass keeps it although the JobSet is gone, and applies nothing.
  const TrainJobDecision after =
      decide_trainjob(trainjob(spec, late.status), {}, true, k_v23, k_now + seconds(400));
  EXPECT_EQ(after.status.conditions, (std::vector<Condition>{deadline}));
  EXPECT_FALSE(after.apply_objects);
  EXPECT_FALSE(after.error);
  // Before v2.2 there is no active deadline.
  EXPECT_FALSE(
      decide_trainjob(trainjob(spec), running_jobset(), true, {2, 1, 0}, k_now + seconds(999)).delete_jobset);
}

TEST(DecideTrainJob, TheDeadlineClockRestartsOnResumeAndStopsWhileSuspended) {
  TrainJobStatus resumed;
  resumed.conditions = {{"Suspended", "False", "Resumed", "TrainJob is resumed", "2026-11-29T11:59:00Z"}};
  const json spec = {{"activeDeadlineSeconds", 120}};
  EXPECT_EQ(
      decide_trainjob(trainjob(spec, resumed), running_jobset(), true, k_v23, k_now).requeue_after_seconds,
      60);
  json suspended = spec;
  suspended["suspend"] = true;
  const TrainJobDecision s =
      decide_trainjob(trainjob(suspended), running_jobset(), true, k_v23, k_now + seconds(9999));
  EXPECT_FALSE(s.requeue_after_seconds);
  EXPECT_FALSE(s.delete_jobset);
}

TEST(DecideTrainJob, MultiKueueTrainJobsAreSkippedFromV23Only) {
  const json spec = {{"managedBy", "kueue.x-k8s.io/multikueue"}, {"suspend", true}};
  const TrainJobDecision v23 = decide_trainjob(trainjob(spec), {}, true, k_v23, k_now);
  EXPECT_TRUE(v23.skip);
  EXPECT_FALSE(v23.apply_objects);
  EXPECT_TRUE(v23.status.conditions.empty());
  const TrainJobDecision v22 = decide_trainjob(trainjob(spec), {}, true, {2, 2, 1}, k_now);
  EXPECT_FALSE(v22.skip);
  EXPECT_TRUE(v22.apply_objects);
  EXPECT_FALSE(decide_trainjob(trainjob({{"managedBy", "trainer.kubeflow.org/trainjob-controller"}}), {},
                               true, k_v23, k_now)
                   .skip);
}

TEST(DecideTrainJob, AnUnsupportedRuntimeNeverReachesTheStatus) {
  TrainJobStatus failed;
  failed.conditions = {{"Failed", "True", "FailedJobs", "m", k_t}};
  const TrainJobDecision d = decide_trainjob(trainjob({}, failed), running_jobset(), false, k_v23, k_now);
  EXPECT_EQ(d.error, "unsupported runtime: ClusterTrainingRuntime.trainer.kubeflow.org");
  EXPECT_EQ(d.status, failed);
  EXPECT_FALSE(d.apply_objects);
}

TEST(DecideTrainJob, AFinishedTrainJobWhoseJobSetWasCleanedUpPerRelease) {
  TrainJobStatus complete;
  complete.conditions = {{"Complete", "True", "AllJobsCompleted", "jobset completed successfully", k_t}};
  complete.jobs_status = {{"node", 0, 1, 0, 0, 0}};
  for (const TrainerRelease release :
       {TrainerRelease{2, 0, 0}, TrainerRelease{2, 2, 0}, TrainerRelease{2, 3, 0}}) {
    SCOPED_TRACE(release.to_string());
    const TrainJobDecision d = decide_trainjob(trainjob({}, complete), {}, true, release, k_now);
    EXPECT_FALSE(d.apply_objects);
    EXPECT_EQ(d.status, complete);
    EXPECT_FALSE(d.error);
  }
  // v2.1 re-applies the JobSet of a finished TrainJob, recreating it after its TTL.
  const TrainJobDecision v21 = decide_trainjob(trainjob({}, complete), {}, true, {2, 1, 0}, k_now);
  EXPECT_TRUE(v21.apply_objects);
  EXPECT_EQ(v21.error, "jobsets.jobset.x-k8s.io \"tj\" not found");
}

TEST(DecideTrainJob, AFailedTrainJobWhoseJobSetIsGoneGetsANewOneInV23) {
  TrainJobStatus failed;
  failed.conditions = {{"Failed", "True", "FailedJobs", "m", k_t}};
  const TrainJobDecision d = decide_trainjob(trainjob({}, failed), {}, true, k_v23, k_now);
  EXPECT_TRUE(d.apply_objects);  // kubeflow/trainer#3779: the Failed condition is dropped first
  EXPECT_TRUE(d.status.conditions.empty());
  // With its JobSet still there the condition comes straight back.
  const TrainJobDecision kept =
      decide_trainjob(trainjob({}, failed), finished_jobset("Failed", "FailedJobs", "m"), true, k_v23, k_now);
  EXPECT_FALSE(kept.apply_objects);
  EXPECT_EQ(kept.status.conditions.size(), 1u);
  EXPECT_EQ(kept.status.conditions[0].reason, "FailedJobs");
}

// kubeflow/trainer#3891, which our controller applies to every release: once Failed, no later pass
// (a JobSet gone or recreated, a Job's changed status, a Completed JobSet) replaces the condition.
TEST(DecideTrainJob, OurControllerKeepsAFailedTrainJobFailed) {
  const ControllerFixes ours{.failed_is_terminal = true};
  const Condition failed_condition{"Failed", "True", "FailedJobs", "m", k_t};
  TrainJobStatus failed;
  failed.conditions = {failed_condition};
  JobSetObservation recreated = running_jobset();
  JobSetObservation completed = finished_jobset("Completed", "AllJobsCompleted", "done");
  JobSetObservation failed_again = finished_jobset("Failed", "ReachedMaxRestarts", "other");
  struct Case {
    const char* name;
    JobSetObservation jobset;
    json spec;
  };
  const std::vector<Case> cases{
      {"its JobSet is gone", {}, json::object()},
      {"its JobSet runs again", recreated, json::object()},
      {"its JobSet completed", completed, json::object()},
      {"its JobSet failed with another reason", failed_again, json::object()},
      {"it is suspended", recreated, {{"suspend", true}}},
  };
  for (const TrainerRelease release : k_trainer_releases) {
    for (const auto& c : cases) {
      SCOPED_TRACE(release.to_string() + ": " + c.name);
      const TrainJobDecision d =
          decide_trainjob(trainjob(c.spec, failed), c.jobset, true, release, k_now, ours);
      EXPECT_FALSE(d.apply_objects);
      EXPECT_FALSE(d.error);
      const Condition* kept = find_condition(d.status.conditions, "Failed");
      ASSERT_NE(kept, nullptr);
      EXPECT_EQ(*kept, failed_condition);
      EXPECT_EQ(find_condition(d.status.conditions, "Complete"), nullptr);
    }
  }
  // The release itself (v2.3) drops the condition and builds a new JobSet, as the test above shows.
  EXPECT_TRUE(decide_trainjob(trainjob({}, failed), {}, true, k_v23, k_now).apply_objects);
  // A TrainJob that has not failed is reconciled as the release does.
  const TrainJobDecision running = decide_trainjob(trainjob(), recreated, true, k_v23, k_now, ours);
  EXPECT_EQ(running.status.jobs_status, recreated.status.replicated_jobs_status);
  EXPECT_EQ(decide_trainjob(trainjob(), failed_again, true, k_v23, k_now, ours).status.conditions.size(), 1u);
}

TEST(DecideTrainJob, V20CopiesOnlyTheTerminalCondition) {
  const TrainJobDecision d = decide_trainjob(trainjob(), running_jobset(), true, {2, 0, 1}, k_now);
  EXPECT_TRUE(d.status.jobs_status.empty());
}

TEST(ResourcesFailedEvent, CutsTheErrorAt950Characters) {
  EXPECT_EQ(resources_failed_event("boom"), (Event{"Warning", "TrainJobResourcesCreationFailed",
                                                   "TrainJob resources reconciliation failed: boom"}));
  const Event long_event = resources_failed_event(std::string(1000, 'x'));
  EXPECT_EQ(long_event.message,
            "TrainJob resources reconciliation failed: " + std::string(950, 'x') + " ...");
  // Go counts runes: 950 two-byte characters are kept whole.
  std::string wide;
  for (int i = 0; i < 951; ++i) wide += "\xc3\xa9";
  EXPECT_EQ(resources_failed_event(wide).message,
            "TrainJob resources reconciliation failed: " + wide.substr(0, 1900) + " ...");
  EXPECT_EQ(resources_failed_event(std::string(950, 'y')).message,
            "TrainJob resources reconciliation failed: " + std::string(950, 'y'));
}

TEST(SetStatusCondition, KeepsTheTransitionTimeUnlessTheStatusChanges) {
  std::vector<Condition> conditions;
  EXPECT_TRUE(set_status_condition(conditions, {"Suspended", "True", "Suspended", "a", ""}, k_now));
  EXPECT_FALSE(
      set_status_condition(conditions, {"Suspended", "True", "Suspended", "a", ""}, k_now + seconds(5)));
  EXPECT_TRUE(set_status_condition(conditions, {"Suspended", "True", "Other", "b", ""}, k_now + seconds(5)));
  EXPECT_EQ(conditions[0], (Condition{"Suspended", "True", "Other", "b", k_t}));
  EXPECT_TRUE(
      set_status_condition(conditions, {"Suspended", "False", "Resumed", "c", ""}, k_now + seconds(9)));
  EXPECT_EQ(conditions[0].last_transition_time, "2026-11-29T12:00:09Z");
}

}  // namespace
}  // namespace kpt::model::trainjob
