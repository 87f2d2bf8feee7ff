#pragma once

#include "controller/leader_election.hpp"
#include "controller/reconciler.hpp"
#include "kube/api_client.hpp"
#include "util/clock.hpp"

#include <atomic>
#include <chrono>
#include <functional>
#include <string>

namespace kpt::controller {

class Logger;

struct ControllerConfig {
  ReconcilerOptions reconciler;
  std::string namespace_;  ///< empty: every namespace
  int workers = 2;
  bool leader_elect = false;
  LeaseConfig lease;
  std::string metrics_addr = ":8080";  ///< /metrics, /healthz, /readyz; "0" turns the server off
  std::chrono::seconds resync{300};
};

/// A Training Operator Deployment found in the cluster ("kubeflow/training-operator"), if any.
std::string detect_training_operator(kube::ApiClient& client);

/// Runs the controller until `stop` is set (exit code 0) or leadership is lost or the controller
/// must refuse to run (exit code 1). `on_listening` receives the bound health/metrics port.
int run_controller(kube::ApiClient& client, const ControllerConfig& config, const util::Clock& clock,
                   Logger& log, std::atomic<bool>& stop, const std::function<void(int)>& on_listening = {});

}  // namespace kpt::controller
