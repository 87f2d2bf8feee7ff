#include "plugin/follow/job_progress.hpp"

#include "util/time.hpp"

#include <nlohmann/json.hpp>

namespace kpt::plugin {

namespace {

constexpr int k_tail_lines = 200;
constexpr long k_limit_bytes = 4L << 20;

std::string log_path(const std::string& ns, const ReplicaView& r, const std::string& query) {
  return kube::resources::pods().object_path(ns, r.pod, "log") + "?container=" + r.container +
         "&timestamps=true" + query;
}

std::optional<WallTime> wall_time(const std::string& rfc3339) {
  const auto t = util::parse_time(rfc3339);
  if (!t) return std::nullopt;
  return WallTime(std::chrono::duration_cast<WallTime::duration>(t->time_since_epoch()));
}

}  // namespace

std::pair<std::optional<WallTime>, std::string_view> split_log_timestamp(std::string_view line) {
  // "2026-12-06T10:00:00.123456789Z text": the kubelet's RFC 3339 with nanoseconds, then a space.
  const auto space = line.find(' ');
  if (space < 20 || space > 40 || line[4] != '-' || line[10] != 'T') return {std::nullopt, line};
  const auto t = util::parse_time(line.substr(0, space));
  if (!t) return {std::nullopt, line};
  auto at = WallTime(std::chrono::duration_cast<WallTime::duration>(t->time_since_epoch()));
  // parse_time keeps whole seconds: the fraction, for rates over short runs.
  const auto dot = line.find('.');
  if (dot != std::string_view::npos && dot < space) {
    double fraction = 0;
    double scale = 0.1;
    for (auto i = dot + 1; i < space && line[i] >= '0' && line[i] <= '9'; ++i, scale /= 10)
      fraction += (line[i] - '0') * scale;
    at += std::chrono::duration_cast<WallTime::duration>(std::chrono::duration<double>(fraction));
  }
  return {at, line.substr(space + 1)};
}

const ReplicaView* rank_zero(const JobView& view) {
  for (const auto& r : view.replicas) {
    if (r.rank == 0 && r.started) return &r;
  }
  return nullptr;
}

std::optional<ProgressView> job_progress(kube::ApiClient& api, const nlohmann::json& job, const JobView& view,
                                         WallTime now) {
  if (auto reported = reported_progress(job, now)) return reported;
  const ReplicaView* r = rank_zero(view);
  if (r == nullptr) return std::nullopt;
  auto text = api.get_raw(log_path(
      view.ns, *r,
      "&tailLines=" + std::to_string(k_tail_lines) + "&limitBytes=" + std::to_string(k_limit_bytes)));
  if (!text) return std::nullopt;
  ProgressTracker tracker;
  if (const auto started = wall_time(r->started_at)) tracker.set_start(*started);
  std::size_t start = 0;
  while (start < text->size()) {
    const auto nl = text->find('\n', start);
    const std::string_view line(text->data() + start, (nl == std::string::npos ? text->size() : nl) - start);
    const auto [at, rest] = split_log_timestamp(line);
    // Without timestamps every line reads as written now: the rate is then the one since the start.
    tracker.feed(rest, at.value_or(now));
    if (nl == std::string::npos) break;
    start = nl + 1;
  }
  return tracker.view(now);
}

std::optional<WallTime> last_output(kube::ApiClient& api, const std::string& ns, const ReplicaView& replica) {
  if (!replica.started) return std::nullopt;
  auto text = api.get_raw(log_path(ns, replica, "&tailLines=1&limitBytes=65536"));
  if (!text || text->empty()) return std::nullopt;
  return split_log_timestamp(*text).first;
}

}  // namespace kpt::plugin
