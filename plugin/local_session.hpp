#pragma once

#include "apiserver/local_control.hpp"
#include "kube/api_client.hpp"
#include "util/expected.hpp"

#include <memory>

namespace kpt::plugin {

struct Context;

/// The embedded cluster a `--local` command uses: started for it when it was not up.
struct LocalSession {
  apiserver::LocalPaths paths;
  bool started_here = false;
  std::unique_ptr<kube::ApiClient> client;
};

/// Starts the embedded cluster (API server, controller, node) unless it is up, writes its
/// kubeconfig, and connects. Progress lines go to ctx.err.
Expected<LocalSession> open_local_session(const Context& ctx, bool start_if_down);

/// Stops the embedded cluster when this session started it.
void close_local_session(const Context& ctx, LocalSession& session);

}  // namespace kpt::plugin
