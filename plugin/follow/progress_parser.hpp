#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace kpt::plugin {

/// A metric as a line printed it: name and value text ("loss", "0.123").
using LineMetric = std::pair<std::string, std::string>;

/// What one line of rank 0's log says about the training's progress.
struct LineProgress {
  std::int64_t current = 0;
  std::int64_t total = 0;           ///< 0: no counter on the line (metrics only)
  std::string unit;                 ///< "step", "epoch", "it" (a progress bar's items)
  std::string label;                ///< a bar's description: "train", "Epoch 1"; "" when none
  std::optional<double> fraction;   ///< of the whole run, when the line says more than its counter
                                    ///< ("Epoch [1/2], Step [100/300]": 1/6)
  std::optional<double> remaining;  ///< seconds, the bar's own estimate (tqdm's "<00:36")
  std::vector<LineMetric> metrics;
  std::string shape;  ///< "tqdm", "epoch", "step", "epoch-step", "metrics", "pattern"
};

/// The longest text a line is read over: the rest is cut, so a hostile log costs little.
inline constexpr std::size_t k_max_progress_line = 4096;

/// What a terminal would show of a raw log line: the last part after a carriage return that has
/// visible text (a tqdm bar redraws itself with `\r`), escape sequences removed, at most
/// k_max_progress_line bytes.
std::string visible_text(std::string_view raw);

/// Reads a line in the shapes training loops print: tqdm bars (a plain loop's, the Hugging Face
/// Trainer's, Lightning's "Epoch N" bars with their metrics), "Epoch 2/4", "step 450/1000",
/// "Epoch [1/5], Step [100/600], Loss: 0.23", and metrics lines (the Trainer's
/// "{'loss': 0.69, ...}", "loss=0.4 lr=3e-4"). Nothing for a line that says none of it.
std::optional<LineProgress> parse_progress_line(std::string_view raw);

/// Seconds of a tqdm time: "00:36", "1:02:03", "2d, 01:00:00"; nothing for "?" or garbage.
std::optional<double> parse_clock(std::string_view text);

}  // namespace kpt::plugin
