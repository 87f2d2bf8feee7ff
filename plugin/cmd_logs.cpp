#include "model/k8s/object_meta.hpp"
#include "plugin/commands.hpp"
#include "plugin/context.hpp"
#include "plugin/failure.hpp"
#include "plugin/follow/diagnosis_output.hpp"
#include "plugin/follow/job_follower.hpp"
#include "plugin/follow/job_kind.hpp"
#include "plugin/follow/line_filter.hpp"
#include "plugin/follow/rank_silence.hpp"
#include "plugin/interrupt.hpp"
#include "plugin/job_hints.hpp"
#include "plugin/job_target.hpp"
#include "plugin/plugin.hpp"
#include "util/messages.hpp"
#include "util/strings.hpp"
#include "util/time.hpp"

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <ostream>

namespace kpt::plugin {

namespace {

struct LogsFlags {
  std::string job;
  bool follow = false;
  std::string replica;
  std::optional<int> rank;
  long long tail = -1;
  std::string since;
  bool timestamps = false;
  bool previous = false;
  std::vector<std::string> include;
  std::vector<std::string> exclude;
  bool local = false;
};

// What the flags ask of each log request and line: checked before any request is made.
struct LogQuery {
  std::optional<long long> since_seconds;
  std::function<bool(std::string_view)> filter;
};

Expected<LogQuery> check_flags(const LogsFlags& f) {
  LogQuery q;
  if (f.previous && f.follow)
    return make_error(ErrorCode::usage, "--previous shows an ended run: it takes no -f");
  if (!f.since.empty()) {
    const auto ms = util::parse_duration_ms(f.since);
    if (!ms || *ms <= 0)
      return make_error(ErrorCode::usage,
                        "invalid --since " + util::quote(f.since) + " (use e.g. 10s, 5m, 1h)");
    q.since_seconds = (*ms + 999) / 1000;  // kubectl rounds up to whole seconds
  }
  auto filter = make_line_filter(f.include, f.exclude);
  if (!filter) return filter.error();
  q.filter = std::move(*filter);
  return q;
}

std::string log_path(const std::string& ns, const ReplicaView& r, const LogsFlags& f, const LogQuery& q) {
  std::string path = kube::resources::pods().object_path(ns, r.pod, "log") + "?container=" + r.container;
  if (f.tail >= 0) path += "&tailLines=" + std::to_string(f.tail);
  if (q.since_seconds) path += "&sinceSeconds=" + std::to_string(*q.since_seconds);
  if (f.timestamps) path += "&timestamps=true";
  if (f.previous) path += "&previous=true";
  return path;
}

// Without -f: every selected replica's log once (the run before with --previous), each line
// prefixed with role and rank; a pod that restarted says which attempt its lines are from.
int print_logs(const Context& ctx, kube::ApiClient& api, const std::string& ns, const FoundJob& job,
               const LogsFlags& f, const LogQuery& q) {
  auto pods = list_job_pods(api, *job.kind, ns, model::k8s::name_of(job.object));
  if (!pods) return fail(ctx, pods.error());
  const JobView view = make_job_view(job.object, pods->items);
  int printed = 0;
  bool stamped = !f.timestamps;
  bool unstamped_noted = false;
  for (const auto& r : view.replicas) {
    if (!selected(r, f.replica, f.rank)) continue;
    ++printed;
    if (f.previous && r.restarts == 0) {
      util::print_warning(ctx.err, r.pod + " has not restarted: it has no previous run");
      continue;
    }
    auto text = api.get_raw(log_path(ns, r, f, q));
    if (!text) {
      util::print_warning(ctx.err, r.pod + ": " + text.error().message);
      continue;
    }
    const std::string prefix = log_prefix(r, ctx.colour_out());
    if (r.restarts > 0) {
      // The current log of a container waiting to restart is its failed run's (the local node
      // counts that restart already).
      ReplicaView shown = r;
      shown.restarts = r.waiting_reason == "CrashLoopBackOff" ? r.restarts - 1 : r.restarts;
      if (f.previous) --shown.restarts;
      ctx.out << attempt_separator(shown) << "\n";
    }
    std::size_t start = 0;
    while (start < text->size()) {
      auto nl = text->find('\n', start);
      if (nl == std::string::npos) nl = text->size();
      const std::string_view line(text->data() + start, nl - start);
      start = nl + 1;
      if (!stamped && !line.empty()) {
        stamped = line_timestamp(line).has_value();
        if (!stamped && !unstamped_noted) {
          util::print_warning(ctx.err,
                              "the server sent the log without timestamps (the local cluster's node keeps "
                              "none per line)");
          unstamped_noted = true;
        }
      }
      if (q.filter && !q.filter(line)) continue;
      ctx.out << prefix << line << "\n";
    }
  }
  if (printed == 0 && (!f.replica.empty() || f.rank)) {
    const std::string which =
        !f.replica.empty() ? "replica " + util::quote(f.replica) : "rank " + std::to_string(*f.rank);
    return fail(ctx, make_error(ErrorCode::not_found, std::string(job.kind->singular) + " " +
                                                          util::quote(view.name) + " has no " + which));
  }
  return exit_code::ok;
}

}  // namespace

void add_logs_command(CLI::App& app, Context& ctx) {
  auto flags = std::make_shared<LogsFlags>();
  auto* cmd =
      app.add_subcommand("logs", "Print or follow the logs of every replica of a PyTorchJob or TrainJob");
  cmd->add_option("job", flags->job, "NAME, pytorchjob/NAME or trainjob/NAME")->required();
  cmd->add_flag("-f,--follow", flags->follow, "Follow until the job ends (exit code as 'run')");
  cmd->add_option("--replica", flags->replica, "Only this replica, e.g. worker-1, master-0 or node-1");
  cmd->add_option("--rank", flags->rank, "Only this rank (a TrainJob's node rank)");
  cmd->add_option(
      "--tail", flags->tail,
      "Lines of each log to show; with -f, of the output written before the follow began (-1: all)");
  cmd->add_option("--since", flags->since, "Only output newer than this (10s, 5m, 1h), as kubectl's");
  cmd->add_flag("--timestamps", flags->timestamps, "Each line begins with its time (RFC 3339), as kubectl's");
  cmd->add_flag("-p,--previous", flags->previous, "The run before the current one (a restarted rank's)");
  cmd->add_option("-i,--include", flags->include,
                  "Only lines that match this regular expression (RE2 syntax, as stern; repeatable)");
  cmd->add_option("-e,--exclude", flags->exclude,
                  "No lines that match this regular expression (RE2 syntax, as stern; repeatable)");
  cmd->add_flag("--local", flags->local, "The job runs on the embedded cluster");
  cmd->footer(
      "Examples:\n"
      "  kubectl pytorch logs mnist-dp                      # every replica's log, prefixed [worker-0 r0]\n"
      "  kubectl pytorch logs mnist-dp -f                   # follow to the end; exit code as 'run'\n"
      "  kubectl pytorch logs mnist-dp -f --tail 10         # the last 10 lines of each log, then follow\n"
      "  kubectl pytorch logs mnist-dp --rank 1 --previous  # rank 1's run before its last restart\n"
      "  kubectl pytorch logs mnist-dp -i 'loss|accuracy' -e '^DEBUG' --since 10m\n"
      "  kubectl pytorch logs trainjob/mnist -f --local\n"
      "A restarted rank's lines start with '--- worker-1 attempt 2 ---'.\n"
      "Exit codes: 0 printed; 1 no such job, or the cluster cannot be reached; 2 usage or no usable "
      "kubeconfig;\n"
      "with -f as run's: rank 0's exit code when the job failed (1 without one), 130 interrupted.");
  cmd->callback([&ctx, flags] {
    auto query = check_flags(*flags);
    if (!query) {
      ctx.exit_code = fail(ctx, query.error());
      return;
    }
    auto target = open_job_target(ctx, flags->local);
    if (!target) {
      ctx.exit_code = fail(ctx, target.error());
      return;
    }
    auto job = find_job(*target->api, target->ns, flags->job);
    if (!job) {
      ctx.exit_code = fail(ctx, job.error());
      return;
    }
    if (!flags->follow) {
      ctx.exit_code = print_logs(ctx, *target->api, target->ns, *job, *flags, *query);
      return;
    }
    InterruptGuard guard;
    FollowOptions follow;
    follow.kind = job->kind;
    follow.ns = target->ns;
    follow.job = model::k8s::name_of(job->object);
    follow.replica = flags->replica;
    follow.rank = flags->rank;
    follow.tail = flags->tail;
    follow.since_seconds = query->since_seconds;
    follow.timestamps = flags->timestamps;
    follow.filter = query->filter;
    follow.live_status = ctx.err_is_tty;
    follow.colour = ctx.colour_out();
    follow.step = step_context(ctx, flags->local, *job->kind, follow.job, target->ns);
    const auto result = follow_job(*target->api, follow, ctx.out, ctx.err, guard.flag());
    if (result.end == FollowEnd::stuck || result.end == FollowEnd::gone ||
        result.end == FollowEnd::crash_loop || result.end == FollowEnd::stalled) {
      util::print_error(ctx.err, result.message);
      if (result.diagnosis) {
        const auto lines = diagnosis_lines(*result.diagnosis, follow.step);
        for (std::size_t i = 1; i < lines.size(); ++i) ctx.err << lines[i] << "\n";
      }
    }
    ctx.exit_code = result.exit_code;
  });
}

}  // namespace kpt::plugin
