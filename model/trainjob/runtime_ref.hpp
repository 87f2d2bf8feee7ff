#pragma once

#include "model/trainjob/release.hpp"
#include "util/expected.hpp"

#include <nlohmann/json.hpp>

#include <string>
#include <string_view>
#include <vector>

namespace kpt::model::trainjob {

/// spec.runtimeRef with the CRD defaults applied (kind ClusterTrainingRuntime, apiGroup
/// trainer.kubeflow.org).
struct RuntimeRef {
  std::string name;
  std::string api_group;
  std::string kind;
  bool api_group_set = false;  ///< whether the TrainJob wrote apiGroup
  bool kind_set = false;       ///< whether the TrainJob wrote kind

  /// The controller's registry key, "ClusterTrainingRuntime.trainer.kubeflow.org".
  [[nodiscard]] std::string registry_key() const { return kind + "." + api_group; }
  /// TrainingRuntime or ClusterTrainingRuntime in trainer.kubeflow.org.
  [[nodiscard]] bool supported() const;
  /// The value as the Go struct marshals it: {"name":..,"apiGroup":..,"kind":..}.
  [[nodiscard]] std::string to_json_text() const;
};

/// The TrainJob's runtimeRef, defaulted.
RuntimeRef runtime_ref_of(const nlohmann::json& trainjob);

/// A TrainJob's spec.trainer when it is an object, else nullptr.
const nlohmann::json* trainer_of(const nlohmann::json& trainjob);

/// The runtimes a lookup may find, as objects: TrainingRuntimes (matched against the TrainJob's
/// namespace through their metadata.namespace) and ClusterTrainingRuntimes.
struct AvailableRuntimes {
  std::vector<nlohmann::json> training_runtimes;
  std::vector<nlohmann::json> cluster_training_runtimes;
};

/// `available` plus the release's carried ClusterTrainingRuntimes whose names it lacks.
AvailableRuntimes with_carried_runtimes(AvailableRuntimes available, TrainerRelease release);

/// Who looks the runtime up; each words a missing runtime its own way.
enum class LookupBy {
  controller,  ///< the reconcile (its error goes only into a Warning event)
  webhook,     ///< the TrainJob validating webhook (a field error that denies the request)
};

/// The runtime the TrainJob names, or the real error text (code not_found for a missing runtime,
/// usage for an unsupported kind or group):
///   "unsupported runtime: Foo.example.com"
///   controller: "TrainingRuntime specified in TrainJob is not found: trainingruntimes.trainer.kubeflow.org
///               \"x\" not found", "not found ClusterTrainingRuntime specified in TrainJob: ..."
///   webhook:    "spec.runtimeRef: Invalid value: {...}: trainingruntimes.trainer.kubeflow.org \"x\" not
///               found: specified trainingRuntime must be created before the TrainJob is created"
///               (`spec.RuntimeRef` and "clusterTrainingRuntime" for the cluster kind).
Expected<nlohmann::json> resolve_runtime(const nlohmann::json& trainjob, const AvailableRuntimes& available,
                                         LookupBy by);

/// The warning the webhook adds for a ClusterTrainingRuntime labelled trainer.kubeflow.org/support:
/// deprecated, or "" when it is not deprecated.
std::string deprecated_runtime_warning(const nlohmann::json& runtime);

/// The ConfigMap `<trainjob>-runtime-snapshot` v2.3 applies before building the JobSet: data key
/// `runtime` holds the runtime object as YAML; the TrainJob is its controller owner.
nlohmann::json runtime_snapshot_configmap(const nlohmann::json& trainjob, const nlohmann::json& runtime);

/// The runtime held by an existing snapshot ConfigMap, checked as v2.3 checks it, or the error
/// text the reconcile fails with ("invalid runtime snapshot: ..."); the caller wraps it with
/// "unable to get runtime snapshot: " (TrainingRuntime) or "getting runtime snapshot: ".
Expected<nlohmann::json> runtime_from_snapshot(const nlohmann::json& configmap,
                                               const nlohmann::json& trainjob);

/// What the reconcile builds from, and whether it must first apply a new snapshot.
struct ReconcileRuntime {
  nlohmann::json runtime;
  bool apply_snapshot = false;  ///< v2.3 with no snapshot ConfigMap yet
};

/// The reconcile's runtime lookup for `release`: from v2.3 an existing snapshot (`snapshot`, nullptr
/// when the ConfigMap is not found) wins and an invalid one fails ("unable to get runtime snapshot: ..."
/// or "getting runtime snapshot: ..."), never falling back; without one, and before v2.3 always, the
/// live runtime from `available`.
Expected<ReconcileRuntime> runtime_for_reconcile(const nlohmann::json& trainjob,
                                                 const nlohmann::json* snapshot,
                                                 const AvailableRuntimes& available, TrainerRelease release);

}  // namespace kpt::model::trainjob
