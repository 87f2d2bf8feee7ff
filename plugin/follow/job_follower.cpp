#include "plugin/follow/job_follower.hpp"

#include "plugin/follow/follow_output.hpp"
#include "plugin/follow/job_kind.hpp"
#include "plugin/follow/watch_waiter.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <atomic>
#include <map>
#include <memory>
#include <set>

namespace kpt::plugin {

namespace {

using nlohmann::json;
using std::chrono::milliseconds;

const char* const k_colours[] = {"\033[31m", "\033[32m", "\033[33m", "\033[34m", "\033[35m", "\033[36m"};

// Why a job that has no pods after the pending timeout will not get any on its own.
std::string no_pods_reason(const JobKind& kind, const JobView& view, double seconds) {
  if (view.state == "Suspended")
    return fmt::format("{} '{}' is suspended (spec.suspend)", kind.singular, view.name);
  const std::string head =
      fmt::format("{} '{}' has no pods after {:.0f}s", kind.singular, view.name, seconds);
  if (!view.managed_by.empty()) {
    return fmt::format("{}: it is managed by {} (spec.managedBy), which runs it elsewhere", head,
                       view.managed_by);
  }
  const char* who = &kind == &trainjob_kind() ? "are the Trainer and JobSet" : "is the Training Operator";
  return fmt::format("{}: no controller has acted on it ({}, or kubectl pytorch controller, running?)", head,
                     who);
}

// One follow: the state kept between looks at the job, and the steps of each look.
class Follower {
 public:
  Follower(kube::ApiClient& api, const FollowOptions& options, std::ostream& out, std::ostream& err,
           const util::Clock& clock, FollowWaiter& waiter)
      : m_api(api),
        m_options(options),
        m_kind(options.kind != nullptr ? *options.kind : pytorchjob_kind()),
        m_console(out, err, options.live_status && options.progress),
        m_clock(clock),
        m_waiter(waiter),
        m_started(clock.steady_now()) {}

  FollowResult run(const std::atomic<bool>& interrupted) {
    while (true) {
      if (interrupted.load()) return end_with(FollowEnd::interrupted, 130, "interrupted");
      if (m_options.timeout && since_start() >= *m_options.timeout) {
        return end_with(FollowEnd::timeout, 124, fmt::format("timed out after {:.0f}s", elapsed()));
      }
      auto job = m_api.get(m_kind.resource(), m_options.ns, m_options.job);
      if (!job && kube::is_not_found(job.error())) {
        return end_with(FollowEnd::gone, 1,
                        fmt::format("{} '{}' was deleted", m_kind.singular, m_options.job));
      }
      if (job) {  // else transient: the client already retried
        m_last_job = *job;
        if (auto end = decide(look(*job))) return *end;
      }
      m_waiter.wait(m_options.poll);
    }
  }

 private:
  [[nodiscard]] std::chrono::steady_clock::duration since_start() const {
    return m_clock.steady_now() - m_started;
  }
  [[nodiscard]] double elapsed() const { return std::chrono::duration<double>(since_start()).count(); }

  // The job and its pods as one view; starts log tails and reports progress.
  JobView look(const json& job) {
    auto pods = list_job_pods(m_api, m_kind, m_options.ns, m_options.job);
    JobView view = make_job_view(job, pods ? pods->items : std::vector<json>{});
    if (!view.replicas.empty()) m_last_replicas = view.replicas;
    m_result.last = view;
    if (m_options.logs) start_tails(view);
    if (pods) m_first_look = false;
    if (m_options.progress) {
      const auto& suffix = m_options.hooks.status_suffix;
      m_console.status(status_line(view) + (suffix ? suffix(job, view) : std::string()));
      for (const auto& [key, text] : notable_states(view)) {
        if (m_seen_notes.insert(key).second) m_console.note("note: " + text);
      }
      report_events();
    }
    return view;
  }

  // A tail per container run: a restart gets its own.
  void start_tails(const JobView& view) {
    for (const auto& r : view.replicas) {
      if (!r.started || (!m_options.replica.empty() && m_options.replica != r.role)) continue;
      if (!r.waiting_reason.empty()) continue;  // in back-off: the next run gets its own tail
      const std::string key = r.uid + "/" + std::to_string(r.restarts);
      if (m_tails.count(key) != 0) continue;
      std::string path = kube::resources::pods().object_path(m_options.ns, r.pod, "log") +
                         "?container=" + r.container + "&follow=true";
      // --tail cuts what was written before the follow began; a run that starts later is new output.
      if (m_options.tail >= 0 && m_first_look) path += "&tailLines=" + std::to_string(m_options.tail);
      m_tails.emplace(key, std::make_unique<LogTail>(
                               m_api, m_console, path, log_prefix(r, m_options.colour),
                               [this] { m_waiter.notify(); }, r.rank == 0 ? rank0_hook() : nullptr));
    }
  }

  // Rank 0's lines to the hook; with a status suffix (the progress), also a look at most every
  // 2 s, so that the line moves with the log and not only with the job's events.
  std::function<void(std::string_view)> rank0_hook() {
    if (!m_options.hooks.rank0_line) return nullptr;
    if (!m_options.hooks.status_suffix) return m_options.hooks.rank0_line;
    return [this](std::string_view line) {
      m_options.hooks.rank0_line(line);
      const auto now = m_clock.steady_now().time_since_epoch().count();
      auto last = m_last_nudge.load();
      if (now - last >= std::chrono::steady_clock::duration(std::chrono::seconds(2)).count() &&
          m_last_nudge.compare_exchange_strong(last, now))
        m_waiter.notify();
    };
  }

  // The job's and its pods' Warning events, each once.
  void report_events() {
    kube::ListOptions ev_opts;
    ev_opts.field_selector = "type=Warning";
    auto events = m_api.list(kube::resources::events(), m_options.ns, ev_opts);
    if (!events) return;
    for (const auto& e : events->items) {
      const std::string obj = e.value("/involvedObject/name"_json_pointer, std::string{});
      if (obj != m_options.job && obj.rfind(m_options.job + "-", 0) != 0) continue;
      const std::string key =
          e.value("/metadata/uid"_json_pointer, std::string{}) + "/" + std::to_string(e.value("count", 1));
      if (m_seen_events.insert(key).second) {
        m_console.note(
            fmt::format("warning: {}: {}: {}", obj, e.value("reason", ""), e.value("message", "")));
      }
    }
  }

  // The end of the follow, when this view is one.
  std::optional<FollowResult> decide(const JobView& view) {
    if (view.finished) return finished(view);
    if (auto stall = fatal_stall(view)) {
      m_waiter.wait(milliseconds(300));  // let the tails print what the process said before it gave up
      return end_with(FollowEnd::stuck, 1, *stall);
    }
    if (since_start() < m_options.pending_timeout) return std::nullopt;
    if (view.replicas.empty()) return end_with(FollowEnd::stuck, 1, no_pods_reason(m_kind, view, elapsed()));
    for (const auto& r : view.replicas) {
      if (!r.started) {
        return end_with(FollowEnd::stuck, 1,
                        fmt::format("{} has not started after {:.0f}s{}", r.pod, elapsed(),
                                    r.unschedulable.empty() ? "" : ": " + r.unschedulable));
      }
    }
    return std::nullopt;
  }

  // A finished job ends the follow once its logs are drained (or after options.drain).
  std::optional<FollowResult> finished(JobView view) {
    // A Job that gives up deletes its pods that were still restarting in place: the verdict and
    // the summary then come from the pods as last seen.
    if (view.replicas.empty()) view.replicas = m_last_replicas;
    if (!m_finished_at) m_finished_at = m_clock.steady_now();
    bool all_done = true;
    for (const auto& [key, tail] : m_tails) all_done = all_done && tail->done();
    if (!all_done && m_clock.steady_now() - *m_finished_at < m_options.drain) return std::nullopt;
    const int code = exit_code_for(view);
    // A job followed after it started (logs -f) ran longer than this follow: its status says how long.
    if (m_options.progress)
      m_console.note(summary_line(view, std::max(elapsed(), view.ran_for.value_or(0.0))));
    if (m_options.progress && m_options.hooks.final_line) {
      if (const auto line = m_options.hooks.final_line(m_last_job, view); !line.empty()) m_console.note(line);
    }
    return end_with(view.succeeded ? FollowEnd::succeeded : FollowEnd::failed, code, view.message);
  }

  FollowResult end_with(FollowEnd end, int code, std::string message) {
    m_result.end = end;
    m_result.exit_code = code;
    m_result.message = std::move(message);
    for (auto& [key, tail] : m_tails) tail->cancel();
    m_tails.clear();
    m_console.finish();
    return m_result;
  }

  kube::ApiClient& m_api;
  const FollowOptions& m_options;
  const JobKind& m_kind;
  Console m_console;
  const util::Clock& m_clock;
  FollowWaiter& m_waiter;
  // When rank0_hook last asked for a look (set on the tails' threads; declared before them).
  std::atomic<std::chrono::steady_clock::rep> m_last_nudge{0};
  const std::chrono::steady_clock::time_point m_started;
  std::map<std::string, std::unique_ptr<LogTail>> m_tails;  // key: pod uid / run index
  bool m_first_look = true;                                 // the pods' runs seen now began before the follow
  std::set<std::string> m_seen_notes;
  std::set<std::string> m_seen_events;
  std::optional<std::chrono::steady_clock::time_point> m_finished_at;
  std::vector<ReplicaView> m_last_replicas;  // of the latest look that found pods
  FollowResult m_result;
  json m_last_job;  // as last read, for the final hook
};

}  // namespace

std::string log_prefix(const ReplicaView& replica, bool colour) {
  const std::string text = replica.rank >= 0 ? fmt::format("[{} r{}] ", replica.role, replica.rank)
                                             : fmt::format("[{}] ", replica.role);
  if (!colour) return text;
  std::uint32_t h = 2166136261u;  // FNV-1a: the same pod always gets the same colour
  for (unsigned char c : replica.pod) h = (h ^ c) * 16777619u;
  return std::string(k_colours[h % 6]) + text + "\033[0m";
}

FollowResult follow_job(kube::ApiClient& api, const FollowOptions& options, std::ostream& out,
                        std::ostream& err, const std::atomic<bool>& interrupted) {
  const util::RealClock real_clock;
  const util::Clock& clock = options.clock != nullptr ? *options.clock : real_clock;
  if (options.waiter != nullptr)
    return Follower(api, options, out, err, clock, *options.waiter).run(interrupted);
  const JobKind& kind = options.kind != nullptr ? *options.kind : pytorchjob_kind();
  WatchWaiter watcher(api, options.ns, follow_targets(kind.resource(), options.job, kind.pod_label),
                      &interrupted);
  return Follower(api, options, out, err, clock, watcher).run(interrupted);
}

}  // namespace kpt::plugin
