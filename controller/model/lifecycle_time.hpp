#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <string_view>

namespace kpt::model {

/// Wall-clock time at second resolution, as Kubernetes stores it (RFC 3339, UTC).
using Time = std::chrono::sys_seconds;

/// "2026-11-29T18:45:00Z".
std::string format_time(Time t);
/// Parses "YYYY-MM-DDTHH:MM:SS[.frac](Z|+hh:mm|-hh:mm)"; nullopt when malformed.
std::optional<Time> parse_time(std::string_view text);

}  // namespace kpt::model
