#include "plugin/cluster_client.hpp"

#include "kube/rest_client.hpp"
#include "plugin/context.hpp"
#include "plugin/local_session.hpp"
#include "util/messages.hpp"

#include <unistd.h>

#include <atomic>
#include <ostream>

namespace kpt::plugin {

namespace {
kube::ClientOptions client_options(const Context& ctx) {
  kube::ClientOptions options;
  options.verbosity = ctx.verbosity;
  options.log = &ctx.err;
  return options;
}

/// No kubeconfig anywhere kubectl looks (flags, $KUBECONFIG, ~/.kube/config) and no
/// in-cluster service account: kubectl would stop with its KUBERNETES_MASTER message.
bool nothing_configured(const Context& ctx) {
  const auto& f = ctx.connection;
  if (!f.kubeconfig.empty() || !f.server.empty() || !f.context.empty() || !f.cluster.empty()) return false;
  if (const auto env = ctx.getenv("KUBECONFIG"); env && !env->empty()) return false;
  if (ctx.getenv("KUBERNETES_SERVICE_HOST")) return false;
  const std::string config = ctx.getenv("HOME").value_or("") + "/.kube/config";
  return ::access(config.c_str(), F_OK) != 0;
}

/// The connection the flags and environment select; with nothing configured and the local
/// cluster up, the local cluster's kubeconfig, said once per run on stderr.
kube::ConnectionFlags connection_for(const Context& ctx) {
  if (!nothing_configured(ctx)) return ctx.connection;
  const auto lifecycle = default_lifecycle(ctx);
  if (!lifecycle.status().running()) return ctx.connection;
  kube::ConnectionFlags flags = ctx.connection;
  flags.kubeconfig = local::default_kubeconfig_path(ctx.env);
  // Once per process: a command may connect more than once (a best-effort look, then its own).
  static std::atomic<bool> said{false};
  if (!said.exchange(true)) {
    util::print_note(ctx.err, "no kubeconfig is set: using the local cluster (state directory " +
                                  lifecycle.paths().state_dir + ")");
  }
  return flags;
}

Expected<std::unique_ptr<kube::ApiClient>> with_hint(const Context& ctx,
                                                     Expected<std::unique_ptr<kube::ApiClient>> client) {
  if (client || !nothing_configured(ctx)) return client;
  Error error = client.error();
  error.message += " (no kubeconfig is set; for the local cluster, start it with '" + ctx.program +
                   " local up', or use --local where the command has it)";
  return error;
}
}  // namespace

Expected<std::unique_ptr<kube::ApiClient>> connect(const Context& ctx) {
  return with_hint(ctx, kube::make_client(connection_for(ctx), ctx.env, client_options(ctx)));
}

Expected<std::unique_ptr<kube::ApiClient>> connect_best_effort(const Context& ctx) {
  auto options = client_options(ctx);
  options.max_retries = 1;
  options.connect_timeout = std::chrono::seconds(3);
  return with_hint(ctx, kube::make_client(connection_for(ctx), ctx.env, options));
}

std::string target_namespace(const Context& ctx) {
  return kube::resolved_namespace(connection_for(ctx), ctx.env, client_options(ctx));
}

}  // namespace kpt::plugin
