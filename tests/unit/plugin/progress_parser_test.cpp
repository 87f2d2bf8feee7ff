#include "plugin/follow/progress_parser.hpp"

#include "plugin/follow/progress.hpp"
#include "util/file_io.hpp"
#include "util/time.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace kpt::plugin {
namespace {

using std::chrono::seconds;

const WallTime k_t0 = WallTime(seconds(1'800'000'000));

std::string sample(const std::string& name) {
  return util::read_file(std::string(KPT_SOURCE_DIR) + "/testdata/progress/" + name).value();
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (start < text.size()) {
    const auto nl = text.find('\n', start);
    out.push_back(text.substr(start, nl == std::string::npos ? std::string::npos : nl - start));
    if (nl == std::string::npos) break;
    start = nl + 1;
  }
  return out;
}

TEST(ProgressParser, EachShapeReadsFromOneLine) {
  struct Case {
    const char* name;
    std::string line;
    std::int64_t current, total;
    const char* shape;
    const char* label;
    std::optional<double> remaining;
    std::vector<LineMetric> metrics;
  };
  const Case cases[] = {
      {"tqdm, a plain loop's",
       "train:  45%|████▌     | 9/20 [00:00<00:36, 18.54it/s]",
       9,
       20,
       "tqdm",
       "train",
       36.0,
       {}},
      {"tqdm redrawn with carriage returns: the last",
       "\rtrain:   0%|          | 0/20 [00:00<?, ?it/s]\rtrain:   5%|▌         | 1/20 [00:00<00:01, "
       "19.95it/s]",
       1,
       20,
       "tqdm",
       "train",
       1.0,
       {}},
      {"the Trainer's bar: no description",
       " 45%|████▌     | 450/1000 [05:00<06:06, 1.50it/s]",
       450,
       1000,
       "tqdm",
       "",
       366.0,
       {}},
      {"Lightning's bar with metrics",
       "Epoch 1:  45%|████▌     | 450/1000 [00:30<00:36, 15.00it/s, v_num=0, train_loss=0.123]",
       450,
       1000,
       "tqdm",
       "Epoch 1",
       36.0,
       {{"train_loss", "0.123"}}},
      {"a bar without a bar",
       "Epoch 0:  97% 1651/1702 [13:00<00:24,  2.11it/s, loss=0.158, v_num=0]",
       1651,
       1702,
       "tqdm",
       "Epoch 0",
       24.0,
       {{"loss", "0.158"}}},
      {"hours and seconds per item",
       "x: 10%|#| 1/10 [1:00:00<9:00:00, 3600.00s/it]",
       1,
       10,
       "tqdm",
       "x",
       32400.0,
       {}},
      {"Epoch i/N", "Epoch 2/4", 2, 4, "epoch", "", std::nullopt, {}},
      {"Epoch [i/N] with a loss",
       "Epoch [3/10] loss: 0.25",
       3,
       10,
       "epoch",
       "",
       std::nullopt,
       {{"loss", "0.25"}}},
      {"epoch i of N", "epoch 3 of 10", 3, 10, "epoch", "", std::nullopt, {}},
      {"step i/N with key=value metrics",
       "step 450/1000 loss=0.123 lr=3e-4",
       450,
       1000,
       "step",
       "",
       std::nullopt,
       {{"loss", "0.123"}, {"lr", "3e-4"}}},
      {"Step: [i/N]", "Step: [450/1000]", 450, 1000, "step", "", std::nullopt, {}},
      {"iter", "iter 5/50 | loss 2.0", 5, 50, "step", "", std::nullopt, {}},
      {"the PyTorch tutorials' epoch and step",
       "Epoch [1/2], Step [100/300], Loss: 0.9000",
       100,
       300,
       "epoch-step",
       "epoch 1/2",
       std::nullopt,
       {{"Loss", "0.9000"}}},
      {"the Trainer's metrics dict",
       "{'loss': 0.6931, 'grad_norm': 1.25, 'learning_rate': 4.5e-05, 'epoch': 0.45}",
       0,
       0,
       "metrics",
       "",
       std::nullopt,
       {{"loss", "0.6931"}, {"grad_norm", "1.25"}, {"learning_rate", "4.5e-05"}}},
      {"a metric of a known name",
       "INFO val_acc=0.91 after validation",
       0,
       0,
       "metrics",
       "",
       std::nullopt,
       {{"val_acc", "0.91"}}},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    const auto p = parse_progress_line(c.line);
    ASSERT_TRUE(p);
    EXPECT_EQ(p->current, c.current);
    EXPECT_EQ(p->total, c.total);
    EXPECT_EQ(p->shape, c.shape);
    EXPECT_EQ(p->label, c.label);
    EXPECT_EQ(p->remaining, c.remaining);
    EXPECT_EQ(p->metrics, c.metrics);
  }
}

TEST(ProgressParser, LinesThatSayNoneOfItReadAsNothing) {
  for (const char* line :
       {"", "   ", "Downloading model...", "rank: 0 world_size: 2", "epoch 5/0", "step 7/3",
        "2026-12-01 12:00:00,123 INFO starting", "version 1/2 of the data", "\x1b[A\r   \r"}) {
    SCOPED_TRACE(line);
    EXPECT_FALSE(parse_progress_line(line));
  }
}

TEST(ProgressParser, TheEpochAndStepLineIsAFractionOfTheWholeRun) {
  const auto p = parse_progress_line("Epoch [2/4], Step [50/100], Loss: 0.1");
  ASSERT_TRUE(p && p->fraction);
  EXPECT_DOUBLE_EQ(*p->fraction, 1.5 / 4);
}

TEST(ProgressParser, ClocksAreTqdms) {
  EXPECT_EQ(parse_clock("00:36"), 36.0);
  EXPECT_EQ(parse_clock("1:02:03"), 3723.0);
  EXPECT_EQ(parse_clock("2d, 01:00:00"), 2 * 86400.0 + 3600);
  EXPECT_FALSE(parse_clock("?"));
  EXPECT_FALSE(parse_clock("36"));
  EXPECT_FALSE(parse_clock("1:2:3:4"));
}

TEST(ProgressParser, AHostileLineCostsItsFirstFourKilobytes) {
  const std::string long_line = std::string(1 << 20, 'x') + " step 5/10";
  EXPECT_EQ(visible_text(long_line).size(), k_max_progress_line);
  EXPECT_FALSE(parse_progress_line(long_line));
}

// Real logs (testdata/progress, written by generate.py with Debian's tqdm): what a tracker fed each
// line of rank 0's log shows at the end.
TEST(ProgressTracker, RealLogsOfEachShapeEndWhereTheRunEnded) {
  struct Case {
    const char* file;
    int percent;
    const char* counter;
    std::vector<LineMetric> metrics;
  };
  const Case cases[] = {
      {"tqdm_plain.log", 100, "train 20/20", {}},
      {"hf_trainer.log",
       100,
       "30/30",
       {{"loss", "0.8026"},
        {"grad_norm", "1.7890625"},
        {"learning_rate", "0.0"},
        {"eval_loss", "1.2345"},
        {"eval_runtime", "0.05"},
        {"eval_samples_per_second", "100.0"},
        {"eval_steps_per_second", "12.5"},
        {"train_runtime", "1.2"},
        {"train_samples_per_second", "200.0"},
        {"train_steps_per_second", "25.0"},
        {"train_loss", "1.7421"}}},
      {"lightning_tqdm.log", 100, "Epoch 1 12/12", {{"train_loss", "0.373"}, {"val_loss", "0.612"}}},
      {"printed_loops.log", 100, "step 1000/1000", {{"Loss", "0.1500"}, {"loss", "0.100"}, {"lr", "3e-4"}}},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.file);
    ProgressTracker tracker;
    auto t = k_t0;
    for (const auto& line : lines_of(sample(c.file))) tracker.feed(line, t += seconds(1));
    const auto v = tracker.view(t);
    ASSERT_TRUE(v);
    EXPECT_EQ(v->percent, c.percent);
    EXPECT_EQ(v->counter, c.counter);
    EXPECT_EQ(v->metrics, c.metrics);
    EXPECT_EQ(v->eta_seconds, 0.0);
    EXPECT_EQ(v->source, "log");
  }
}

TEST(ProgressTracker, HalfWayThroughEachRealLog) {
  struct Case {
    const char* file;
    std::size_t lines;
    std::optional<int> percent;
    const char* counter;
  };
  const Case cases[] = {
      // The Trainer's evaluation bar (5 items) does not take over from its training bar (30).
      {"hf_trainer.log", 8, 66, "20/30"},
      // Lightning's validation bar waits for the epoch's bar to finish, then shows.
      {"lightning_tqdm.log", 1, 100, "Epoch 0 12/12"},
      {"lightning_tqdm.log", 3, 25, "Validation DataLoader 0 1/4"},
      {"printed_loops.log", 2, 33, "epoch 1/2, step 200/300"},
      {"printed_loops.log", 8, 50, "epoch 2/4"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(std::string(c.file) + " " + std::to_string(c.lines));
    ProgressTracker tracker;
    auto t = k_t0;
    const auto lines = lines_of(sample(c.file));
    for (std::size_t i = 0; i < c.lines; ++i) tracker.feed(lines[i], t += seconds(1));
    const auto v = tracker.view(t);
    ASSERT_TRUE(v);
    EXPECT_EQ(v->percent, c.percent);
    EXPECT_EQ(v->counter, c.counter);
  }
}

TEST(ProgressTracker, TheEtaIsTheBarsOwnElseTheRateElseTheRateSinceTheStart) {
  ProgressTracker bar;
  bar.feed("train:  50%|#####     | 10/20 [00:10<00:10, 1.00it/s]", k_t0);
  EXPECT_EQ(bar.view(k_t0 + seconds(4))->eta_seconds, 6.0);
  EXPECT_EQ(bar.view(k_t0 + seconds(40))->eta_seconds, 0.0);

  ProgressTracker rate;
  rate.feed("Epoch 1/4", k_t0);
  rate.feed("Epoch 2/4", k_t0 + seconds(60));
  EXPECT_EQ(rate.view(k_t0 + seconds(60))->eta_seconds, 120.0);
  EXPECT_EQ(rate.view(k_t0 + seconds(90))->eta_seconds, 90.0);

  ProgressTracker since_start;
  since_start.set_start(k_t0);
  since_start.feed("Epoch 1/4", k_t0 + seconds(30));
  EXPECT_EQ(since_start.view(k_t0 + seconds(30))->eta_seconds, 90.0);
  ProgressTracker no_start;
  no_start.feed("Epoch 1/4", k_t0);
  EXPECT_FALSE(no_start.view(k_t0)->eta_seconds);
  EXPECT_EQ(no_start.view(k_t0)->percent, 25);
}

TEST(ProgressPattern, AUsersPatternNamesTheCounter) {
  const auto named = ProgressPattern::compile(R"(done (?P<current>\d+) of (?P<total>\d+))");
  ASSERT_TRUE(named);
  const auto p = named->match("batch done 30 of 120, loss=1.5");
  ASSERT_TRUE(p);
  EXPECT_EQ(p->current, 30);
  EXPECT_EQ(p->total, 120);
  EXPECT_EQ(p->metrics, (std::vector<LineMetric>{{"loss", "1.5"}}));
  EXPECT_FALSE(named->match("nothing here"));
  const auto positional = ProgressPattern::compile(R"(\[(\d+)\|(\d+)\])");
  ASSERT_TRUE(positional);
  EXPECT_EQ(positional->match("[3|4]")->fraction, 0.75);
  const auto percent = ProgressPattern::compile(R"(progress=(?P<percent>[\d.]+))");
  ASSERT_TRUE(percent);
  EXPECT_DOUBLE_EQ(*percent->match("progress=12.5")->fraction, 0.125);
  ProgressTracker tracker(std::make_shared<const ProgressPattern>(*named));
  tracker.feed("Epoch 1/2", k_t0);  // a known shape, but the user's pattern decides
  tracker.feed("done 1 of 4", k_t0);
  EXPECT_EQ(tracker.view(k_t0)->percent, 25);
}

TEST(ProgressPattern, APatternItCannotUseIsAUsageError) {
  EXPECT_EQ(ProgressPattern::compile("(").error().message, "--progress: invalid pattern '(': missing ): (");
  EXPECT_EQ(
      ProgressPattern::compile(R"(step (\d+))").error().message,
      "--progress: the pattern needs two groups, the count done and the total (or named current and total), "
      "or a group named percent");
  EXPECT_EQ(ProgressPattern::compile(std::string(1025, 'a')).error().message,
            "--progress: the pattern is longer than 1024 bytes");
}

TEST(ReportedProgress, TrainerStatusWinsAndItsEtaCountsFromItsUpdate) {
  const nlohmann::json job = nlohmann::json::parse(R"({"kind":"TrainJob","status":{"trainerStatus":{
      "progressPercentage":42,"estimatedRemainingSeconds":120,"lastUpdatedTime":"2027-01-15T08:00:00Z",
      "metrics":[{"name":"loss","value":"0.123"},{"name":"current_step","value":"42"},{"name":"total_steps","value":"100"}]}}})");
  const auto updated = WallTime(std::chrono::duration_cast<WallTime::duration>(
      util::parse_time("2027-01-15T08:00:00Z")->time_since_epoch()));
  const auto v = reported_progress(job, updated + seconds(20));
  ASSERT_TRUE(v);
  EXPECT_EQ(v->percent, 42);
  EXPECT_EQ(v->eta_seconds, 100.0);
  EXPECT_EQ(v->counter, "step 42/100");
  EXPECT_EQ(progress_line(*v), "42%, step 42/100, ETA 100s, loss=0.123 (from trainerStatus)");
  EXPECT_EQ(progress_json(*v)["source"], "trainerStatus");
  const nlohmann::json pytorchjob = {
      {"kind", "PyTorchJob"},
      {"metadata",
       {{"annotations",
         {{"kubectl-pytorch.kubeflow.org/trainer-status",
           R"({"progressPercentage":7,"lastUpdatedTime":"2027-01-15T08:00:00Z"})"}}}}}};
  EXPECT_EQ(reported_progress(pytorchjob, updated)->percent, 7);
  EXPECT_FALSE(reported_progress(nlohmann::json{{"kind", "TrainJob"}}, updated));
}

}  // namespace
}  // namespace kpt::plugin
