#include "local/cluster_lifecycle.hpp"
#include "local/embedded_cluster.hpp"
#include "local/kubeconfig_merge.hpp"
#include "local/running_workloads.hpp"
#include "plugin/commands.hpp"
#include "plugin/context.hpp"
#include "plugin/exit_codes.hpp"
#include "plugin/failure.hpp"
#include "util/file_io.hpp"
#include "util/messages.hpp"
#include "util/strings.hpp"
#include "util/time.hpp"

#include <CLI/CLI.hpp>

#include <chrono>
#include <filesystem>
#include <ostream>

namespace kpt::plugin {

namespace {

using local::ClusterLifecycle;
using local::ClusterPaths;

struct LocalFlags {
  std::string state_dir;
  std::string kubeconfig_out;
  int port = 0;
  bool server_only = false;  ///< only the API server: no controller, no node
  std::string workdir;       ///< where pods without a working directory of their own run
  std::size_t watch_history = 0;
  std::string event_ttl;    ///< a duration ("1h", "30m"); empty: the server's default, 1 h
  std::string pod_network;  ///< auto, job or host; empty: auto
  bool merge_kubeconfig = false;
  std::string grace;  ///< `local down --grace`: a duration; empty: each pod's own
  bool force = false;
  bool reset = false;  ///< the command is `local reset` (for its hint)
};

/// ` --state-dir X` when the command named one, so that hints act on that cluster.
std::string state_dir_flag(const LocalFlags& f) {
  return f.state_dir.empty() ? std::string() : " --state-dir " + f.state_dir;
}

/// `--event-ttl` in seconds; 0 when not given.
std::chrono::seconds event_ttl_of(const LocalFlags& f) {
  if (f.event_ttl.empty()) return std::chrono::seconds{0};
  return std::chrono::duration_cast<std::chrono::seconds>(
      std::chrono::milliseconds(util::parse_duration_ms(f.event_ttl).value_or(0)));
}

ClusterPaths paths_for(const Context& ctx, const LocalFlags& f) {
  return ClusterPaths::in(f.state_dir.empty() ? local::default_state_dir(ctx.env) : f.state_dir);
}

ClusterLifecycle lifecycle_for(const Context& ctx, const LocalFlags& f) {
  local::LifecycleOptions options;
  options.port = f.port;
  options.server_only = f.server_only;
  options.watch_history = f.watch_history;
  options.event_ttl = event_ttl_of(f);
  options.pod_network = f.pod_network;
  return ClusterLifecycle(paths_for(ctx, f), options);
}

void print_usage_hint(Context& ctx, const LocalFlags& f, const std::string& kubeconfig) {
  ctx.out << "kubeconfig: " << kubeconfig << "\n\n"
          << "Use it with:\n";
  if (f.merge_kubeconfig) {
    ctx.out << "  kubectl --context " << local::k_local_context << " get pods\n";
  } else {
    ctx.out << "  export KUBECONFIG=" << kubeconfig << "\n"
            << "  kubectl get pods\n";
  }
  ctx.out << "Stop it with: " << ctx.program << " local down" << state_dir_flag(f) << "\n";
}

/// The kubeconfig --merge-kubeconfig writes into: the first file of $KUBECONFIG, else
/// ~/.kube/config (where kubectl looks, as kind and k3d write).
std::string shared_kubeconfig_path(const Context& ctx) {
  if (const auto env = ctx.getenv("KUBECONFIG"); env && !env->empty()) {
    const auto first = util::split(*env, ':').front();
    if (!first.empty()) return first;
  }
  return ctx.getenv("HOME").value_or("") + "/.kube/config";
}

// A subcommand's failure: its exit code is the one the error's kind documents (an I/O error
// exits 2, as README's table says).
void fail_local(Context& ctx, const Error& error) { ctx.exit_code = fail(ctx, error); }

void run_up(Context& ctx, const LocalFlags& f) {
  const auto lifecycle = lifecycle_for(ctx, f);
  const std::string kubeconfig =
      f.kubeconfig_out.empty() ? local::default_kubeconfig_path(ctx.env) : f.kubeconfig_out;
  ctx.out << "state directory: " << lifecycle.paths().state_dir << "\n";
  auto up = lifecycle.ensure_up();
  if (!up) return fail_local(ctx, up.error());
  if (auto w = lifecycle.write_kubeconfig(kubeconfig, up->port); !w) return fail_local(ctx, w.error());
  ctx.out << "the local API server is " << (up->started ? "up" : "already up") << " (pid " << up->pid
          << ") at https://127.0.0.1:" << up->port << "\n";
  if (!f.server_only) {
    if (auto mode = util::read_file(lifecycle.paths().node_mode_file, 4096)) ctx.out << *mode;
  }
  std::string shown = kubeconfig;
  if (f.merge_kubeconfig) {
    shown = shared_kubeconfig_path(ctx);
    auto ca = util::read_file(lifecycle.paths().ca_file);
    auto token = local::read_token(lifecycle.paths());
    if (!ca) return fail_local(ctx, ca.error());
    if (!token) return fail_local(ctx, token.error());
    const std::string url = "https://127.0.0.1:" + std::to_string(up->port);
    if (auto merged = local::merge_into_kubeconfig(shown, url, *ca, *token); !merged)
      return fail_local(ctx, merged.error());
    ctx.out << "context " << local::k_local_context << " added to " << shown << " and made current\n";
  }
  print_usage_hint(ctx, f, shown);
}

/// The jobs and pods the node runs, read from the server (nothing when it does not answer).
local::RunningWorkloads running_on(const ClusterLifecycle& lifecycle) {
  auto client = lifecycle.client();
  if (!client) return {};
  auto pods = (*client)->list(kube::resources::pods(), "", {});
  if (!pods) return {};
  return local::running_workloads(pods->items);
}

/// What `local down` and `local reset` stop: without --force, running jobs are named and
/// nothing is stopped (exit 1); with it, they are named as they stop. False: refused.
bool confirm_stop(Context& ctx, const LocalFlags& f, const ClusterLifecycle& lifecycle,
                  local::StopOptions& options) {
  const auto running = running_on(lifecycle);
  options.pods_grace = std::chrono::seconds(running.longest_grace_seconds);
  if (!f.grace.empty()) {
    options.grace = std::chrono::duration_cast<std::chrono::seconds>(
        std::chrono::milliseconds(util::parse_duration_ms(f.grace).value_or(0)));
  }
  if (running.lines.empty()) return true;
  if (!f.force) {
    util::print_error(ctx.err,
                      "the local cluster (state directory " + lifecycle.paths().state_dir + ") runs:");
    for (const auto& line : running.lines) ctx.err << "  " << line << "\n";
    ctx.err << "to stop them too: " << ctx.program << " local " << (f.reset ? "reset" : "down")
            << state_dir_flag(f) << " --force\n";
    ctx.exit_code = exit_code::failed;
    return false;
  }
  ctx.out << "stopping (SIGTERM, then SIGKILL after "
          << (options.grace ? std::to_string(options.grace->count()) + "s"
                            : std::string("each pod's grace period"))
          << "):\n";
  for (const auto& line : running.lines) ctx.out << "  " << line << "\n";
  return true;
}

void run_down(Context& ctx, const LocalFlags& f) {
  const auto lifecycle = lifecycle_for(ctx, f);
  local::StopOptions options;
  if (!confirm_stop(ctx, f, lifecycle, options)) return;
  auto stopped = lifecycle.stop(options);
  if (!stopped) return fail_local(ctx, stopped.error());
  if (!stopped->was_running) {
    ctx.out << "the local API server is not running (state directory " << lifecycle.paths().state_dir
            << ")\n";
    return;
  }
  ctx.out << "the local API server (pid " << stopped->pid << ") is stopped\n";
}

void run_reset(Context& ctx, const LocalFlags& f) {
  const auto lifecycle = lifecycle_for(ctx, f);
  local::StopOptions options;
  if (!confirm_stop(ctx, f, lifecycle, options)) return;
  auto reset = lifecycle.reset(options);
  if (!reset) return fail_local(ctx, reset.error());
  if (reset->was_running) ctx.out << "the local API server (pid " << reset->pid << ") is stopped\n";
  ctx.out << "the local cluster's objects and logs are removed (state directory "
          << lifecycle.paths().state_dir << ")\n";
}

void run_status(Context& ctx, const LocalFlags& f) {
  const auto lifecycle = lifecycle_for(ctx, f);
  const auto s = lifecycle.status();
  if (!s.running()) {
    ctx.out << "not running (state directory " << lifecycle.paths().state_dir << ")\n";
    ctx.exit_code = exit_code::failed;
    return;
  }
  ctx.out << "running (pid " << s.pid << ") at https://127.0.0.1:" << s.port << " (state directory "
          << lifecycle.paths().state_dir << ")\n";
}

}  // namespace

void add_local_command(CLI::App& app, Context& ctx) {
  auto* cmd = app.add_subcommand(
      "local", "Run the embedded cluster (API server, controller, local node) in the background");
  cmd->require_subcommand(1);
  // Set before the subcommands are added: CLI11 copies a parent's footer into each child it creates.
  cmd->footer(
      "Examples:\n"
      "  kubectl pytorch local up           # prints the kubeconfig the real kubectl uses\n"
      "  kubectl --kubeconfig ~/.kube/kubectl-pytorch-local.yaml get pods\n"
      "  kubectl pytorch local status\n"
      "  kubectl pytorch local up --merge-kubeconfig   # adds context kubectl-pytorch-local to "
      "~/.kube/config\n"
      "  kubectl pytorch local down         # every object stays in the state directory\n"
      "  kubectl pytorch local down --force --grace 5s   # also while jobs run: SIGTERM, SIGKILL 5 s later\n"
      "  kubectl pytorch local reset        # stops it and removes every object\n"
      "Exit codes: 0 done (local status: it runs); 1 the server did not answer or stop in time, jobs run\n"
      "and --force was not given, or (local status) it does not run; 2 usage or I/O error (a bad flag,\n"
      "the state directory or kubeconfig cannot be written, a server that exits while it starts, another\n"
      "server on the state directory).");
  auto flags = std::make_shared<LocalFlags>();
  const auto add_state_dir = [flags](CLI::App* sub) {
    sub->add_option(
        "--state-dir", flags->state_dir,
        "State directory (default $XDG_STATE_HOME/kubectl-pytorch or ~/.local/state/kubectl-pytorch)");
  };

  const auto add_event_ttl = [flags](CLI::App* sub) {
    sub->add_option("--event-ttl", flags->event_ttl,
                    "How long an Event is kept after its last write, as kube-apiserver's --event-ttl "
                    "(default 1h; at least 1s)")
        ->type_name("DURATION")
        ->check(CLI::Validator(
            [](const std::string& text) {
              const auto ms = util::parse_duration_ms(text);
              return ms && *ms >= 1000 ? std::string()
                                       : util::quote(text) + " is not a duration of 1s or more";
            },
            "", ""));
  };

  auto* up = cmd->add_subcommand("up", "Start the local cluster and write a kubeconfig for it");
  add_state_dir(up);
  up->add_option("--kubeconfig-out", flags->kubeconfig_out,
                 "Where to write the kubeconfig (default ~/.kube/kubectl-pytorch-local.yaml)");
  up->add_option("--port", flags->port, "Port on 127.0.0.1 (default: a free one)");
  up->add_flag("--server-only", flags->server_only, "Run only the API server (no controller, no node)");
  const auto add_watch_history = [flags](CLI::App* sub) {
    sub->add_option(
           "--watch-history", flags->watch_history,
           "Changes kept for resuming watches, 100 to 1000000 (default 10000; an older resourceVersion "
           "gets 410 Gone): the largest thing the server holds in memory")
        ->type_name("N")
        ->check(CLI::Range(std::size_t{100}, std::size_t{1'000'000}).description(""));
  };
  add_watch_history(up);
  add_event_ttl(up);
  const auto add_pod_network = [flags](CLI::App* sub) {
    sub->add_option("--pod-network", flags->pod_network,
                    "Where pods' network is: job (a network namespace per job: jobs bind the same ports side "
                    "by side, pods reach each other and the API server, not the outside), host (the host's: "
                    "jobs that declare the same port run one after the other) or auto (default: job where "
                    "the machine allows it)")
        ->type_name("MODE")
        ->check(CLI::IsMember({"auto", "job", "host"}).description(""));
  };
  add_pod_network(up);
  up->add_flag("--merge-kubeconfig", flags->merge_kubeconfig,
               "Also add the context kubectl-pytorch-local to $KUBECONFIG's first file or ~/.kube/config and "
               "make it current (as kind and k3d do)");
  up->callback([&ctx, flags] { run_up(ctx, *flags); });

  const auto add_stop_flags = [flags](CLI::App* sub) {
    sub->add_flag("--force", flags->force,
                  "Stop running jobs too (without it, the command names them and stops nothing)");
    sub->add_option("--grace", flags->grace,
                    "Longest wait between SIGTERM and SIGKILL for each pod (default: its "
                    "terminationGracePeriodSeconds, 30s unless set)")
        ->type_name("DURATION")
        ->check(CLI::Validator(
            [](const std::string& text) {
              return util::parse_duration_ms(text) ? std::string() : util::quote(text) + " is not a duration";
            },
            "", ""));
  };
  auto* down = cmd->add_subcommand("down", "Stop the local cluster");
  add_state_dir(down);
  add_stop_flags(down);
  down->callback([&ctx, flags] { run_down(ctx, *flags); });

  auto* reset = cmd->add_subcommand("reset", "Stop the local cluster and remove every object it stored");
  add_state_dir(reset);
  add_stop_flags(reset);
  reset->callback([&ctx, flags] {
    flags->reset = true;
    run_reset(ctx, *flags);
  });

  auto* status = cmd->add_subcommand("status", "Show whether the local cluster runs");
  add_state_dir(status);
  status->callback([&ctx, flags] { run_status(ctx, *flags); });

  auto* serve = cmd->add_subcommand("serve", "Serve in the foreground (used by 'local up')");
  serve->group("");
  add_state_dir(serve);
  serve->add_option("--port", flags->port, "Port on 127.0.0.1 (0: a free one)");
  serve->add_flag("--server-only", flags->server_only, "Run only the API server");
  add_watch_history(serve);
  add_event_ttl(serve);
  add_pod_network(serve);
  serve->add_option("--workdir", flags->workdir,
                    "Where pods without a workingDir run their commands (default: the current directory, "
                    "which 'local up' passes on)");
  serve->callback([&ctx, flags] {
    local::ClusterOptions options;
    options.paths = paths_for(ctx, *flags);
    options.port = flags->port;
    options.server_only = flags->server_only;
    options.watch_history = flags->watch_history;
    if (const auto ttl = event_ttl_of(*flags); ttl.count() > 0) options.event_ttl = ttl;
    if (!flags->pod_network.empty()) options.pod_network = flags->pod_network;
    // Pods run where `local up` was started (its server inherits that directory), as
    // `python3 train.py` next to the manifest expects.
    std::error_code ec;
    options.default_workdir =
        flags->workdir.empty() ? std::filesystem::current_path(ec).string() : flags->workdir;
    options.log = &ctx.err;
    if (auto served = local::serve_cluster(options); !served) {
      // Documented as a usage or I/O error whatever its cause: the server could not start.
      util::print_error(ctx.err, served.error().message);
      ctx.exit_code = exit_code::usage;
    }
  });
}

}  // namespace kpt::plugin
