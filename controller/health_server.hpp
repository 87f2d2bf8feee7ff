#pragma once

#include "controller/kind_status.hpp"
#include "util/expected.hpp"

#include <functional>
#include <memory>
#include <string>

namespace kpt::controller {

class Logger;
class Metrics;

/// The controller's /healthz, /readyz and /metrics over HTTP, served on a thread of its own.
class HealthServer {
 public:
  HealthServer();
  ~HealthServer();
  HealthServer(const HealthServer&) = delete;
  HealthServer& operator=(const HealthServer&) = delete;

  /// Binds `addr` ("host:port", ":port"; port 0 picks a free one) and starts serving; returns the
  /// bound port. `health` answers /healthz (200 while live, else 503) and /readyz (200 when ready,
  /// else 503), each with its text: what each kind is doing and, for one that is not reconciled, why
  /// and the fix.
  Expected<int> start(const std::string& addr, std::function<Health()> health, const Metrics& metrics,
                      Logger& log);
  /// Stops serving and joins the thread (also done by the destructor).
  void stop();

 private:
  struct State;
  std::unique_ptr<State> m_state;
};

}  // namespace kpt::controller
