#pragma once

// Where a PyTorchJob's fields can go in Trainer v2, per release: the TrainJob's own override of the
// runtime's pod template, or only a TrainingRuntime; and what its restart and clean-up policies
// become in the runtime's JobSet. Pure tables behind convert_pytorchjob.

#include "model/trainjob/release.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace kpt::model::trainjob {

/// Where a field of the node pods' template can be carried.
enum class Carrier {
  trainer,            ///< spec.trainer (image, command, args, env, resourcesPerNode)
  trainjob_override,  ///< the release's override (podSpecOverrides, podTemplateOverrides, runtimePatches)
  runtime,            ///< only a TrainingRuntime's pod template
  not_carried,        ///< JobSet or the replica spec decides it
};

/// A pod spec field (not `containers`) of the node pods: `trainjob_override` where the release's override
/// type has it (v2.0 podSpecOverrides: serviceAccountName, nodeSelector, tolerations, volumes,
/// schedulingGates; v2.1 adds affinity and imagePullSecrets; v2.2 securityContext; v2.3
/// terminationGracePeriodSeconds); `not_carried` for hostname and subdomain (JobSet sets them) and
/// restartPolicy (the replica's restartPolicy wins, in the operator too); else `runtime`.
/// initContainers are `runtime`: overrides may only patch init containers the runtime has.
Carrier pod_field_carrier(std::string_view key, TrainerRelease release);

/// A field of the `pytorch` container, which becomes container `node`: `trainer` for image,
/// command, args, env and resources; `trainjob_override` for volumeMounts, and securityContext from
/// v2.2 (ContainerPatch); `not_carried` for name; else `runtime` (ports, probes, workingDir, envFrom, ...).
Carrier container_field_carrier(std::string_view key, TrainerRelease release);

/// Whether the override carries pod labels and annotations (v2.1 podTemplateOverrides.metadata,
/// v2.2+ the patch's pod template metadata); v2.0's podSpecOverrides has no metadata.
bool pod_metadata_overridable(TrainerRelease release);

/// The TrainJob spec field the release overrides the runtime's pod template with:
/// "podSpecOverrides" (v2.0), "podTemplateOverrides" (v2.1) or "runtimePatches" (v2.2+).
std::string override_field(TrainerRelease release);

/// How the TrainJob field that overrides the runtime reads in notes: "spec.podSpecOverrides",
/// "spec.podTemplateOverrides" or "a runtime patch".
std::string override_name(TrainerRelease release);

/// What the runtime's node Job and JobSet get for the replica's restartPolicy and
/// runPolicy.backoffLimit.
struct RestartPlan {
  std::optional<std::string> pod_restart_policy;  ///< the node pods' restartPolicy when not OnFailure
  std::optional<std::int64_t> job_backoff_limit;  ///< the node Job's backoffLimit
  std::optional<std::int64_t> max_restarts;       ///< JobSet failurePolicy.maxRestarts
  bool needs_runtime() const { return pod_restart_policy || job_backoff_limit || max_restarts; }
};

/// The operator restarts pods one by one (`OnFailure`, `Always`, `ExitCode`), or fails the job at the
/// first failed pod (`Never`), and runPolicy.backoffLimit bounds the restarts of the whole job. A
/// JobSet's Job retries its own pods (batch default backoffLimit 6), and JobSet failurePolicy
/// recreates every Job of the group. So: backoffLimit N -> maxRestarts N with node Job backoffLimit 0
/// (each failure is one restart of the group); `Never` -> pods Never and node Job backoffLimit 0 (the
/// first failure fails the TrainJob, unless maxRestarts). `OnFailure` is JobSet's default and `Always`
/// is not a Job's, so both need nothing; `ExitCode` has no plan (a caller's note).
RestartPlan restart_plan(std::string_view restart_policy, std::optional<std::int64_t> backoff_limit);

/// The JobSet ttlSecondsAfterFinished for runPolicy.cleanPodPolicy and ttlSecondsAfterFinished:
/// `All` deletes the pods when the job finishes (0), else the TTL. Nothing when neither asks for it,
/// and nothing for releases that reconcile a finished TrainJob again: v2.1 re-creates a deleted JobSet
/// (kubeflow/trainer#2981), and v2.2-v2.3 do for a Failed TrainJob (#3779), so a TTL would start the
/// training again. Only v2.0 leaves a finished TrainJob alone.
std::optional<std::int64_t> jobset_ttl(std::string_view clean_pod_policy, std::optional<std::int64_t> ttl,
                                       TrainerRelease release);

}  // namespace kpt::model::trainjob
