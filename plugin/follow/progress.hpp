#pragma once

#include "plugin/follow/progress_parser.hpp"
#include "util/expected.hpp"

#include <nlohmann/json_fwd.hpp>

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace re2 {
class RE2;
}

namespace kpt::plugin {

using WallTime = std::chrono::system_clock::time_point;

/// `run --progress REGEX`: a pattern of the user's for lines no known shape matches. Its groups
/// say what it read: `(?P<current>..)` and `(?P<total>..)` (else the first two groups), or
/// `(?P<percent>..)`. RE2: the match costs time linear in the line, whatever the pattern.
class ProgressPattern {
 public:
  /// Errors: a pattern RE2 refuses, over 1,024 bytes, or without the groups.
  static Expected<ProgressPattern> compile(const std::string& pattern);
  /// The counter (shape "pattern") of a line the pattern finds in, else nothing.
  std::optional<LineProgress> match(std::string_view raw_line) const;

 private:
  std::shared_ptr<const re2::RE2> m_re;
  int m_current = 0;  ///< group numbers; 0: absent
  int m_total = 0;
  int m_percent = 0;
};

/// Progress as `status` and `run` show it.
struct ProgressView {
  std::optional<int> percent;
  std::optional<double> eta_seconds;  ///< from now
  std::string source;                 ///< "trainerStatus" or "log"
  std::string counter;                ///< "step 450/1000", "epoch 2/4", "train 12/20"
  std::vector<LineMetric> metrics;
  std::string updated;  ///< trainerStatus.lastUpdatedTime

  /// "from trainerStatus" or "from rank 0's log".
  [[nodiscard]] std::string source_text() const;
};

/// Progress read from rank 0's lines as they come: the counter of the run (a bar of a smaller
/// total, such as an evaluation's, does not take over while the main one runs), the latest
/// metrics, and the ETA: the bar's own estimate, else the rate over the counter's points (else
/// since `start`, the container's start, when there is one point only).
class ProgressTracker {
 public:
  /// With `pattern`, only the lines it matches count as counters.
  explicit ProgressTracker(std::shared_ptr<const ProgressPattern> pattern = nullptr);
  void set_start(WallTime start) { m_start = start; }
  void feed(std::string_view raw_line, WallTime when);
  [[nodiscard]] std::optional<ProgressView> view(WallTime now) const;

 private:
  struct Point {
    WallTime at;
    double fraction;
  };
  struct Series {
    std::string key;  ///< shape, unit, label and total: which counter
    LineProgress last;
    std::vector<Point> points;  ///< the first, then the latest (bounded)
  };
  void take(const LineProgress& p, WallTime when);

  std::shared_ptr<const ProgressPattern> m_pattern;
  std::optional<Series> m_main;
  std::vector<LineMetric> m_metrics;
  std::optional<WallTime> m_start;
};

/// What the job's trainer reported (Trainer's progress protocol): a TrainJob's status.trainerStatus,
/// a PyTorchJob's annotation of ours; the ETA counted from its lastUpdatedTime to `now`.
std::optional<ProgressView> reported_progress(const nlohmann::json& job, WallTime now);

/// "42%", or "-".
std::string percent_cell(const std::optional<ProgressView>& view);
/// "2m10s" (kubectl's age format), or "-".
std::string eta_cell(const std::optional<ProgressView>& view);
/// "42%, step 450/1000, ETA 36s, loss=0.123 (from rank 0's log)": `run`'s progress line.
std::string progress_line(const ProgressView& view, std::size_t max_metrics = 3);
/// `status -o json`'s `progress` object: percent, etaSeconds, source, counter, metrics, updated.
nlohmann::json progress_json(const ProgressView& view);

}  // namespace kpt::plugin
