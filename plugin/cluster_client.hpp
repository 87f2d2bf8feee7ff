#pragma once

#include "kube/api_client.hpp"
#include "util/expected.hpp"

#include <memory>
#include <string>

namespace kpt::plugin {

struct Context;

/// The client for the cluster the kubectl flags and environment select (kubectl's rules).
Expected<std::unique_ptr<kube::ApiClient>> connect(const Context& ctx);

/// The same client for a look the command can do without (validate's and env's default release):
/// one retry and a 3 s connect timeout, so an unreachable cluster is reported in seconds.
Expected<std::unique_ptr<kube::ApiClient>> connect_best_effort(const Context& ctx);

/// The namespace a command works in: -n, else the kubeconfig context's, else "default".
std::string target_namespace(const Context& ctx);

}  // namespace kpt::plugin
