#include "plugin/controller_client.hpp"

#include "plugin/context.hpp"

namespace kpt::plugin {

// The REST client (kube/rest_client) is being built by another part; until it lands the
// controller cannot reach a cluster from the command line.
Expected<std::unique_ptr<kube::ApiClient>> make_controller_client(const Context&) {
  return make_error(ErrorCode::usage, "connecting to a cluster is not available in this build");
}

}  // namespace kpt::plugin
