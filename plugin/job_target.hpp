#pragma once

#include "kube/api_client.hpp"
#include "plugin/local_session.hpp"
#include "util/expected.hpp"

#include <memory>
#include <optional>
#include <string>

namespace CLI {
class App;
}

namespace kpt::plugin {

struct Context;

/// How `logs` and `status` reach a job: the current cluster, or the embedded one (--local).
struct JobTarget {
  std::optional<LocalSession> session;
  std::unique_ptr<kube::ApiClient> remote;
  kube::ApiClient* api = nullptr;
  std::string ns;
};

/// Connects for a job command: the cluster of the kubeconfig, or with `local` the embedded one
/// (started first when `start_local`). A local cluster that is not running is a config error.
Expected<JobTarget> open_job_target(const Context& ctx, bool local, bool start_local = false);

}  // namespace kpt::plugin
