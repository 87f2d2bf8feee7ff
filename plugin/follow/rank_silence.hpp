#pragma once

#include <chrono>
#include <optional>
#include <string_view>

namespace kpt::plugin {

using WallTime = std::chrono::system_clock::time_point;

/// The time a `timestamps=true` log line begins with ("2026-12-01T10:00:03.123456789Z text"),
/// to the second, or nothing when the line has none.
std::optional<WallTime> line_timestamp(std::string_view line);

/// The line without its timestamp (the line itself when it has none).
std::string_view without_timestamp(std::string_view line);

/// How long a rank has been silent at `now`: since its last output, or, when it printed nothing
/// in its current run, since that run started; nothing when neither is known. Never negative
/// (clocks of different machines).
std::optional<std::chrono::seconds> output_age(std::optional<WallTime> last_output,
                                               std::optional<WallTime> run_started, WallTime now);

}  // namespace kpt::plugin
