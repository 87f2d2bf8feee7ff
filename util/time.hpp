#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <string_view>

namespace kpt::util {

/// Wall-clock time at second resolution, as Kubernetes stores it (RFC 3339, UTC).
using Time = std::chrono::sys_seconds;

/// "2026-11-29T18:45:00Z".
std::string format_time(Time t);
/// Parses "YYYY-MM-DDTHH:MM:SS[.frac](Z|+hh:mm|-hh:mm)"; nullopt when malformed.
std::optional<Time> parse_time(std::string_view text);
/// The system clock now, formatted as format_time does.
std::string now_rfc3339();

/// Parses a kubectl-style duration ("30s", "5m", "1h30m", "250ms", bare "10" = seconds).
/// Returns milliseconds, or nothing when the text is not a duration.
std::optional<long long> parse_duration_ms(std::string_view text);

/// An age as `kubectl get` prints it (apimachinery's duration.HumanDuration): "45s", "5m30s",
/// "3h", "2d4h", "400d". A negative age (clock skew) prints as "0s".
std::string format_age(std::chrono::seconds age);

}  // namespace kpt::util
