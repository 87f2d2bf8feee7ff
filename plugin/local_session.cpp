#include "plugin/local_session.hpp"

#include "plugin/context.hpp"
#include "util/messages.hpp"

#include <ostream>

namespace kpt::plugin {

local::ClusterLifecycle default_lifecycle(const Context& ctx) {
  return local::ClusterLifecycle(local::ClusterPaths::in(local::default_state_dir(ctx.env)));
}

Expected<LocalSession> open_local_session(const Context& ctx, bool start_if_down) {
  const auto lifecycle = default_lifecycle(ctx);
  LocalSession session;
  session.paths = lifecycle.paths();
  if (!lifecycle.status().running() && !start_if_down) {
    // No cluster to talk to, as with no usable kubeconfig: a config error (exit 2).
    return make_error(ErrorCode::config, "the local cluster is not running (start it with '" + ctx.program +
                                             " local up', or use 'run --local')");
  }
  if (start_if_down) {
    if (!lifecycle.status().running())
      ctx.err << "starting the local cluster (state in " << session.paths.state_dir << ")\n";
    auto up = lifecycle.ensure_up();
    if (!up) return up.error().context("starting the local cluster");
    session.started_here = up->started;
    if (up->started) (void)lifecycle.write_kubeconfig(local::default_kubeconfig_path(ctx.env), up->port);
  }
  auto client = lifecycle.client();
  if (!client) return client.error();
  session.client = std::move(*client);
  return session;
}

void close_local_session(const Context& ctx, LocalSession& session) {
  session.client.reset();
  if (!session.started_here) return;
  if (auto stopped = local::ClusterLifecycle(session.paths).stop(); !stopped) {
    util::print_warning(ctx.err, "stopping the local cluster: " + stopped.error().message);
    return;
  }
  ctx.err << "stopped the local cluster\n";
}

}  // namespace kpt::plugin
