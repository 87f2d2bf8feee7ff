#include "model/trainjob/release.hpp"

#include "util/strings.hpp"

#include <charconv>

namespace kpt::model::trainjob {

namespace {

constexpr const char* k_pytorch_2_7 = "pytorch/pytorch:2.7.1-cuda12.8-cudnn9-runtime";
constexpr const char* k_pytorch_2_10 = "pytorch/pytorch:2.10.0-cuda12.8-cudnn9-runtime";
constexpr const char* k_pytorch_2_13 = "pytorch/pytorch:2.13.0-cuda13.0-cudnn9-runtime";

/// kubeflow/trainer v2.0.0 and v2.0.1 (pkg/runtime/core, pkg/runtime/framework/plugins, go.mod).
ReleaseFeatures v2_0() {
  ReleaseFeatures f;
  f.overrides = OverrideApi::pod_spec_overrides;
  f.spec_labels_annotations = true;
  f.num_proc_int_or_string = true;
  f.runtime_num_proc_per_node = true;
  f.accepts_cpu_num_proc = true;
  f.resources = ResourcesMode::replace;
  f.nproc = NprocRule::trainjob_limits_first;
  f.torchtune = TorchtuneRecipes::full_only;
  f.stops_when_finished = true;
  f.runtime_finalizers = true;
  f.pytorch_image = k_pytorch_2_7;
  f.jobset_version = "v0.8.2";
  return f;
}

ReleaseFeatures v2_1() {
  ReleaseFeatures f = v2_0();
  f.overrides = OverrideApi::pod_template_overrides;
  f.nproc = NprocRule::trainjob_or_runtime_requests_first;
  f.name_cel_rules = true;
  f.torchtune = TorchtuneRecipes::lora_substring;
  f.jobs_status = true;
  f.stops_when_finished = false;
  f.rebuilds_when_finished = true;
  f.jobset_version = "v0.10.1";
  return f;
}

ReleaseFeatures v2_2(bool patch_release) {
  ReleaseFeatures f = v2_1();
  f.overrides = OverrideApi::runtime_patches;
  f.patch_scope = PatchScope::per_replicated_job;
  f.spec_labels_annotations = false;
  f.num_proc_int_or_string = false;
  f.runtime_num_proc_per_node = false;
  f.accepts_cpu_num_proc = false;
  f.active_deadline = true;
  f.keeps_status_without_jobset = true;
  f.immutable_cel_rules = true;
  f.jax_xgboost = true;
  f.rebuilds_when_finished = false;
  f.patches_when_either_suspended = patch_release;
  f.pytorch_image = k_pytorch_2_10;
  f.jobset_version = "v0.11.1";
  return f;
}

ReleaseFeatures v2_3() {
  ReleaseFeatures f = v2_2(true);
  f.patch_scope = PatchScope::whole_jobset_spec;
  f.resources = ResourcesMode::merge;
  f.env_injection = true;
  f.runtime_snapshot = true;
  f.skips_external_managed_by = true;
  f.storage_uri_cel = true;
  f.termination_grace_period_patch = true;
  f.torchtune_arg_checks = true;
  f.torchtune = TorchtuneRecipes::lora_boolean_values;
  f.runtime_finalizers = false;
  f.pytorch_image = k_pytorch_2_13;
  f.jobset_version = "v0.12.0";
  return f;
}

}  // namespace

std::string TrainerRelease::to_string() const {
  return "v" + std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(patch);
}

std::optional<TrainerRelease> parse_trainer_release(std::string_view text) {
  if (util::starts_with(text, "trainer@")) text.remove_prefix(8);
  if (util::starts_with(text, "v")) text.remove_prefix(1);
  const auto parts = util::split(text, '.');
  if (parts.size() != 3) return std::nullopt;
  int numbers[3] = {0, 0, 0};
  for (std::size_t i = 0; i < 3; ++i) {
    const std::string& part = parts[i];
    const auto [end, ec] = std::from_chars(part.data(), part.data() + part.size(), numbers[i]);
    if (part.empty() || ec != std::errc() || end != part.data() + part.size()) return std::nullopt;
  }
  const TrainerRelease candidate{numbers[0], numbers[1], numbers[2]};
  for (const auto& known : k_trainer_releases) {
    if (known == candidate) return candidate;
  }
  return std::nullopt;
}

std::string known_trainer_releases_list() {
  std::vector<std::string> names;
  for (const auto& r : k_trainer_releases) names.push_back(r.to_string());
  return util::join(names, ", ");
}

const ReleaseFeatures& features_of(TrainerRelease release) {
  static const ReleaseFeatures f20 = v2_0();
  static const ReleaseFeatures f21 = v2_1();
  static const ReleaseFeatures f220 = v2_2(false);
  static const ReleaseFeatures f221 = v2_2(true);
  static const ReleaseFeatures f23 = v2_3();
  if (release.at_least(3)) return f23;
  if (release.at_least(2, 1)) return f221;
  if (release.at_least(2)) return f220;
  if (release.at_least(1)) return f21;
  return f20;
}

}  // namespace kpt::model::trainjob
