#include "plugin/cluster_client.hpp"

#include "kube/rest_client.hpp"
#include "plugin/context.hpp"

namespace kpt::plugin {

namespace {
kube::ClientOptions client_options(const Context& ctx) {
  kube::ClientOptions options;
  options.verbosity = ctx.verbosity;
  options.log = &ctx.err;
  return options;
}
}  // namespace

Expected<std::unique_ptr<kube::ApiClient>> connect(const Context& ctx) {
  return kube::make_client(ctx.connection, ctx.env, client_options(ctx));
}

Expected<std::unique_ptr<kube::ApiClient>> connect_best_effort(const Context& ctx) {
  auto options = client_options(ctx);
  options.max_retries = 1;
  options.connect_timeout = std::chrono::seconds(3);
  return kube::make_client(ctx.connection, ctx.env, options);
}

std::string target_namespace(const Context& ctx) {
  return kube::resolved_namespace(ctx.connection, ctx.env, client_options(ctx));
}

}  // namespace kpt::plugin
