#pragma once

#include "kube/api_client.hpp"
#include "util/clock.hpp"

#include <atomic>
#include <chrono>
#include <optional>
#include <string>

namespace kpt::controller {

class Logger;

struct LeaseConfig {
  std::string namespace_ = "default";
  std::string name = "kubectl-pytorch-controller";
  std::string identity;  ///< unique per process: hostname + pid
  std::chrono::seconds lease_duration{15};
  std::chrono::seconds renew_deadline{10};
  std::chrono::seconds retry_period{2};
  /// Give the lease up on a clean stop (the next candidate need not wait for it to expire).
  /// Off, a stop looks to the others like a crash: tests of takeover use that.
  bool release_on_stop = true;
};

/// "lease duration must be greater than renew deadline" ... as client-go checks them
/// (LeaseDuration > RenewDeadline > 1.2 x RetryPeriod); empty when valid.
std::string check_lease_config(const LeaseConfig& c);

/// Leader election on a coordination.k8s.io/v1 Lease, client-go style: the lease is taken when
/// it is free, ours, or not renewed for lease_duration as judged from *local* observation time
/// (tolerant of clock skew); updates use the resourceVersion, so two candidates cannot both win.
class LeaderElector {
 public:
  LeaderElector(kube::ApiClient& client, const util::Clock& clock, LeaseConfig config)
      : m_client(client), m_clock(clock), m_config(std::move(config)) {}

  /// One attempt to acquire or renew. True when we hold the lease afterwards.
  bool try_acquire_or_renew();
  /// Gives the lease up (clean shutdown), so another candidate need not wait for expiry.
  void release();

  /// Blocks until the lease is ours (true) or `stop` is set (false). Says once which identity holds
  /// it, and each new reason the server gives for refusing us (a 403 names the fix).
  bool acquire(const std::atomic<bool>& stop, Logger& log);
  /// Renews every retry_period until `stop` (true) or a renewal fails for renew_deadline (false:
  /// leadership lost, the caller must exit).
  bool keep(const std::atomic<bool>& stop, Logger& log);

 private:
  kube::ApiClient& m_client;
  const util::Clock& m_clock;
  LeaseConfig m_config;
  std::string m_last_error;  ///< why the last attempt failed, when the server refused it
  std::string m_observed_holder;
  std::string m_observed_renew;
  std::chrono::steady_clock::time_point m_observed_at{};
};

}  // namespace kpt::controller
