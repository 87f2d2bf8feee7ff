#pragma once

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
  /// bound port. `ready` answers /readyz.
  Expected<int> start(const std::string& addr, std::function<bool()> ready, const Metrics& metrics,
                      Logger& log);
  /// Stops serving and joins the thread (also done by the destructor).
  void stop();

 private:
  struct State;
  std::unique_ptr<State> m_state;
};

}  // namespace kpt::controller
