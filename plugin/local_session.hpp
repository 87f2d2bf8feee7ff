#pragma once

#include "kube/api_client.hpp"
#include "local/cluster_lifecycle.hpp"
#include "util/expected.hpp"

#include <memory>

namespace kpt::plugin {

struct Context;

/// The embedded cluster a `--local` command uses: started for it when it was not up.
struct LocalSession {
  local::ClusterPaths paths;
  bool started_here = false;
  std::unique_ptr<kube::ApiClient> client;
};

/// The lifecycle of the local cluster in the default state directory.
local::ClusterLifecycle default_lifecycle(const Context& ctx);

/// Connects to the embedded cluster; with `start_if_down`, ensures it is up first (started
/// here when it was not, its kubeconfig written). Progress lines go to ctx.err.
Expected<LocalSession> open_local_session(const Context& ctx, bool start_if_down);

/// Stops the embedded cluster when this session started it.
void close_local_session(const Context& ctx, LocalSession& session);

}  // namespace kpt::plugin
