#pragma once

#include "kube/api_client.hpp"
#include "plugin/local_session.hpp"

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

/// Connects for a job command; prints the error and returns nothing on failure.
std::optional<JobTarget> open_job_target(const Context& ctx, bool local);

}  // namespace kpt::plugin
