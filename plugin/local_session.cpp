#include "plugin/local_session.hpp"

#include "local/embedded_cluster.hpp"
#include "plugin/context.hpp"
#include "util/file_io.hpp"

#include <ostream>

namespace kpt::plugin {

Expected<LocalSession> open_local_session(const Context& ctx, bool start_if_down) {
  LocalSession session;
  session.paths = apiserver::LocalPaths::in(apiserver::default_state_dir(ctx.env));
  if (!apiserver::local_status(session.paths).running) {
    if (!start_if_down) {
      return make_error(ErrorCode::not_found, "the local cluster is not running (start it with '" +
                                                  ctx.program + " local up', or use 'run --local')");
    }
    if (auto prepared = apiserver::prepare_state(session.paths); !prepared) return prepared.error();
    ctx.err << "starting the local cluster (state in " << session.paths.state_dir << ")\n";
    auto port = apiserver::spawn_and_wait("/proc/self/exe", session.paths, 0, std::chrono::seconds(30));
    if (!port) return port.error().context("starting the local cluster");
    session.started_here = true;
    auto ca = util::read_file(session.paths.ca_file);
    auto token = util::read_file(session.paths.token_file);
    if (ca && token) {
      const auto kubeconfig = apiserver::default_kubeconfig_path(ctx.env);
      (void)apiserver::write_kubeconfig(kubeconfig, "https://127.0.0.1:" + std::to_string(*port), *ca,
                                        *token);
    }
  }
  auto client = local::local_client(session.paths);
  if (!client) return client.error();
  session.client = std::move(*client);
  return session;
}

void close_local_session(const Context& ctx, LocalSession& session) {
  session.client.reset();
  if (!session.started_here) return;
  if (auto stopped = apiserver::stop_local(session.paths, std::chrono::seconds(30)); !stopped) {
    ctx.err << "warning: stopping the local cluster: " << stopped.error().message << "\n";
    return;
  }
  ctx.err << "stopped the local cluster\n";
}

}  // namespace kpt::plugin
