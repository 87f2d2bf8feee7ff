#pragma once

// Which controller reconciles which job (docs/controller.md, "Ownership"): the pure rules our
// controller applies to PyTorchJobs and TrainJobs alike.

#include "model/pytorchjob/env_style.hpp"

#include <nlohmann/json_fwd.hpp>

#include <optional>
#include <string>

namespace kpt::model {

enum class JobKind { pytorchjob, trainjob };

/// The label a platform team puts on a job to say which instance of our controller runs it; every
/// webhook accepts it (the Training Operator's and Trainer's accept no managedBy of ours). An
/// instance started with `--job-selector kubectl-pytorch.kubeflow.org/controller=NAME` takes those.
inline constexpr const char* k_controller_label = "kubectl-pytorch.kubeflow.org/controller";

/// The env style a job's pods are made with, fixed for the job's life: written by a controller run
/// with --migrate-from on the jobs it takes over (and may be set by hand on a new job).
inline constexpr const char* k_env_style_annotation = "kubectl-pytorch.kubeflow.org/env-style";

/// The managedBy the kind's own controller answers to: kubeflow.org/training-operator (PyTorchJob,
/// spec.runPolicy.managedBy), trainer.kubeflow.org/trainjob-controller (TrainJob, spec.managedBy).
const char* default_manager(JobKind kind);

/// The job's managedBy when it names another controller than the kind's own (Kueue's MultiKueue is
/// the other value the webhooks accept), else "": such a job is never ours, as the operator and
/// Trainer skip it too.
std::string external_manager(JobKind kind, const nlohmann::json& job);

/// The style the job's annotation names, else `fallback` (also for an annotation no style parses).
pytorchjob::EnvStyle env_style_of(const nlohmann::json& job, const pytorchjob::EnvStyle& fallback);

/// What a controller run with `--migrate-from migrate_from` writes into the annotation of a job that
/// has none: `migrate_from` for a job another controller started (it has conditions: its pods carry that
/// controller's env, and pods made again must too), `ours` for a job not started yet; nothing when
/// the job is annotated already.
std::optional<std::string> style_to_record(const nlohmann::json& job,
                                           const pytorchjob::EnvStyle& migrate_from,
                                           const pytorchjob::EnvStyle& ours);

}  // namespace kpt::model
