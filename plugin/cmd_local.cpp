#include "apiserver/local_control.hpp"
#include "local/embedded_cluster.hpp"
#include "plugin/commands.hpp"
#include "plugin/context.hpp"
#include "util/file_io.hpp"

#include <CLI/CLI.hpp>

#include <chrono>
#include <ostream>

namespace kpt::plugin {

namespace {

using apiserver::LocalPaths;

struct LocalFlags {
  std::string state_dir;
  std::string kubeconfig_out;
  int port = 0;
  bool server_only = false;  ///< only the API server: no controller, no node
};

LocalPaths paths_for(const Context& ctx, const LocalFlags& f) {
  return LocalPaths::in(f.state_dir.empty() ? apiserver::default_state_dir(ctx.env) : f.state_dir);
}

void print_usage_hint(Context& ctx, const std::string& kubeconfig) {
  ctx.out << "kubeconfig: " << kubeconfig << "\n\n"
          << "Use it with:\n"
          << "  export KUBECONFIG=" << kubeconfig << "\n"
          << "  kubectl get pods\n"
          << "Stop it with: " << ctx.program << " local down\n";
}

Expected<void> refresh_kubeconfig(const LocalPaths& paths, int port, const std::string& kubeconfig) {
  auto ca = util::read_file(paths.ca_file);
  if (!ca) return ca.error().context("reading '" + paths.ca_file + "'");
  auto token = util::read_file(paths.token_file);
  if (!token) return token.error().context("reading '" + paths.token_file + "'");
  return apiserver::write_kubeconfig(kubeconfig, "https://127.0.0.1:" + std::to_string(port), *ca, *token);
}

void run_up(Context& ctx, const LocalFlags& f) {
  const auto paths = paths_for(ctx, f);
  const std::string kubeconfig =
      f.kubeconfig_out.empty() ? apiserver::default_kubeconfig_path(ctx.env) : f.kubeconfig_out;
  ctx.out << "state directory: " << paths.state_dir << "\n";
  const auto answers = [&](int port) {
    auto ca = util::read_file(paths.ca_file);
    auto token = util::read_file(paths.token_file);
    return ca && token && apiserver::probe(port, *ca, *token).has_value();
  };
  // A live pid that does not answer is a reused pid or a wedged server: start afresh.
  if (const auto s = apiserver::local_status(paths); s.running && answers(s.port)) {
    if (auto w = refresh_kubeconfig(paths, s.port, kubeconfig); !w) {
      ctx.err << "error: " << w.error().message << "\n";
      ctx.exit_code = 1;
      return;
    }
    ctx.out << "the local API server is already up (pid " << s.pid << ") at https://127.0.0.1:" << s.port
            << "\n";
    print_usage_hint(ctx, kubeconfig);
    return;
  }
  if (auto prepared = apiserver::prepare_state(paths); !prepared) {
    ctx.err << "error: " << prepared.error().message << "\n";
    ctx.exit_code = 1;
    return;
  }
  auto port = apiserver::spawn_and_wait(
      "/proc/self/exe", paths, f.port, std::chrono::seconds(20),
      f.server_only ? std::vector<std::string>{"--server-only"} : std::vector<std::string>{});
  if (!port) {
    ctx.err << "error: " << port.error().message << "\n";
    ctx.exit_code = 1;
    return;
  }
  if (auto w = refresh_kubeconfig(paths, *port, kubeconfig); !w) {
    ctx.err << "error: " << w.error().message << "\n";
    ctx.exit_code = 1;
    return;
  }
  const auto s = apiserver::local_status(paths);
  ctx.out << "the local API server is up (pid " << s.pid << ") at https://127.0.0.1:" << *port << "\n";
  print_usage_hint(ctx, kubeconfig);
}

void run_down(Context& ctx, const LocalFlags& f) {
  const auto paths = paths_for(ctx, f);
  const auto s = apiserver::local_status(paths);
  if (!s.running) {
    (void)apiserver::stop_local(paths, std::chrono::seconds(1));  // clears stale pid files
    ctx.out << "the local API server is not running (state directory " << paths.state_dir << ")\n";
    return;
  }
  if (auto stopped = apiserver::stop_local(paths, std::chrono::seconds(15)); !stopped) {
    ctx.err << "error: " << stopped.error().message << "\n";
    ctx.exit_code = 1;
    return;
  }
  ctx.out << "the local API server (pid " << s.pid << ") is stopped\n";
}

void run_status(Context& ctx, const LocalFlags& f) {
  const auto paths = paths_for(ctx, f);
  const auto s = apiserver::local_status(paths);
  if (!s.running) {
    ctx.out << "not running (state directory " << paths.state_dir << ")\n";
    ctx.exit_code = 1;
    return;
  }
  ctx.out << "running (pid " << s.pid << ") at https://127.0.0.1:" << s.port << " (state directory "
          << paths.state_dir << ")\n";
}

}  // namespace

void add_local_command(CLI::App& app, Context& ctx) {
  auto* cmd = app.add_subcommand(
      "local", "Run the embedded cluster (API server, controller, local node) in the background");
  cmd->require_subcommand(1);
  auto flags = std::make_shared<LocalFlags>();
  const auto add_state_dir = [flags](CLI::App* sub) {
    sub->add_option(
        "--state-dir", flags->state_dir,
        "State directory (default $XDG_STATE_HOME/kubectl-pytorch or ~/.local/state/kubectl-pytorch)");
  };

  auto* up = cmd->add_subcommand("up", "Start the local cluster and write a kubeconfig for it");
  add_state_dir(up);
  up->add_option("--kubeconfig-out", flags->kubeconfig_out,
                 "Where to write the kubeconfig (default ~/.kube/kubectl-pytorch-local.yaml)");
  up->add_option("--port", flags->port, "Port on 127.0.0.1 (default: a free one)");
  up->add_flag("--server-only", flags->server_only, "Run only the API server (no controller, no node)");
  up->callback([&ctx, flags] { run_up(ctx, *flags); });

  auto* down = cmd->add_subcommand("down", "Stop the local cluster");
  add_state_dir(down);
  down->callback([&ctx, flags] { run_down(ctx, *flags); });

  auto* status = cmd->add_subcommand("status", "Show whether the local cluster runs");
  add_state_dir(status);
  status->callback([&ctx, flags] { run_status(ctx, *flags); });

  auto* serve = cmd->add_subcommand("serve", "Serve in the foreground (used by 'local up')");
  serve->group("");
  add_state_dir(serve);
  serve->add_option("--port", flags->port, "Port on 127.0.0.1 (0: a free one)");
  serve->add_flag("--server-only", flags->server_only, "Run only the API server");
  serve->callback([&ctx, flags] {
    if (flags->server_only) {
      ctx.exit_code = apiserver::serve_foreground(paths_for(ctx, *flags), flags->port);
      return;
    }
    // The whole embedded cluster: API server, our controller and the local node.
    local::ClusterOptions options;
    options.paths = paths_for(ctx, *flags);
    options.port = flags->port;
    ctx.exit_code = local::serve_cluster(options);
  });
}

}  // namespace kpt::plugin
