#pragma once

#include "model/trainjob/env_plan.hpp"
#include "model/trainjob/release.hpp"
#include "model/trainjob/runtime_ref.hpp"
#include "plugin/env/env_live.hpp"
#include "plugin/env/env_output.hpp"
#include "util/expected.hpp"

#include <nlohmann/json.hpp>

#include <functional>
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

namespace kpt::plugin {

/// The runtime a TrainJob names and where it was found.
struct FoundRuntime {
  nlohmann::json runtime;
  std::string from;  ///< "from the input", "from the cluster" or "shipped with Trainer v2.3.0"
};

/// Asks the cluster for a runtime: the object, or an error (code not_found when it has none).
using RuntimeLookup = std::function<Expected<nlohmann::json>(const model::trainjob::RuntimeRef&)>;

/// The runtime `trainjob` names, looked up as a user expects: first the runtimes of the input
/// (`given`), then the cluster (`cluster`, when set), then the ClusterTrainingRuntimes `release`
/// ships. None: the controller's own error text ("not found ClusterTrainingRuntime specified in
/// TrainJob: ..."), code not_found; an unsupported kind or group: "unsupported runtime: ...".
Expected<FoundRuntime> find_trainjob_runtime(const nlohmann::json& trainjob,
                                             const model::trainjob::AvailableRuntimes& given,
                                             const RuntimeLookup& cluster,
                                             model::trainjob::TrainerRelease release);

/// The pod table's header for TrainJobs: POD (the name prefix plus the API server's 5 random
/// characters, shown as xxxxx), HOSTNAME, NODE RANK, SERVICE.
std::vector<std::string> trainjob_env_header();

/// One table row per trainer pod, keyed by hostname (stable, unlike the pod name). A value read
/// from a Secret, ConfigMap or resource is shown as "(secretKeyRef name/key)" and so on.
std::vector<EnvTablePod> trainjob_env_rows(const model::trainjob::EnvPlan& plan);

/// The first lines of the table output: release, runtime and where it came from, framework, master.
std::vector<std::string> trainjob_env_heading(const model::trainjob::EnvPlan& plan,
                                              model::trainjob::TrainerRelease release,
                                              const nlohmann::json& trainjob, const FoundRuntime& runtime);

/// -o json: {"kind": "TrainJob", "trainer", "runtime": {"kind", "name", "from"}, "framework",
/// "masterAddr", "masterPort", "pods": [{"name", "generateName", "hostname", "subdomain", "index",
/// "env": [{"name", "value"} or {"name", "value", "valueFrom"}]}], "notes"}.
void write_trainjob_env_json(std::ostream& out, const model::trainjob::EnvPlan& plan,
                             model::trainjob::TrainerRelease release, const nlohmann::json& trainjob,
                             const FoundRuntime& runtime);

/// A running trainer pod as --live compares it: named by its hostname, the env of container `node`
/// with fieldRefs read from the pod itself (PET_NODE_RANK from its completion-index annotation).
/// Pods without a `node` container (initializers) give nothing.
std::optional<LivePod> live_trainjob_pod(const nlohmann::json& pod);

}  // namespace kpt::plugin
