#pragma once

#include "kube/api_client.hpp"
#include "util/expected.hpp"

#include <memory>

namespace kpt::plugin {

struct Context;

/// The ApiClient the controller talks through, built from the kubectl connection flags.
Expected<std::unique_ptr<kube::ApiClient>> make_controller_client(const Context& ctx);

}  // namespace kpt::plugin
