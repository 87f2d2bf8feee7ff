#include "plugin/follow/job_follower.hpp"

#include "model/k8s/object_meta.hpp"
#include "plugin/follow/crash_loop.hpp"
#include "plugin/follow/diagnosis_gather.hpp"
#include "plugin/follow/diagnosis_output.hpp"
#include "plugin/follow/follow_output.hpp"
#include "plugin/follow/job_kind.hpp"
#include "plugin/follow/watch_waiter.hpp"
#include "util/json_access.hpp"
#include "util/messages.hpp"
#include "util/strings.hpp"
#include "util/time.hpp"

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
using SteadyTime = std::chrono::steady_clock::time_point;

// How often the log of a run that has ended is asked for again when asking failed.
constexpr int k_unread_retries = 5;
// How long a new run's log waits for the run before it to be printed in full.
constexpr std::chrono::seconds k_previous_run_wait{3};
// How long a crash loop that the job's backoffLimit ends at its next restart is followed to that
// end: the kubelet's longest back-off between restarts.
constexpr std::chrono::minutes k_backoff_end_wait{5};

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

std::string who(const ReplicaView& r) {
  return r.rank >= 0 ? fmt::format("{} (rank {})", r.role, r.rank) : r.role;
}

// One followed run of a pod's container.
struct Tail {
  std::unique_ptr<LogTail> log;
  std::string uid;
  std::string pod;
  std::string role;
  int restart = 0;
  SteadyTime started{};                  // when the follow began to tail it
  bool accounted = false;                // its end was looked at for the crash-loop count
  std::optional<SteadyTime> warned_for;  // the silence a stall warning was printed for
  bool unread_said = false;              // its log's last read failed, and the follow said so
};

// A pod created again under its name while followed: the old one as last seen.
struct ReplacedPod {
  json pod;
  std::chrono::system_clock::time_point last_seen;  // the look that last listed it
};

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
        m_job = *job;
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
    if (!view.replicas.empty()) {
      m_last_replicas = view.replicas;
      m_last_pods = pods->items;
      if (view.finished) keep_end_runs();
    }
    if (pods) remember_pods(pods->items);
    m_result.last = view;
    if (m_options.logs) {
      settle_tails(view);
      start_tails(view);
    }
    if (pods) m_first_look = false;
    if (m_options.progress) {
      const auto& suffix = m_options.hooks.status_suffix;
      m_console.status(status_line(view) + (suffix ? suffix(job, view) : std::string()));
      // Once the job has ended, pods that restart in place are not its run any more: the verdict
      // speaks for them.
      if (!view.finished) {
        for (const auto& [key, text] : notable_states(view)) {
          if (m_seen_notes.insert(key).second) m_console.note(util::message_text(util::Severity::note, text));
        }
      }
      report_events();
    }
    return view;
  }

  // Every pod of the job as last seen; one created again under a name already seen replaced the
  // old one, whose last run the new pod no longer shows.
  void remember_pods(const std::vector<json>& pods) {
    const auto now = m_clock.now();
    for (const auto& pod : pods) {
      const std::string name = model::k8s::name_of(pod);
      const auto seen = m_seen_pods.find(name);
      if (seen != m_seen_pods.end() && model::k8s::uid_of(seen->second) != model::k8s::uid_of(pod))
        m_replaced.push_back(ReplacedPod{seen->second, m_seen_at[name]});
      m_seen_pods[name] = pod;
      m_seen_at[name] = now;
    }
  }

  // A tail per container run: a restart gets its own, after a separator line.
  void start_tails(const JobView& view) {
    for (const auto& r : view.replicas) {
      if (!r.started || !selected(r, m_options.replica, m_options.rank)) continue;
      // A container in back-off still serves the run that ended (as kubectl logs shows it): a run
      // that began and ended between two looks is read then, not lost.
      if (started_after_end(view, r)) continue;
      const std::string key = r.uid + "/" + std::to_string(r.restarts);
      if (m_tails.count(key) != 0 || !previous_run_printed(r)) continue;
      std::string path = kube::resources::pods().object_path(m_options.ns, r.pod, "log") +
                         "?container=" + r.container + "&follow=true";
      // --tail and --since cut what was written before the follow began; a later run is new output.
      if (m_first_look) {
        if (m_options.tail >= 0) path += "&tailLines=" + std::to_string(m_options.tail);
        if (m_options.since_seconds) path += "&sinceSeconds=" + std::to_string(*m_options.since_seconds);
      }
      if (m_options.timestamps) path += "&timestamps=true";
      if (r.restarts > 0 && !m_first_look) m_console.log_line(attempt_separator(r));
      if (r.restarts == 0 && replaces_a_followed_pod(r))
        m_console.log_line(fmt::format("--- {}: a new pod (the one before was deleted) ---", r.role));
      LogTail::Options tail;
      tail.path = std::move(path);
      tail.prefix = log_prefix(r, m_options.colour);
      tail.filter = m_options.filter;
      tail.on_change = [this] { m_waiter.notify(); };
      if (r.rank == 0) tail.on_line = rank0_hook();
      tail.clock = &m_clock;
      tail.timestamps = m_options.timestamps;
      Tail t;
      t.uid = r.uid;
      t.pod = r.pod;
      t.role = r.role;
      t.restart = r.restarts;
      t.started = m_clock.steady_now();
      t.log = std::make_unique<LogTail>(m_api, m_console, std::move(tail));
      m_tails.emplace(key, std::move(t));
    }
  }

  // A pod created again under the name of one whose log was followed.
  bool replaces_a_followed_pod(const ReplicaView& r) const {
    return std::any_of(m_tails.begin(), m_tails.end(), [&](const auto& entry) {
      return entry.second.pod == r.pod && entry.second.uid != r.uid;
    });
  }

  // Whether the pod's earlier run has printed all it will (its tail is done), so that the new
  // run's separator and lines come after it; after k_previous_run_wait they come anyway.
  bool previous_run_printed(const ReplicaView& r) {
    for (const auto& [key, t] : m_tails) {
      if (t.uid != r.uid || t.restart >= r.restarts || t.log->done()) continue;
      const std::string seen = r.uid + "/" + std::to_string(r.restarts);
      const auto first = m_waiting_since.emplace(seen, m_clock.steady_now()).first->second;
      return m_clock.steady_now() - first >= k_previous_run_wait;
    }
    return true;
  }

  // A tail whose stream ended goes on while its run does (the stream was cut), else it is done;
  // a failed run is counted towards a crash loop.
  void settle_tails(const JobView& view) {
    for (auto& [key, t] : m_tails) {
      const ReplicaView* r = find_replica(view, t.uid);
      const bool runs_on = r != nullptr && r->restarts == t.restart && r->running && !view.finished;
      // A log that could not be read is read again while it is still this run's (it ran and
      // ended, and did not restart): a few times, then the loss is said.
      const bool unread = r != nullptr && r->restarts == t.restart && !t.log->error().empty() &&
                          t.log->reopens() < k_unread_retries;
      if (t.log->ended()) {
        if (runs_on || unread) {
          t.log->resume();
        } else {
          say_unread(t);
          t.log->finish();
        }
      }
      if (t.log->done() && !t.accounted && r != nullptr) {
        const bool restarted = r->restarts > t.restart;
        const bool failed = r->exit_code && *r->exit_code != 0 && (restarted || !r->running);
        if (!failed) continue;
        t.accounted = true;
        const int repeats = m_crash_loops.record(t.role, failure_signature(t.log->lines(), *r->exit_code));
        if (repeats > m_loop.repeats) m_loop = {repeats, r->role, r->rank};
      }
    }
  }

  // A log that could not be read is said, not lost silently: once, with why.
  void say_unread(Tail& t) {
    const std::string error = t.log->error();
    if (error.empty() || t.unread_said || !m_options.progress) return;
    t.unread_said = true;
    m_console.note(util::message_text(util::Severity::warning,
                                      fmt::format("{}: its log could not be read: {}", t.pod, error)));
  }

  static const ReplicaView* find_replica(const JobView& view, const std::string& uid) {
    for (const auto& r : view.replicas) {
      if (r.uid == uid) return &r;
    }
    return nullptr;
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
    for (const auto& e : job_warning_events(m_api, m_options.ns, m_job)) {
      const std::string obj = e.value("/involvedObject/name"_json_pointer, std::string{});
      const std::string key =
          e.value("/metadata/uid"_json_pointer, std::string{}) + "/" + std::to_string(e.value("count", 1));
      if (m_seen_events.insert(key).second) {
        m_console.note(util::message_text(
            util::Severity::warning,
            fmt::format("{}: {}: {}", obj, util::string_at(e, "reason"), util::string_at(e, "message"))));
      }
    }
  }

  // The end of the follow, when this view is one.
  std::optional<FollowResult> decide(const JobView& view) {
    if (view.finished) return finished(view);
    if (m_options.crash_loop_repeats > 0 && m_loop.repeats >= m_options.crash_loop_repeats) {
      if (backoff_ends_loop()) return std::nullopt;
      m_diagnosis = diagnosis(m_loop.repeats);
      return end_with(FollowEnd::crash_loop, 1,
                      fmt::format("{} failed the same way {} times in a row{}", m_loop.role, m_loop.repeats,
                                  m_diagnosis->backoff ? "" : ": the job would restart forever"));
    }
    if (auto stall = fatal_stall(view)) {
      m_waiter.wait(milliseconds(300));  // let the tails print what the process said before it gave up
      m_diagnosis = diagnosis(0);
      return end_with(FollowEnd::stuck, 1, *stall);
    }
    if (auto silent = check_silence(view)) return silent;
    if (since_start() < m_options.pending_timeout) return std::nullopt;
    if (view.replicas.empty()) return end_with(FollowEnd::stuck, 1, no_pods_reason(m_kind, view, elapsed()));
    for (const auto& r : view.replicas) {
      if (!r.started) {
        m_diagnosis = diagnosis(0);
        return end_with(FollowEnd::stuck, 1,
                        fmt::format("{} has not started after {:.0f}s{}", r.pod, elapsed(),
                                    r.unschedulable.empty() ? "" : ": " + r.unschedulable));
      }
    }
    return std::nullopt;
  }

  // A crash loop that the job's backoffLimit ends at its next restart (or now) is followed to its end,
  // for as long as the kubelet may wait before that restart: the verdict is then the job's own.
  bool backoff_ends_loop() {
    const auto budget = backoff_budget(m_job, m_last_pods);
    if (!budget || budget->left() > 1) return false;
    const auto now = m_clock.steady_now();
    if (!m_loop_end_awaited) {
      m_loop_end_awaited = now;
      if (m_options.progress) {
        m_console.note(util::message_text(
            util::Severity::note,
            fmt::format("{} failed the same way {} times; {}: following the job to its end", m_loop.role,
                        m_loop.repeats, backoff_end(*budget))));
      }
    }
    return now - *m_loop_end_awaited < k_backoff_end_wait;
  }

  // A running rank silent for the stall timeout: a warning once per silence, or (stall_ends)
  // the end of the follow.
  std::optional<FollowResult> check_silence(const JobView& view) {
    const auto now = m_clock.steady_now();
    std::vector<std::string> silent;
    for (auto& [key, t] : m_tails) {
      const ReplicaView* r = find_replica(view, t.uid);
      if (r == nullptr || !r->running || r->restarts != t.restart || t.log->done()) continue;
      const SteadyTime last = t.log->last_line_at().value_or(t.started);
      if (now - last < m_options.stall_timeout) continue;
      if (!m_options.stall_ends && t.warned_for == last) continue;
      t.warned_for = last;
      silent.push_back(
          fmt::format("{} has printed nothing for {}", who(*r),
                      util::format_age(std::chrono::duration_cast<std::chrono::seconds>(now - last))));
    }
    if (silent.empty()) return std::nullopt;
    const std::string what = util::join(silent, "; ");
    if (!m_options.stall_ends) {
      if (m_options.progress) {
        m_console.note(util::message_text(
            util::Severity::warning,
            what + " (--stall-timeout " +
                util::format_age(std::chrono::duration_cast<std::chrono::seconds>(m_options.stall_timeout)) +
                ")"));
        for (const auto& line : others_lines(view)) m_console.note(line);
      }
      return std::nullopt;
    }
    m_diagnosis = diagnosis(0);
    return end_with(FollowEnd::stalled, 1, what);
  }

  // The other ranks' last lines, for a stall warning.
  std::vector<std::string> others_lines(const JobView& view) {
    std::vector<std::string> out;
    const auto now = m_clock.steady_now();
    for (const auto& [key, t] : m_tails) {
      const ReplicaView* r = find_replica(view, t.uid);
      if (r == nullptr || r->restarts != t.restart || !r->running) continue;
      const auto last = t.log->last_line_at();
      const auto lines = t.log->lines();
      const auto age = std::chrono::duration_cast<std::chrono::seconds>(now - last.value_or(t.started));
      out.push_back(
          fmt::format("  {} {} ago: {}", who(*r), util::format_age(age),
                      lines.empty() ? std::string("no output yet") : util::quote(lines.back(), 120)));
    }
    return out;
  }

  // Once the job has finished, a pod that restarts in place (cleanPodPolicy None) runs again, and
  // that run is not the job's: such a pod keeps, for the verdict, its state of the first look that
  // saw the job finished (its restart count, the failed run as its last state).
  void keep_end_runs() {
    if (!m_end_runs) {
      m_end_runs.emplace();
      for (const auto& r : m_last_replicas) {
        for (const auto& pod : m_last_pods) {
          if (model::k8s::name_of(pod) == r.pod) m_end_runs->emplace(r.pod, EndRun{r, pod});
        }
      }
      return;
    }
    for (auto& r : m_last_replicas) {
      const auto end = m_end_runs->find(r.pod);
      if (end == m_end_runs->end() || r.restarts <= end->second.replica.restarts) continue;
      r = end->second.replica;
      for (auto& pod : m_last_pods) {
        if (model::k8s::name_of(pod) == r.pod) pod = end->second.pod;
      }
    }
  }

  // What the follow saw, as the diagnosis reads it: the last pods, their events, each run's lines.
  Diagnosis diagnosis(int repeats) {
    DiagnosisInput in;
    in.job = m_job;
    in.pods = m_last_pods;
    // A finished job's pods deleted before the follow saw them end: as last seen, their logs say why.
    if (m_finished_at) {
      for (const auto& seen : m_seen_pods) {
        const std::string& name = seen.first;  // clang 14 captures no structured binding
        const bool listed = std::any_of(in.pods.begin(), in.pods.end(),
                                        [&](const json& p) { return model::k8s::name_of(p) == name; });
        if (listed) continue;
        in.pods.push_back(seen.second);
        in.deleted.push_back(name);
      }
    }
    in.events = job_warning_events(m_api, m_options.ns, m_job);
    in.now = m_clock.now();
    in.silence = std::chrono::duration_cast<std::chrono::seconds>(m_options.stall_timeout);
    in.crash_loop_repeats = repeats;
    in.step = m_options.step;
    const auto steady_now = m_clock.steady_now();
    // Per pod: the run of its restart count as last seen is the current log, the one before it the
    // previous (a run that began after the job ended has no tail: the failed run is then the previous).
    std::map<std::string, int> restarts;
    std::map<std::string, std::string> uids;  // a replaced pod's tails are not its successor's runs
    for (const auto& r : m_last_replicas) {
      restarts[r.pod] = r.restarts;
      uids[r.pod] = r.uid;
    }
    std::map<std::string, std::vector<const Tail*>> runs;
    for (const auto& [key, t] : m_tails) {
      const auto uid = uids.find(t.pod);
      if (uid == uids.end() || uid->second == t.uid) runs[t.pod].push_back(&t);
    }
    for (auto& [pod, list] : runs) {
      std::sort(list.begin(), list.end(),
                [](const Tail* a, const Tail* b) { return a->restart < b->restart; });
      const auto seen = restarts.find(pod);
      const int current = seen != restarts.end() ? seen->second : list.back()->restart;
      for (const Tail* run : list) {
        const Tail& t = *run;
        if (t.restart < current - 1 || t.restart > current) continue;
        RunLog log{pod, t.restart < current, t.log->lines(), std::nullopt};
        log.last_output = in.now - (steady_now - t.log->last_line_at().value_or(t.started));
        in.logs.push_back(std::move(log));
      }
    }
    for (const auto& old : m_replaced) in.replaced.push_back(replaced_run(old, in.now, steady_now));
    return diagnose(in);
  }

  // A replaced pod's last run, from its latest tail.
  ReplacedRun replaced_run(const ReplacedPod& old, std::chrono::system_clock::time_point now,
                           SteadyTime steady_now) const {
    const std::string uid = model::k8s::uid_of(old.pod);
    const Tail* last = nullptr;
    for (const auto& [key, t] : m_tails) {
      if (t.uid == uid && (last == nullptr || t.restart > last->restart)) last = &t;
    }
    ReplacedRun run{old.pod, RunLog{model::k8s::name_of(old.pod), false, {}, std::nullopt}, old.last_seen};
    if (last != nullptr) {
      run.log.lines = last->log->lines();
      run.log.last_output = now - (steady_now - last->log->last_line_at().value_or(last->started));
    }
    return run;
  }

  // A finished job ends the follow once its logs are drained (or after options.drain).
  std::optional<FollowResult> finished(JobView view) {
    // A Job that gives up deletes its pods that were still restarting in place: the verdict and
    // the summary then come from the pods as last seen.
    if (view.replicas.empty()) view.replicas = m_last_replicas;
    if (!m_finished_at) m_finished_at = m_clock.steady_now();
    bool all_done = true;
    for (const auto& [key, tail] : m_tails) all_done = all_done && tail.log->done();
    if (!all_done && m_clock.steady_now() - *m_finished_at < m_options.drain) return std::nullopt;
    for (auto& [key, t] : m_tails) say_unread(t);
    const int code = job_exit_code(view);
    // A job followed after it started (logs -f) ran longer than this follow: its status says how long.
    const double seconds = std::max(elapsed(), view.ran_for.value_or(0.0));
    m_diagnosis = diagnosis(0);
    if (m_options.progress) {
      m_console.finish();
      // The progress hook's last word (where training got to): after the summary of a success,
      // before the verdict of a failure, which ends the output.
      const auto final_line = [&] {
        if (!m_options.hooks.final_line) return;
        if (const auto line = m_options.hooks.final_line(m_job, view); !line.empty()) m_console.note(line);
      };
      if (!view.succeeded) {
        final_line();
        for (const auto& line : diagnosis_lines(*m_diagnosis, m_options.step)) m_console.note(line);
        m_console.note(failure_summary(*m_diagnosis, seconds));
      } else {
        m_console.note(summary_line(view, seconds));
        final_line();
        if (!m_diagnosis->left_behind.empty()) {
          m_console.note(util::message_text(
              util::Severity::note, fmt::format("{} still running: kubectl delete {} {}{} removes them",
                                                util::join(m_diagnosis->left_behind, ", "), m_kind.singular,
                                                view.name, m_options.step.kubectl_flags)));
        }
      }
    }
    return end_with(view.succeeded ? FollowEnd::succeeded : FollowEnd::failed, code, view.message);
  }

  FollowResult end_with(FollowEnd end, int code, std::string message) {
    m_result.end = end;
    m_result.exit_code = code;
    m_result.message = std::move(message);
    m_result.diagnosis = std::move(m_diagnosis);
    for (auto& [key, tail] : m_tails) tail.log->cancel();
    m_tails.clear();
    m_console.finish();
    return m_result;
  }

  struct Loop {
    int repeats = 0;
    std::string role;
    int rank = -1;
  };

  kube::ApiClient& m_api;
  const FollowOptions& m_options;
  const JobKind& m_kind;
  Console m_console;
  const util::Clock& m_clock;
  FollowWaiter& m_waiter;
  // When rank0_hook last asked for a look (set on the tails' threads; declared before them).
  std::atomic<std::chrono::steady_clock::rep> m_last_nudge{0};
  const SteadyTime m_started;
  std::map<std::string, Tail> m_tails;                // key: pod uid / run index
  std::map<std::string, SteadyTime> m_waiting_since;  // a run whose tail waits for the run before
  bool m_first_look = true;                           // the pods' runs seen now began before the follow
  std::set<std::string> m_seen_notes;
  std::set<std::string> m_seen_events;
  std::optional<SteadyTime> m_finished_at;
  json m_job;
  std::vector<json> m_last_pods;             // of the latest look that found pods
  std::vector<ReplicaView> m_last_replicas;  // the same, as views
  struct EndRun {
    ReplicaView replica;
    json pod;
  };
  std::optional<std::map<std::string, EndRun>> m_end_runs;  // by pod name: as the job's end saw them
  std::map<std::string, json> m_seen_pods;                  // every pod of the job, as last seen
  std::map<std::string, std::chrono::system_clock::time_point> m_seen_at;  // by pod name: the look
  std::vector<ReplacedPod> m_replaced;  // pods created again under their name while followed
  CrashLoopTracker m_crash_loops;
  Loop m_loop;
  std::optional<SteadyTime> m_loop_end_awaited;  // since when a crash loop waits for its backoffLimit
  std::optional<Diagnosis> m_diagnosis;
  FollowResult m_result;
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

std::string attempt_separator(const ReplicaView& replica) {
  return fmt::format("--- {} attempt {} ---", replica.role, replica.restarts + 1);
}

bool selected(const ReplicaView& replica, const std::string& replica_filter, std::optional<int> rank) {
  if (!replica_filter.empty() && replica_filter != replica.role) return false;
  return !rank || replica.rank == *rank;
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
