#include "plugin/follow/progress_hook.hpp"

namespace kpt::plugin {

std::optional<ProgressView> RunProgress::now(const nlohmann::json& job) {
  const WallTime t = std::chrono::system_clock::now();
  if (auto reported = reported_progress(job, t)) return reported;
  std::lock_guard lock(m_mutex);
  return m_tracker.view(t);
}

FollowHooks RunProgress::hooks(bool live) {
  FollowHooks h;
  h.rank0_line = [this](std::string_view line) {
    std::lock_guard lock(m_mutex);
    m_tracker.feed(line, std::chrono::system_clock::now());
  };
  if (live) {
    h.status_suffix = [this](const nlohmann::json& job, const JobView&) {
      const auto p = now(job);
      return p && (p->percent || !p->metrics.empty()) ? " | " + progress_line(*p, 2) : std::string();
    };
  }
  h.final_line = [this](const nlohmann::json& job, const JobView& view) {
    auto p = now(job);
    if (!p) return std::string();
    if (view.finished) p->eta_seconds.reset();  // a job that ended has no time left, whatever its pace said
    return "progress: " + progress_line(*p, 8);
  };
  return h;
}

}  // namespace kpt::plugin
