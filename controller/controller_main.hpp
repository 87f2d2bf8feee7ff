#pragma once

#include "controller/leader_election.hpp"
#include "controller/reconciler.hpp"
#include "controller/trainjob_reconciler.hpp"
#include "kube/api_client.hpp"
#include "util/clock.hpp"

#include <atomic>
#include <chrono>
#include <functional>
#include <optional>
#include <string>

namespace kpt::controller {

class Logger;

/// Which kinds the controller reconciles (--kinds).
struct ControllerKinds {
  bool pytorchjobs = true;
  bool trainjobs = true;
  bool trainjobs_asked = false;  ///< named on the command line: a cluster without the CRD is an error
};

struct ControllerConfig {
  ReconcilerOptions reconciler;
  TrainJobOptions trainjob;
  ControllerKinds kinds;
  std::string namespace_;  ///< empty: every namespace
  int workers = 2;
  bool leader_elect = false;
  LeaseConfig lease;
  std::string metrics_addr = ":8080";  ///< /metrics, /healthz, /readyz; "0" turns the server off
  std::chrono::seconds resync{300};
};

/// Parses --kinds: "pytorchjobs", "trainjobs" or both, comma-separated; nothing on a bad value.
std::optional<ControllerKinds> parse_kinds(const std::string& text);

/// Whether the API server serves TrainJobs (trainer.kubeflow.org/v1alpha1 in discovery).
bool trainjobs_served(kube::ApiClient& client);

/// A Training Operator Deployment found in the cluster ("kubeflow/training-operator"), if any.
std::string detect_training_operator(kube::ApiClient& client);

/// Runs the controller until `stop` is set (exit code 0) or leadership is lost or the controller
/// must refuse to run (exit code 1). `on_listening` receives the bound health/metrics port.
int run_controller(kube::ApiClient& client, const ControllerConfig& config, const util::Clock& clock,
                   Logger& log, std::atomic<bool>& stop, const std::function<void(int)>& on_listening = {});

}  // namespace kpt::controller
