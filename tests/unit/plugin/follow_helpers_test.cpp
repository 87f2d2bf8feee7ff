// The small pure pieces of the follow: crash-loop counting, line filters, silences, separators.
#include "plugin/follow/crash_loop.hpp"
#include "plugin/follow/diagnosis_gather.hpp"
#include "plugin/follow/job_follower.hpp"
#include "plugin/follow/job_view.hpp"
#include "plugin/follow/line_filter.hpp"
#include "plugin/follow/rank_silence.hpp"
#include "plugin/run/job_builder.hpp"
#include "util/time.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace kpt::plugin {
namespace {

const std::vector<std::string> k_syntax = {"  File \"/app/train.py\", line 4", "    def f(:", "          ^",
                                           "SyntaxError: invalid syntax"};

TEST(FailureSignature, IsTheClassTheCodeAndTheExceptionNotTheOtherLines) {
  EXPECT_EQ(failure_signature(k_syntax, 1), "exception|1|SyntaxError: invalid syntax");
  EXPECT_EQ(failure_signature({"step 1", "step 2"}, 137), "killed|137|");
  EXPECT_EQ(failure_signature({"step 7", "step 8"}, 137), failure_signature({"step 1"}, 137));
}

TEST(BackoffBudget, RestartsLeftAsTheControllerSpendsTheLimit) {
  struct Case {
    int limit, in_place, recreations, left;
  };
  for (const Case c :
       {Case{3, 0, 0, 3}, Case{3, 2, 0, 1}, Case{3, 3, 0, 0}, Case{3, 5, 0, 0}, Case{3, 1, 2, 1},
        Case{3, 0, 4, 0}, Case{0, 0, 0, 1}, Case{0, 1, 0, 0}, Case{2147483647, 0, 0, 2147483647}}) {
    SCOPED_TRACE(::testing::Message() << c.limit << "/" << c.in_place << "/" << c.recreations);
    EXPECT_EQ((BackoffBudget{c.limit, c.in_place, c.recreations}.left()), c.left);
  }
}

TEST(BackoffBudget, IsReadFromAPyTorchJobThatSetsALimitAndItsPods) {
  const nlohmann::json job = {
      {"kind", "PyTorchJob"},
      {"metadata", {{"name", "j"}, {"annotations", {{"kubectl-pytorch.dev/recreations", "1"}}}}},
      {"spec",
       {{"runPolicy", {{"backoffLimit", 4}}},
        {"pytorchReplicaSpecs",
         {{"Master", {{"replicas", 1}, {"restartPolicy", "OnFailure"}}},
          {"Worker", {{"replicas", 1}, {"restartPolicy", "Never"}}}}}}}};
  const auto pod = [](const char* type, int restarts) {
    return nlohmann::json{{"metadata", {{"labels", {{"training.kubeflow.org/replica-type", type}}}}},
                          {"status",
                           {{"phase", "Running"},
                            {"containerStatuses",
                             nlohmann::json::array({{{"name", "pytorch"}, {"restartCount", restarts}}})}}}};
  };
  const auto budget = backoff_budget(job, {pod("master", 2), pod("worker", 5)});
  ASSERT_TRUE(budget.has_value());
  EXPECT_EQ(budget->limit, 4);
  EXPECT_EQ(budget->in_place, 2);  // a Never replica's restarts are not counted
  EXPECT_EQ(budget->recreations, 1);
  EXPECT_EQ(backoff_end(*budget), "the job fails after 2 more restarts (runPolicy.backoffLimit 4)");

  nlohmann::json unlimited = job;
  unlimited["spec"]["runPolicy"].erase("backoffLimit");
  EXPECT_FALSE(backoff_budget(unlimited, {}).has_value());
  EXPECT_FALSE(backoff_budget({{"kind", "TrainJob"}}, {}).has_value());
  EXPECT_FALSE(backoff_budget(nlohmann::json::array(), {}).has_value());
  EXPECT_EQ(backoff_end({3, 2, 0}), "the job fails at its next restart (runPolicy.backoffLimit 3)");
}

TEST(CrashLoopTracker, CountsTheSameFailureInARowPerRank) {
  CrashLoopTracker t;
  EXPECT_EQ(t.record("worker-0", "a"), 1);
  EXPECT_EQ(t.record("worker-1", "a"), 1);
  EXPECT_EQ(t.record("worker-0", "a"), 2);
  EXPECT_EQ(t.record("worker-0", "b"), 1);
  EXPECT_EQ(t.record("worker-0", "b"), 2);
  EXPECT_EQ(t.record("worker-0", "b"), 3);
  EXPECT_EQ(t.record("worker-1", "a"), 2);
}

struct FilterCase {
  const char* name;
  std::vector<std::string> include;
  std::vector<std::string> exclude;
  const char* line;
  bool printed;
};

TEST(LineFilter, IncludesAnyAndExcludesEveryMatchAsSternDoes) {
  const FilterCase cases[] = {
      {"an include matches", {"loss"}, {}, "epoch 1 loss 0.5", true},
      {"no include matches", {"loss", "acc"}, {}, "epoch 1", false},
      {"the second include matches", {"loss", "acc(uracy)?"}, {}, "accuracy 88%", true},
      {"an exclude wins", {"loss"}, {"^DEBUG"}, "DEBUG loss 0.5", false},
      {"excludes alone", {}, {"NCCL INFO"}, "NCCL INFO Bootstrap", false},
      {"a timestamp is not part of the line", {"^epoch"}, {}, "2026-12-06T03:14:58.123456789Z epoch 1", true},
      {"case is the user's to say", {"(?i)error"}, {}, "RuntimeError: x", true},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    auto filter = make_line_filter(c.include, c.exclude);
    ASSERT_TRUE(filter);
    ASSERT_TRUE(*filter);
    EXPECT_EQ((*filter)(c.line), c.printed);
  }
}

TEST(LineFilter, NoPatternsNoFilterAndABadPatternIsAUsageError) {
  auto none = make_line_filter({}, {});
  ASSERT_TRUE(none);
  EXPECT_FALSE(*none);
  auto bad = make_line_filter({"(loss"}, {});
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().code, ErrorCode::usage);
  EXPECT_EQ(bad.error().message,
            "invalid --include '(loss': error parsing regexp: missing closing ): `(loss`");
  auto backref = make_line_filter({}, {"(a)\\1"});
  ASSERT_FALSE(backref);
  EXPECT_EQ(backref.error().message.rfind("invalid --exclude '(a)\\1': ", 0), 0u) << backref.error().message;
}

TEST(RankSilence, ReadsTimestampsAndAges) {
  const auto t = line_timestamp("2026-12-06T03:14:58.123456789Z rank 0 step 3");
  ASSERT_TRUE(t);
  EXPECT_EQ(util::format_time(std::chrono::time_point_cast<std::chrono::seconds>(*t)),
            "2026-12-06T03:14:58Z");
  EXPECT_EQ(without_timestamp("2026-12-06T03:14:58Z rank 0"), "rank 0");
  EXPECT_EQ(without_timestamp("rank 0 step 3"), "rank 0 step 3");
  EXPECT_FALSE(line_timestamp("2026 was a year"));
  const WallTime now = *t + std::chrono::seconds(90);
  EXPECT_EQ(output_age(*t, std::nullopt, now), std::chrono::seconds(90));
  EXPECT_EQ(output_age(std::nullopt, *t + std::chrono::seconds(30), now), std::chrono::seconds(60));
  EXPECT_EQ(output_age(now + std::chrono::seconds(5), std::nullopt, now), std::chrono::seconds(0));
  EXPECT_EQ(output_age(std::nullopt, std::nullopt, now), std::nullopt);
}

TEST(AttemptSeparator, NumbersRunsFromOne) {
  ReplicaView r;
  r.role = "worker-1";
  r.restarts = 1;
  EXPECT_EQ(attempt_separator(r), "--- worker-1 attempt 2 ---");
}

TEST(Selected, ByReplicaNameOrRank) {
  ReplicaView r;
  r.role = "worker-1";
  r.rank = 1;
  EXPECT_TRUE(selected(r, "", std::nullopt));
  EXPECT_TRUE(selected(r, "worker-1", std::nullopt));
  EXPECT_FALSE(selected(r, "worker-0", std::nullopt));
  EXPECT_TRUE(selected(r, "", 1));
  EXPECT_FALSE(selected(r, "", 0));
}

TEST(BuildJob, SetsABackoffLimitSoAFailingJobEnds) {
  JobRequest r;
  r.name = "demo";
  r.image = "python:3.11";
  r.command = {"python", "train.py"};
  const auto j = build_job(r);
  EXPECT_EQ(j["spec"]["runPolicy"]["backoffLimit"], 3);
  EXPECT_EQ(j["spec"]["pytorchReplicaSpecs"]["Worker"]["restartPolicy"], "OnFailure");
}

// A job deleted and created again under its name leaves the first one's events behind for an hour:
// they are not the new job's.
TEST(EventOfJob, IsTheJobsByUidAndItsObjectsSinceItWasCreated) {
  const nlohmann::json job = {
      {"metadata", {{"name", "mnist"}, {"uid", "u2"}, {"creationTimestamp", "2026-12-06T09:00:00Z"}}}};
  const auto event = [](const std::string& name, const std::string& uid, const std::string& last) {
    return nlohmann::json{{"involvedObject", {{"name", name}, {"uid", uid}}}, {"lastTimestamp", last}};
  };
  struct Case {
    nlohmann::json event;
    bool mine;
  };
  const std::vector<Case> cases = {
      {event("mnist", "u2", "2026-12-06T09:00:05Z"), true},
      {event("mnist", "u1", "2026-12-06T09:00:05Z"), false},  // the earlier job's uid
      {event("mnist", "", "2026-12-06T08:00:00Z"), true},     // no uid to tell by
      {event("mnist-worker-0", "p2", "2026-12-06T09:00:01Z"), true},
      {event("mnist-worker-0", "p1", "2026-12-06T08:59:59Z"), false},  // before the job was created
      {event("mnist-worker-0", "p1", ""), true},                       // no time to tell by
      {event("mnistx-worker-0", "p3", "2026-12-06T09:00:01Z"), false},
      {event("other", "u2", "2026-12-06T09:00:01Z"), false},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.event.dump());
    EXPECT_EQ(event_of_job(c.event, job), c.mine);
  }
}

TEST(StartedAfterEnd, IsARunThatBeganAfterTheJobFinished) {
  JobView view;
  view.finished = true;
  view.finished_at = "2026-12-06T09:00:10Z";
  ReplicaView r;
  r.started_at = "2026-12-06T09:00:12Z";
  EXPECT_TRUE(started_after_end(view, r));
  r.started_at = "2026-12-06T09:00:10Z";
  EXPECT_FALSE(started_after_end(view, r));
  r.started_at = "";
  EXPECT_FALSE(started_after_end(view, r));
  view.finished = false;
  r.started_at = "2026-12-06T09:00:12Z";
  EXPECT_FALSE(started_after_end(view, r));
}

}  // namespace
}  // namespace kpt::plugin
