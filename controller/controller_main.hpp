#pragma once

#include "controller/feature_gates.hpp"
#include "controller/leader_election.hpp"
#include "controller/reconciler.hpp"
#include "controller/status_server.hpp"
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
  /// Named on the command line (--kinds): a cluster without the CRD is then an error.
  bool pytorchjobs_asked = false;
  bool trainjobs_asked = false;
};

struct ControllerConfig {
  ReconcilerOptions reconciler;  ///< its job_selector and instance serve TrainJobs too
  TrainJobOptions trainjob;
  ControllerKinds kinds;
  std::string namespace_;  ///< empty: every namespace
  int workers = 2;
  bool leader_elect = false;
  LeaseConfig lease;
  std::string metrics_addr = ":8080";  ///< /metrics, /healthz, /readyz; "0" turns the server off
  std::chrono::seconds resync{300};
  /// How often the leader looks again for another controller of its jobs (controller_guard.hpp).
  std::chrono::milliseconds guard_period{10000};
  bool skip_controller_check = false;  ///< --skip-controller-check: no guard at all
  /// The local cluster's own controller: the local cluster's /version names it, which is not
  /// another instance; and a kind blocked at start waits instead of ending the run.
  bool embedded = false;
  std::string version;  ///< kpt_controller_build_info
  std::string revision;
  FeatureGates features;
  /// With TrainJobStatus: the status server, on every replica (it needs no lease).
  StatusServerOptions status_server;
};

/// Parses --kinds: "pytorchjobs", "trainjobs" or both, comma-separated; nothing on a bad value.
std::optional<ControllerKinds> parse_kinds(const std::string& text);

/// Whether the API server serves `ref` (its resource in the group version's discovery document).
bool served(kube::ApiClient& client, const kube::ResourceRef& ref);

/// What a controller reconciles on a server that serves the given kinds: a kind named with --kinds
/// and not served is an error; otherwise the served ones. On a server that serves neither CRD yet it
/// waits for PyTorchJobs' (the CRD `controller manifests` installs).
Expected<ControllerKinds> effective_kinds(const ControllerKinds& wanted, bool pytorchjobs_served,
                                          bool trainjobs_served);

/// --via-jobset reconciles TrainJobs into JobSets: with `wanted` kinds that leave TrainJobs out, or a
/// server that does not serve TrainJobs or JobSets, an error naming the fix. `jobset_version` is the
/// JobSet release the Trainer release pulls (v0.12.0 for v2.3.0).
Expected<void> check_via_jobset(const ControllerKinds& wanted, bool trainjobs_served, bool jobsets_served,
                                const std::string& jobset_version);

/// Runs the controller until `stop` is set (exit code 0) or leadership is lost or the controller
/// must refuse to run (exit code 1: a kind it is asked for is not served, or, at the start, another
/// controller reconciles every kind it would; later the guard only pauses the kinds it blocks, each
/// kind on its own). `on_listening` receives the bound health/metrics port.
int run_controller(kube::ApiClient& client, const ControllerConfig& config, const util::Clock& clock,
                   Logger& log, std::atomic<bool>& stop, const std::function<void(int)>& on_listening = {});

}  // namespace kpt::controller
