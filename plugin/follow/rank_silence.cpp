#include "plugin/follow/rank_silence.hpp"

#include "util/time.hpp"

namespace kpt::plugin {

std::optional<WallTime> line_timestamp(std::string_view line) {
  const auto space = line.find(' ');
  const std::string_view stamp = line.substr(0, space);
  if (stamp.size() < 20 || stamp[4] != '-' || stamp[10] != 'T') return std::nullopt;
  const auto t = util::parse_time(stamp);
  if (!t) return std::nullopt;
  return WallTime(*t);
}

std::string_view without_timestamp(std::string_view line) {
  if (!line_timestamp(line)) return line;
  const auto space = line.find(' ');
  return space == std::string_view::npos ? std::string_view() : line.substr(space + 1);
}

std::optional<std::chrono::seconds> output_age(std::optional<WallTime> last_output,
                                               std::optional<WallTime> run_started, WallTime now) {
  const std::optional<WallTime> since = last_output ? last_output : run_started;
  if (!since) return std::nullopt;
  if (*since >= now) return std::chrono::seconds(0);
  return std::chrono::duration_cast<std::chrono::seconds>(now - *since);
}

}  // namespace kpt::plugin
