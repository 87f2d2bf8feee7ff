#include "plugin/commands.hpp"
#include "plugin/context.hpp"
#include "plugin/failure.hpp"
#include "plugin/follow/job_follower.hpp"
#include "plugin/follow/job_kind.hpp"
#include "plugin/interrupt.hpp"
#include "plugin/job_target.hpp"
#include "plugin/plugin.hpp"

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <ostream>

namespace kpt::plugin {

namespace {

struct LogsFlags {
  std::string job;
  bool follow = false;
  std::string replica;
  long long tail = -1;
  bool local = false;
};

// Without -f: every replica's current log once, each line prefixed with role and rank.
int print_logs(const Context& ctx, kube::ApiClient& api, const std::string& ns, const FoundJob& job,
               const LogsFlags& f) {
  auto pods = list_job_pods(api, *job.kind, ns, job.object["metadata"].value("name", ""));
  if (!pods) return fail(ctx, pods.error());
  const JobView view = make_job_view(job.object, pods->items);
  int printed = 0;
  for (const auto& r : view.replicas) {
    if (!f.replica.empty() && f.replica != r.role) continue;
    std::string path = kube::resources::pods().object_path(ns, r.pod, "log") + "?container=" + r.container;
    if (f.tail >= 0) path += "&tailLines=" + std::to_string(f.tail);
    auto text = api.get_raw(path);
    if (!text) {
      ctx.err << "warning: " << r.pod << ": " << text.error().message << "\n";
      continue;
    }
    const std::string prefix = log_prefix(r, ctx.colour_out());
    std::size_t start = 0;
    while (start < text->size()) {
      auto nl = text->find('\n', start);
      if (nl == std::string::npos) nl = text->size();
      ctx.out << prefix << text->substr(start, nl - start) << "\n";
      start = nl + 1;
    }
    ++printed;
  }
  if (printed == 0 && !f.replica.empty()) {
    return fail(ctx, make_error(ErrorCode::not_found, std::string(job.kind->singular) + " '" + view.name +
                                                          "' has no replica '" + f.replica + "'"));
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
  cmd->add_option(
      "--tail", flags->tail,
      "Lines of each log to show; with -f, of the output written before the follow began (-1: all)");
  cmd->add_flag("--local", flags->local, "The job runs on the embedded cluster");
  cmd->footer(
      "Examples:\n"
      "  kubectl pytorch logs mnist-dp                      # every replica's log, prefixed [worker-0 r0]\n"
      "  kubectl pytorch logs mnist-dp -f                   # follow to the end; exit code as 'run'\n"
      "  kubectl pytorch logs mnist-dp -f --tail 10         # the last 10 lines of each log, then follow\n"
      "  kubectl pytorch logs mnist-dp --replica worker-1 --tail 20\n"
      "  kubectl pytorch logs trainjob/mnist -f --local\n"
      "Exit codes: 0 printed; 1 no such job, or the cluster cannot be reached; 2 usage or no usable "
      "kubeconfig;\n"
      "with -f as run's: rank 0's exit code when the job failed (1 without one), 130 interrupted.");
  cmd->callback([&ctx, flags] {
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
      ctx.exit_code = print_logs(ctx, *target->api, target->ns, *job, *flags);
      return;
    }
    InterruptGuard guard;
    FollowOptions follow;
    follow.kind = job->kind;
    follow.ns = target->ns;
    follow.job = job->object["metadata"].value("name", "");
    follow.replica = flags->replica;
    follow.tail = flags->tail;
    follow.live_status = ctx.err_is_tty;
    follow.colour = ctx.colour_out();
    const auto result = follow_job(*target->api, follow, ctx.out, ctx.err, guard.flag());
    if (result.end == FollowEnd::stuck || result.end == FollowEnd::gone) print_error(ctx.err, result.message);
    ctx.exit_code = result.exit_code;
  });
}

}  // namespace kpt::plugin
