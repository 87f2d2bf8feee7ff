#pragma once

#include <array>
#include <optional>
#include <string>
#include <string_view>

namespace kpt::model::trainjob {

/// A Kubeflow Trainer v2 release whose behaviour the model reproduces.
struct TrainerRelease {
  int major = 2;
  int minor = 3;
  int patch = 0;

  friend auto operator<=>(const TrainerRelease&, const TrainerRelease&) = default;
  [[nodiscard]] std::string to_string() const;  ///< "v2.3.0"
  /// True for v2.<minor>.<patch> and later.
  [[nodiscard]] bool at_least(int mi, int pa = 0) const { return *this >= TrainerRelease{2, mi, pa}; }
};

/// Every v2 release the model knows, oldest first.
inline constexpr std::array<TrainerRelease, 6> k_trainer_releases{{
    {2, 0, 0},
    {2, 0, 1},
    {2, 1, 0},
    {2, 2, 0},
    {2, 2, 1},
    {2, 3, 0},
}};
inline constexpr TrainerRelease k_newest_trainer_release{2, 3, 0};

/// Parses "v2.3.0", "2.3.0" or "trainer@v2.3.0". Only known releases parse.
std::optional<TrainerRelease> parse_trainer_release(std::string_view text);

/// "v2.0.0, v2.0.1, ..." for error messages and --help.
std::string known_trainer_releases_list();

/// Which TrainJob field a release uses to override the runtime's pod templates.
enum class OverrideApi {
  pod_spec_overrides,      ///< v2.0: spec.podSpecOverrides[] (targetJobs + PodSpec fields)
  pod_template_overrides,  ///< v2.1: spec.podTemplateOverrides[] (adds metadata, affinity, imagePullSecrets)
  runtime_patches,         ///< v2.2+: spec.runtimePatches[] (per manager)
};

/// What a runtime patch is strategic-merged onto.
enum class PatchScope {
  per_replicated_job,  ///< v2.2: each patch job's template onto the runtime job of that name (new names
                       ///< dropped)
  whole_jobset_spec,   ///< v2.3: the patch's template.spec onto the whole JobSetSpec, job order restored
};

/// How trainer.resourcesPerNode reaches container `node`.
enum class ResourcesMode {
  replace,  ///< v2.0-v2.2: the TrainJob's requirements replace the runtime's
  merge,    ///< v2.3: requests and limits merge per key, the TrainJob winning
};

/// Where PET_NPROC_PER_NODE's CPU/GPU count comes from.
enum class NprocRule {
  /// v2.0: only trainer.resourcesPerNode, limits first, then requests; without it the runtime value passes.
  trainjob_limits_first,
  /// v2.1+: trainer.resourcesPerNode if set, else the runtime's `node` resources; requests first.
  trainjob_or_runtime_requests_first,
};

/// How the torchtune plugin picks its recipe.
enum class TorchtuneRecipes {
  full_only,            ///< v2.0: full_finetune single device or distributed
  lora_substring,       ///< v2.1-v2.2: LoRA/QLoRA, flags detected by substring
  lora_boolean_values,  ///< v2.3: QLoRA/DoRA need a true value ("model.quantize_base=True")
};

/// What changes between releases, read at each tag of kubeflow/trainer.
struct ReleaseFeatures {
  OverrideApi overrides = OverrideApi::runtime_patches;
  PatchScope patch_scope = PatchScope::whole_jobset_spec;  ///< meaningful with runtime_patches only
  bool spec_labels_annotations = false;    ///< spec.labels/annotations merged into the JobSet (v2.0-v2.1)
  bool num_proc_int_or_string = false;     ///< trainer.numProcPerNode is IntOrString (v2.0-v2.1), else int32
  bool runtime_num_proc_per_node = false;  ///< mlPolicy.torch.numProcPerNode exists (default "auto")
  bool accepts_cpu_num_proc = false;       ///< "cpu" is a valid numProcPerNode (v2.0-v2.1)
  ResourcesMode resources = ResourcesMode::merge;
  NprocRule nproc = NprocRule::trainjob_or_runtime_requests_first;
  bool env_injection = false;                  ///< mlPolicy.torch.envInjection (v2.3)
  bool runtime_snapshot = false;               ///< <name>-runtime-snapshot ConfigMap (v2.3)
  bool active_deadline = false;                ///< spec.activeDeadlineSeconds (v2.2+)
  bool skips_external_managed_by = false;      ///< controller ignores managedBy multikueue (v2.3)
  bool patches_when_either_suspended = false;  ///< patches change if old OR new is suspended (v2.2.1+)
  bool name_cel_rules = false;                 ///< metadata.name RFC 1035 and <= 63 CEL rules (v2.1+)
  bool immutable_cel_rules = false;            ///< `self == oldSelf` on trainer, initializer, patches (v2.2+)
  bool storage_uri_cel = false;                ///< initializer storageUri CEL rule (v2.3)
  bool termination_grace_period_patch = false;  ///< PodSpecPatch terminationGracePeriodSeconds (v2.3)
  bool torchtune_arg_checks = false;            ///< "must not set immutable config" on trainer args (v2.3)
  TorchtuneRecipes torchtune = TorchtuneRecipes::lora_boolean_values;
  bool jax_xgboost = false;                  ///< mlPolicy.jax / mlPolicy.xgboost plugins (v2.2+)
  bool jobs_status = false;                  ///< status.jobsStatus copied from the JobSet (v2.1+)
  bool keeps_status_without_jobset = false;  ///< a finished TrainJob's gone JobSet is no error (v2.2+)
  bool stops_when_finished = false;          ///< a finished TrainJob is not reconciled at all (v2.0)
  bool rebuilds_when_finished = false;       ///< the JobSet is re-applied even when finished (v2.1)
  bool runtime_finalizers = false;  ///< runtimes get trainer.kubeflow.org/resource-in-use (v2.0-v2.2)
  const char* pytorch_image = "";   ///< torch-distributed's image
  const char* jobset_version = "";  ///< the JobSet release the install manifests pull
};

/// The feature table of a release (any value: unknown ones get the nearest older known release).
const ReleaseFeatures& features_of(TrainerRelease release);

}  // namespace kpt::model::trainjob
