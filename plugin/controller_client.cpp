#include "plugin/controller_client.hpp"

#include "kube/rest_client.hpp"
#include "plugin/context.hpp"

namespace kpt::plugin {

Expected<std::unique_ptr<kube::ApiClient>> make_controller_client(const Context& ctx) {
  kube::ClientOptions options;
  options.verbosity = ctx.verbosity;
  options.log = &ctx.err;
  return kube::make_client(ctx.connection, ctx.env, options);
}

}  // namespace kpt::plugin
