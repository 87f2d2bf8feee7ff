#pragma once

#include "model/trainjob/build.hpp"
#include "model/trainjob/release.hpp"
#include "model/trainjob/runtime_ref.hpp"
#include "util/diagnostic.hpp"
#include "yaml/node.hpp"

#include <nlohmann/json.hpp>

#include <string>
#include <string_view>

namespace kpt::schema::rules {

/// What the Kubeflow Trainer rules check against.
struct TrainerRuleOptions {
  model::trainjob::TrainerRelease release = model::trainjob::k_newest_trainer_release;
  /// Runtimes a TrainJob may name beyond the ones the release ships: those of the same input (and
  /// the cluster's, when the caller has them). Null: only the shipped ones.
  const model::trainjob::AvailableRuntimes* runtimes = nullptr;
  /// Whether `runtimes` already holds the release's shipped runtimes (with_carried_runtimes): a run
  /// over many TrainJobs then builds that catalog once, not once per TrainJob.
  bool runtimes_include_carried = false;
};

/// True for the kinds these rules check: TrainJob, TrainingRuntime, ClusterTrainingRuntime.
bool is_trainer_kind(std::string_view kind);

/// Adds a TrainingRuntime or ClusterTrainingRuntime document to `into` (others are ignored), so the
/// TrainJobs of the same input are checked against it.
void collect_runtime(const yaml::Document& doc, model::trainjob::AvailableRuntimes& into);

/// Trainer's validating webhooks for `opts.release` (kubeflow/trainer pkg/webhooks and the plugins'
/// Validate), each finding at the field it names with the webhook's own message (the detail after
/// "<path>: Invalid value: <value>: "). Rule ids `trainer.*`:
/// - TrainJob: `trainer.runtime-ref` (unsupported kind, or a runtime found neither in the input,
///   `opts.runtimes` nor the release's shipped ones), `trainer.deprecated-runtime` (warning),
///   `trainer.initializer`, `trainer.reserved-env`, `trainer.env-injection` (v2.3),
///   `trainer.patch-manager`, `trainer.patch-job`, `trainer.patch-container`, `trainer.patch-env`
///   (runtimePatches, v2.2+), `trainer.torchtune-model`, `trainer.torchtune-num-nodes`,
///   `trainer.torchtune-args` (v2.3); then the TrainJob lints (`lint.trainjob-*`);
/// - TrainingRuntime / ClusterTrainingRuntime: `trainer.runtime-replicas`,
///   `trainer.runtime-container`, `trainer.deprecated-runtime` (warning); runtimes labelled
///   `trainer.kubeflow.org/webhook-validation: disabled` are skipped, as the webhook's selector does.
Diagnostics check_trainer_rules(const yaml::Document& doc, const TrainerRuleOptions& opts);

/// The runtime lints (TrainingRuntime, ClusterTrainingRuntime): `lint.runtime-mpi-num-proc-per-node`,
/// an mlPolicy.mpi.numProcPerNode below 1 that every carried release admits (kubeflow/trainer#3809
/// adds the CRD rule). Run whatever the webhook-validation label says: it is a CRD rule upstream.
Diagnostics check_runtime_lints(const yaml::Document& doc);

namespace detail {
/// The TrainJob half of check_trainer_rules (trainer_rules_trainjob.cpp).
Diagnostics check_trainjob_rules(const yaml::Document& doc, const TrainerRuleOptions& opts);
/// The runtime half (trainer_rules_runtime.cpp).
Diagnostics check_runtime_rules(const yaml::Document& doc);
/// The TrainJob lints (trainer_lints.cpp): `lint.trainjob-name-length` (a name the CRD admits but
/// JobSet's webhook rejects: 48 characters for torch-distributed, 33 with an initializer),
/// `lint.trainjob-num-nodes`, `lint.trainjob-num-proc-per-node`, `lint.trainjob-no-torchrun`,
/// `lint.trainjob-nproc-gpus`, `lint.trainjob-runtime-gpu`.
Diagnostics check_trainjob_lints(const yaml::Document& doc, const nlohmann::json& trainjob,
                                 const nlohmann::json& runtime, model::trainjob::TrainerRelease release);
/// "kubeflow/trainer#3809 rejects <field> <bound> at admission after v2.3.0" (trainer_bound_lints.cpp).
std::string upstream_bound_note(std::string_view field, std::string_view bound);
/// `lint.trainjob-num-nodes`: numNodes below 1 (torch) or below 0 (any framework), which every carried
/// release admits; a negative one names kubeflow/trainer#3809.
void lint_num_nodes(const yaml::Document& doc, model::trainjob::Framework framework, Diagnostics& out);
/// `lint.trainjob-num-proc-per-node`: an integer numProcPerNode below 1 (kubeflow/trainer#3809).
void lint_num_proc_per_node(const yaml::Document& doc, model::trainjob::Framework framework,
                            Diagnostics& out);
/// The runtimePatches half of the TrainJob rules (trainer_rules_patches.cpp).
Diagnostics check_patch_rules(const yaml::Document& doc, const nlohmann::json& runtime);
}  // namespace detail

}  // namespace kpt::schema::rules
