#pragma once

#include "util/expected.hpp"

#include <nlohmann/json_fwd.hpp>

#include <string>

namespace kpt::local {

/// The name of the cluster, user and context `local up` writes.
inline constexpr const char* k_local_context = "kubectl-pytorch-local";

/// `config` (a kubeconfig as JSON, or null for none) with the local cluster's cluster, user and
/// context entries added or replaced, and the context made current, as kind and k3d do. Every
/// other entry stays as it was.
Expected<nlohmann::json> merged_kubeconfig(const nlohmann::json& config, const std::string& server_url,
                                           const std::string& ca_pem, const std::string& token);

/// merged_kubeconfig on the file at `path` (created when missing), written back as YAML, mode 0600.
Expected<void> merge_into_kubeconfig(const std::string& path, const std::string& server_url,
                                     const std::string& ca_pem, const std::string& token);

}  // namespace kpt::local
