#include "plugin/job_follower.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <map>
#include <memory>
#include <mutex>
#include <ostream>
#include <set>
#include <thread>

namespace kpt::plugin {

namespace {

using Clock = std::chrono::steady_clock;
using nlohmann::json;

// Serialises whole lines from several threads and keeps a live status line at the bottom
// of a terminal: it is cleared before a log line and drawn again after it.
class Console {
 public:
  Console(std::ostream& out, std::ostream& err, bool live) : m_out(out), m_err(err), m_live(live) {}

  void log_line(const std::string& line) {
    std::lock_guard lock(m_mutex);
    clear_status();
    m_out << line << '\n' << std::flush;
    draw_status();
  }
  void note(const std::string& line) {
    std::lock_guard lock(m_mutex);
    clear_status();
    m_err << line << '\n' << std::flush;
    draw_status();
  }
  void status(const std::string& line) {
    std::lock_guard lock(m_mutex);
    if (line == m_status) return;
    if (m_live) {
      clear_status();
      m_status = line;
      draw_status();
    } else {
      m_status = line;
      m_err << line << '\n' << std::flush;
    }
  }
  void finish() {
    std::lock_guard lock(m_mutex);
    clear_status();
    m_status.clear();
    m_live = false;
  }

 private:
  void clear_status() {
    if (m_live && !m_status.empty()) m_err << "\r\033[K" << std::flush;
  }
  void draw_status() {
    if (m_live && !m_status.empty()) m_err << m_status << std::flush;
  }
  std::mutex m_mutex;
  std::ostream& m_out;
  std::ostream& m_err;
  bool m_live;
  std::string m_status;
};

// One followed log: a thread reading pods/log?follow=true and printing whole lines.
class LogTail {
 public:
  LogTail(kube::ApiClient& api, Console& console, std::string path, std::string prefix)
      : m_thread([this, &api, &console, path = std::move(path), prefix = std::move(prefix)] {
          std::string partial;
          auto flush_lines = [&](bool all) {
            std::size_t start = 0;
            for (auto nl = partial.find('\n'); nl != std::string::npos; nl = partial.find('\n', start)) {
              console.log_line(prefix + partial.substr(start, nl - start));
              start = nl + 1;
            }
            partial.erase(0, start);
            if (all && !partial.empty()) {
              console.log_line(prefix + partial);
              partial.clear();
            }
          };
          (void)api.stream_raw(
              path,
              [&](std::string_view chunk) {
                partial.append(chunk);
                flush_lines(false);
                return !m_cancel.load();
              },
              &m_cancel);
          flush_lines(true);
          m_done.store(true);
        }) {}
  ~LogTail() {
    m_cancel.store(true);
    if (m_thread.joinable()) m_thread.join();
  }
  LogTail(const LogTail&) = delete;
  LogTail& operator=(const LogTail&) = delete;
  [[nodiscard]] bool done() const { return m_done.load(); }
  void cancel() { m_cancel.store(true); }

 private:
  std::atomic<bool> m_cancel{false};
  std::atomic<bool> m_done{false};
  std::thread m_thread;  // last: starts after the flags exist
};

const char* const k_colours[] = {"\033[31m", "\033[32m", "\033[33m", "\033[34m", "\033[35m", "\033[36m"};

}  // namespace

std::string log_prefix(const ReplicaView& replica, bool colour) {
  const std::string text = fmt::format("[{} r{}] ", replica.role, replica.rank);
  if (!colour) return text;
  std::uint32_t h = 2166136261u;  // FNV-1a: the same pod always gets the same colour
  for (unsigned char c : replica.pod) h = (h ^ c) * 16777619u;
  return std::string(k_colours[h % 6]) + text + "\033[0m";
}

FollowResult follow_job(kube::ApiClient& api, const FollowOptions& options, std::ostream& out,
                        std::ostream& err, const std::atomic<bool>& interrupted) {
  Console console(out, err, options.live_status && options.progress);
  const auto started = Clock::now();
  std::map<std::string, std::unique_ptr<LogTail>> tails;  // key: pod uid / run index
  std::set<std::string> seen_notes;
  std::set<std::string> seen_events;
  std::optional<Clock::time_point> finished_at;
  FollowResult result;
  const std::string selector = "training.kubeflow.org/job-name=" + options.job;

  auto elapsed = [&] { return std::chrono::duration<double>(Clock::now() - started).count(); };
  auto end_with = [&](FollowEnd end, int code, std::string message) {
    result.end = end;
    result.exit_code = code;
    result.message = std::move(message);
    for (auto& [key, tail] : tails) tail->cancel();
    tails.clear();
    console.finish();
    return result;
  };

  while (true) {
    if (interrupted.load()) return end_with(FollowEnd::interrupted, 130, "interrupted");
    if (options.timeout && Clock::now() - started >= *options.timeout) {
      return end_with(FollowEnd::timeout, 124, fmt::format("timed out after {:.0f}s", elapsed()));
    }
    auto job = api.get(kube::resources::pytorchjobs(), options.ns, options.job);
    if (!job) {
      if (kube::is_not_found(job.error())) {
        return end_with(FollowEnd::gone, 1, fmt::format("pytorchjob '{}' was deleted", options.job));
      }
      std::this_thread::sleep_for(options.poll);  // transient: the client already retried
      continue;
    }
    kube::ListOptions list_opts;
    list_opts.label_selector = selector;
    auto pods = api.list(kube::resources::pods(), options.ns, list_opts);
    const JobView view = make_job_view(*job, pods ? pods->items : std::vector<json>{});
    result.last = view;

    if (options.logs) {
      for (const auto& r : view.replicas) {
        if (!r.started || (!options.replica.empty() && options.replica != r.role)) continue;
        const std::string key =
            r.uid + "/" + std::to_string(r.restarts) + (r.waiting_reason.empty() ? "" : "w");
        if (!r.waiting_reason.empty()) continue;  // in back-off: the next run gets its own tail
        if (tails.count(key) != 0) continue;
        const std::string path =
            kube::resources::pods().object_path(options.ns, r.pod, "log") + "?container=pytorch&follow=true";
        tails.emplace(key, std::make_unique<LogTail>(api, console, path, log_prefix(r, options.colour)));
      }
    }
    if (options.progress) {
      console.status(status_line(view));
      for (const auto& [key, text] : notable_states(view)) {
        if (seen_notes.insert(key).second) console.note("note: " + text);
      }
      kube::ListOptions ev_opts;
      ev_opts.field_selector = "type=Warning";
      if (auto events = api.list(kube::resources::events(), options.ns, ev_opts)) {
        for (const auto& e : events->items) {
          const std::string obj = e.value("/involvedObject/name"_json_pointer, std::string{});
          if (obj != options.job && obj.rfind(options.job + "-", 0) != 0) continue;
          const std::string key = e.value("/metadata/uid"_json_pointer, std::string{}) + "/" +
                                  std::to_string(e.value("count", 1));
          if (seen_events.insert(key).second) {
            console.note(
                fmt::format("warning: {}: {}: {}", obj, e.value("reason", ""), e.value("message", "")));
          }
        }
      }
    }

    if (view.finished) {
      if (!finished_at) finished_at = Clock::now();
      bool all_done = true;
      for (const auto& [key, tail] : tails) all_done = all_done && tail->done();
      if (all_done || Clock::now() - *finished_at >= options.drain) {
        const int code = exit_code_for(view);
        if (options.progress) console.note(summary_line(view, elapsed()));
        return end_with(view.succeeded ? FollowEnd::succeeded : FollowEnd::failed, code, view.message);
      }
    } else if (auto stall = fatal_stall(view)) {
      // Let the tails print what the process said before it gave up.
      std::this_thread::sleep_for(std::chrono::milliseconds(300));
      return end_with(FollowEnd::stuck, 1, *stall);
    } else if (Clock::now() - started >= options.pending_timeout) {
      for (const auto& r : view.replicas) {
        if (!r.started) {
          return end_with(FollowEnd::stuck, 1,
                          fmt::format("{} has not started after {:.0f}s{}", r.pod, elapsed(),
                                      r.unschedulable.empty() ? "" : ": " + r.unschedulable));
        }
      }
    }
    std::this_thread::sleep_for(options.poll);
  }
}

}  // namespace kpt::plugin
