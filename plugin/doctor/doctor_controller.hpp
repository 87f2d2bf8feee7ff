#pragma once

#include "kube/api_client.hpp"

#include <nlohmann/json_fwd.hpp>

#include <chrono>
#include <optional>
#include <string>
#include <vector>

namespace kpt::plugin {

enum class CheckState;

/// A PyTorchJob that has waited in one phase long enough to say nobody takes it.
struct StuckJob {
  std::string key;    ///< ns/name
  std::string phase;  ///< "Pending" (no condition yet) or its last condition ("Created", "Restarting")
  std::int64_t minutes = 0;
};

/// What on-call needs of kubectl-pytorch's own controller (doctor's "controller" section).
struct ControllerHealthInfo {
  CheckState deployment;  ///< our Deployment: found, not installed, forbidden, failed
  std::string deployment_message;
  std::string where;  ///< "ns/name"
  std::int64_t desired = 0;
  std::int64_t ready = 0;
  CheckState lease;  ///< the Lease its args name (default/kubectl-pytorch-controller for the local cluster)
  std::string lease_message;
  std::string lease_key;  ///< "ns/name"
  std::string holder;
  std::int64_t renewed_seconds_ago = -1;  ///< -1: never renewed
  bool lease_live = false;                ///< renewed within its duration
  CheckState jobs;                        ///< the PyTorchJob list the stuck jobs come from
  std::string jobs_message;
  std::vector<StuckJob> stuck;
};

/// The pure judgement over what was read: each problem on-call must act on, as one lower-case line
/// ("controller Deployment 'ns/name' has 0/2 ready replicas"). Empty: nothing wrong.
std::vector<std::string> controller_problems(const ControllerHealthInfo& info);

/// The jobs among `jobs` (PyTorchJobs as listed) stuck at `now`: no condition for 5 minutes after
/// their creation (no controller takes them), or Created or Restarting for 15 minutes (pods that never
/// run). Sorted by key.
std::vector<StuckJob> stuck_jobs(const std::vector<nlohmann::json>& jobs,
                                 std::chrono::system_clock::time_point now);

/// Seconds from an RFC 3339 time ("2026-12-06T05:00:00Z", with or without fractions) to `now`; -1 when
/// it cannot be read.
std::int64_t seconds_since(const std::string& rfc3339, std::chrono::system_clock::time_point now);

/// Reads our controller's Deployment, its Lease and the PyTorchJobs (at most 500) through `api`;
/// `local_cluster`: the server is the local cluster running its own controller (no Deployment).
ControllerHealthInfo gather_controller_health(kube::ApiClient& api, bool local_cluster,
                                              std::chrono::system_clock::time_point now);

}  // namespace kpt::plugin
