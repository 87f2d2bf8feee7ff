#pragma once

#include <memory>
#include <string>

#include "kube/api_client.hpp"
#include "util/expected.hpp"

namespace kpt::plugin {

struct Context;

/// The client for the cluster the kubectl flags and environment select (kubectl's rules).
Expected<std::unique_ptr<kube::ApiClient>> connect(const Context& ctx);

/// The namespace a command works in: -n, else the kubeconfig context's, else "default".
std::string target_namespace(const Context& ctx);

}  // namespace kpt::plugin
