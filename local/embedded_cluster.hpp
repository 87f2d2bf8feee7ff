#pragma once

#include "apiserver/local_control.hpp"
#include "kube/api_client.hpp"

#include <nlohmann/json_fwd.hpp>

#include <memory>
#include <string>

namespace kpt::local {

struct ClusterOptions {
  apiserver::LocalPaths paths;
  int port = 0;                 ///< 0: a free loopback port
  std::string default_workdir;  ///< for pods without the workdir annotation
  std::string env_style = "worker-only";
};

/// A client for the embedded cluster whose state is in `paths` (the port file, token and CA
/// written by `local up`); no kubeconfig is consulted.
Expected<std::unique_ptr<kube::ApiClient>> local_client(const apiserver::LocalPaths& paths);

/// `local serve`: the embedded API server, our controller and the local node in one process,
/// until SIGTERM or SIGINT. The controller and the node talk to the server over HTTPS with the
/// generated token, exactly as they would to a real cluster. Returns the exit code.
int serve_cluster(const ClusterOptions& options);

}  // namespace kpt::local
