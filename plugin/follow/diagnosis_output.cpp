#include "plugin/follow/diagnosis_output.hpp"

#include "util/strings.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>

namespace kpt::plugin {

namespace {

using nlohmann::json;

constexpr std::size_t k_max_following = 3;  // more ranks that followed the root cause are counted
constexpr std::size_t k_max_ranks = 4;      // a running job's ranks shown with their silence
constexpr std::size_t k_max_line = 160;     // a log line quoted in the diagnosis

std::string who(const std::string& role, int rank) {
  return rank >= 0 ? fmt::format("{} (rank {})", role, rank) : role;
}

std::string label(std::string_view name, std::string_view value) {
  return fmt::format("  {:<11} {}", std::string(name) + ":", value);
}

std::string cut(std::string_view line) {
  if (line.size() <= k_max_line) return std::string(line);
  return std::string(line.substr(0, k_max_line - 3)) + "...";
}

std::string logs_hint(const RankFailure& f, const StepContext& step) {
  std::string which = f.rank >= 0 ? fmt::format(" --rank {}", f.rank) : " --replica " + f.role;
  return fmt::format("{} logs {}{}{}{}", step.program, step.job_word, which,
                     f.previous_run ? " --previous" : "", step.flags);
}

std::string header(const Diagnosis& d) {
  const std::string job = d.kind + " " + d.name;
  switch (d.verdict) {
    case JobVerdict::succeeded:
      return job + " succeeded: nothing to diagnose";
    case JobVerdict::failed:
      if (!d.root) return job + " failed" + (d.problem.empty() ? std::string() : ": " + d.problem);
      return fmt::format("{} failed: {} failed first{}", job, who(d.root->role, d.root->rank),
                         d.root->restarts > 0 ? fmt::format(" (after {} restart{})", d.root->restarts,
                                                            d.root->restarts == 1 ? "" : "s")
                                              : "");
    case JobVerdict::crash_loop:
      if (!d.root) return fmt::format("{} is in a crash loop", job);
      return fmt::format("{} is in a crash loop: {} failed the same way {} times", job,
                         who(d.root->role, d.root->rank), d.repeats);
    case JobVerdict::stuck:
      return fmt::format("{} is stuck: {}", job, d.problem);
    case JobVerdict::pending:
      return fmt::format("{} is pending: {}", job, d.problem);
    case JobVerdict::stalled: {
      std::vector<std::string> silent;
      long long seconds = 0;
      for (const auto& r : d.ranks) {
        if (!r.silent) continue;
        silent.push_back(who(r.role, r.rank));
        seconds = std::max(seconds, r.seconds);
      }
      return fmt::format("{} is running, but {} {} printed nothing for {}s", job, util::join(silent, " and "),
                         silent.size() == 1 ? "has" : "have", seconds);
    }
    case JobVerdict::running:
      return fmt::format("{} is running{}", job, d.root ? " and restarting" : ": no failure so far");
    case JobVerdict::unknown:
      break;
  }
  return job + ": " + (d.state.empty() ? std::string("not reconciled yet") : d.state);
}

void root_lines(const Diagnosis& d, std::vector<std::string>& out) {
  const RankFailure& f = *d.root;
  out.push_back(label("exit", f.exit_text + (f.finished_at.empty() ? "" : ", at " + f.finished_at)));
  if (f.error) {
    out.push_back(
        label("exception", cut(f.error->line) + (f.error->where.empty() ? "" : " (" + f.error->where + ")")));
  } else if (!f.last_line.empty()) {
    out.push_back(label("last line", cut(f.last_line)));
  }
  out.push_back(label("class", class_title(f.klass)));
  std::size_t shown = 0;
  for (const auto& o : d.following) {
    if (shown == k_max_following) {
      out.push_back(label("then", fmt::format("{} more", d.following.size() - shown)));
      break;
    }
    const std::string when =
        o.after_root && *o.after_root >= 1 ? fmt::format(" {:.0f}s later", *o.after_root) : std::string();
    const std::string what = o.klass == f.klass && !maybe_collateral(o.klass) ? "the same failure"
                             : o.collateral ? std::string(class_title(o.klass))
                                            : o.exit_text;
    out.push_back(
        label(o.collateral ? "then" : "also", fmt::format("{}{}: {}", who(o.role, o.rank), when, what)));
    ++shown;
  }
}

}  // namespace

std::vector<std::string> diagnosis_lines(const Diagnosis& d, const StepContext& step) {
  std::vector<std::string> out{header(d)};
  if (d.verdict == JobVerdict::succeeded) return out;
  if (d.root && (d.verdict == JobVerdict::failed || d.verdict == JobVerdict::crash_loop ||
                 d.verdict == JobVerdict::running)) {
    root_lines(d, out);
  } else if (!d.problem.empty() && d.klass != FailureClass::none) {
    out.push_back(label("class", class_title(d.klass)));
  }
  if (d.verdict == JobVerdict::stalled || d.verdict == JobVerdict::running) {
    std::vector<const RankSilence*> ranks;
    for (const auto& r : d.ranks) ranks.push_back(&r);
    std::stable_sort(ranks.begin(), ranks.end(),
                     [](const RankSilence* a, const RankSilence* b) { return a->seconds > b->seconds; });
    for (std::size_t i = 0; i < ranks.size() && i < k_max_ranks; ++i) {
      const RankSilence& r = *ranks[i];
      const std::string quoted =
          r.last_line.empty() ? "no output yet" : "last line " + util::quote(r.last_line, k_max_line);
      out.push_back(label(r.silent ? "silent" : "active",
                          fmt::format("{} {}s ago: {}", who(r.role, r.rank), r.seconds, quoted)));
    }
  }
  if (d.verdict == JobVerdict::failed && d.klass == FailureClass::rendezvous_timeout) {
    for (std::size_t i = 0; i < d.ranks.size() && i < k_max_ranks; ++i) {
      const RankSilence& r = d.ranks[i];
      out.push_back(
          label("waited for",
                fmt::format("{}, still running: {}", who(r.role, r.rank),
                            r.last_line.empty() ? "no output yet"
                                                : fmt::format("its last line {}s ago {}", r.seconds,
                                                              util::quote(r.last_line, k_max_line)))));
    }
  }
  if (!d.next_step.empty()) out.push_back(label("next step", d.next_step));
  if (d.root) {
    // A pod created again under its name serves the new run's log: the deleted run's went with it.
    out.push_back(label("its log", d.root->replaced ? "deleted with its pod; the follow printed it above"
                                                    : logs_hint(*d.root, step)));
  }
  if (!d.left_behind.empty()) {
    out.push_back(label("left behind",
                        fmt::format("{} still running: kubectl delete {} {}{} removes the job and its pods",
                                    util::join(d.left_behind, ", "), d.kind, d.name, step.kubectl_flags)));
  }
  if ((d.verdict == JobVerdict::pending || d.verdict == JobVerdict::stuck ||
       d.klass == FailureClass::controller_error) &&
      !d.events.empty() && d.problem != d.events.back()) {
    out.push_back(label("event", cut(d.events.back())));
  }
  return out;
}

namespace {

json failure_json(const RankFailure& f) {
  json out = {{"pod", f.pod},
              {"role", f.role},
              {"rank", f.rank >= 0 ? json(f.rank) : json(nullptr)},
              {"restarts", f.restarts},
              {"exitCode", f.exit_code},
              {"reason", f.reason},
              {"signal", f.signal > 0 ? json(f.signal) : json(nullptr)},
              {"exit", f.exit_text},
              {"finishedAt", f.finished_at},
              {"class", class_id(f.klass)},
              {"exception", nullptr},
              {"lastLine", f.last_line}};
  if (f.error)
    out["exception"] = {{"line", f.error->line}, {"type", f.error->type}, {"where", f.error->where}};
  if (f.after_root) out["secondsAfterRoot"] = *f.after_root;
  out["collateral"] = f.collateral;
  return out;
}

}  // namespace

json diagnosis_json(const Diagnosis& d) {
  json following = json::array();
  for (const auto& f : d.following) following.push_back(failure_json(f));
  json ranks = json::array();
  for (const auto& r : d.ranks) {
    ranks.push_back({{"pod", r.pod},
                     {"role", r.role},
                     {"rank", r.rank},
                     {"silentSeconds", r.seconds},
                     {"silent", r.silent},
                     {"lastLine", r.last_line}});
  }
  return {{"kind", d.kind},
          {"name", d.name},
          {"namespace", d.ns},
          {"state", d.state},
          {"message", d.message},
          {"verdict", verdict_id(d.verdict)},
          {"class", d.klass == FailureClass::none ? json(nullptr) : json(class_id(d.klass))},
          {"problem", d.problem},
          {"rootCause", d.root ? failure_json(*d.root) : json(nullptr)},
          {"following", following},
          {"repeats", d.repeats},
          {"ranks", ranks},
          {"nextStep", d.next_step},
          {"leftBehind", d.left_behind},
          {"events", d.events}};
}

std::string failure_summary(const Diagnosis& d, double seconds) {
  std::string head = fmt::format("{} {} failed after {:.1f}s", d.kind, d.name, seconds);
  if (d.verdict == JobVerdict::crash_loop)
    head = fmt::format("{} {} crash-looped for {:.1f}s", d.kind, d.name, seconds);
  std::string which;
  if (d.root) {
    which = fmt::format("{}{} {}", d.root->pod,
                        d.root->rank >= 0 ? fmt::format(" (rank {})", d.root->rank) : "", d.root->exit_text);
    if (!d.following.empty()) which += fmt::format(", the first of {} failed ranks", d.following.size() + 1);
  }
  std::vector<std::string> parts;
  if (!which.empty()) parts.push_back(which);
  if (!d.message.empty()) parts.push_back(d.message);
  if (parts.empty()) return head;
  return head + ": " + util::join(parts, "; ");
}

}  // namespace kpt::plugin
