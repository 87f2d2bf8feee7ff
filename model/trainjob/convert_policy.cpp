// The per-release tables behind convert: kubeflow/trainer's override types at each tag
// (podSpecOverrides v2.0, podTemplateOverrides v2.1, runtimePatches' PodSpecPatch v2.2/v2.3) and
// JobSet's failure and TTL policies.
#include "model/trainjob/convert_policy.hpp"

#include <algorithm>
#include <array>

namespace kpt::model::trainjob {

namespace {

/// A field and the first release whose override type has it.
struct Since {
  std::string_view key;
  TrainerRelease release;
};

constexpr std::array<Since, 9> k_pod_override_fields = {{
    {"serviceAccountName", {2, 0, 0}},
    {"nodeSelector", {2, 0, 0}},
    {"tolerations", {2, 0, 0}},
    {"volumes", {2, 0, 0}},
    {"schedulingGates", {2, 0, 0}},
    {"affinity", {2, 1, 0}},
    {"imagePullSecrets", {2, 1, 0}},
    {"securityContext", {2, 2, 0}},
    {"terminationGracePeriodSeconds", {2, 3, 0}},
}};

constexpr std::array<Since, 2> k_container_override_fields = {{
    {"volumeMounts", {2, 0, 0}},
    {"securityContext", {2, 2, 0}},
}};

template <std::size_t N>
bool has_since(const std::array<Since, N>& table, std::string_view key, TrainerRelease release) {
  return std::any_of(table.begin(), table.end(),
                     [&](const Since& s) { return s.key == key && release >= s.release; });
}

}  // namespace

Carrier pod_field_carrier(std::string_view key, TrainerRelease release) {
  if (key == "hostname" || key == "subdomain" || key == "restartPolicy") return Carrier::not_carried;
  return has_since(k_pod_override_fields, key, release) ? Carrier::trainjob_override : Carrier::runtime;
}

Carrier container_field_carrier(std::string_view key, TrainerRelease release) {
  if (key == "name") return Carrier::not_carried;
  if (key == "image" || key == "command" || key == "args" || key == "env" || key == "resources")
    return Carrier::trainer;
  return has_since(k_container_override_fields, key, release) ? Carrier::trainjob_override : Carrier::runtime;
}

bool pod_metadata_overridable(TrainerRelease release) { return release.at_least(1); }

std::string override_field(TrainerRelease release) {
  switch (features_of(release).overrides) {
    case OverrideApi::pod_spec_overrides:
      return "podSpecOverrides";
    case OverrideApi::pod_template_overrides:
      return "podTemplateOverrides";
    case OverrideApi::runtime_patches:
      break;
  }
  return "runtimePatches";
}

std::string override_name(TrainerRelease release) {
  // A runtime patch is one item of a list, so notes name it rather than the field.
  if (features_of(release).overrides == OverrideApi::runtime_patches) return "a runtime patch";
  return "spec." + override_field(release);
}

RestartPlan restart_plan(std::string_view restart_policy, std::optional<std::int64_t> backoff_limit) {
  RestartPlan plan;
  if (restart_policy == "Never") {
    plan.pod_restart_policy = "Never";
    plan.job_backoff_limit = 0;
  }
  if (backoff_limit) {
    plan.max_restarts = *backoff_limit;
    plan.job_backoff_limit = 0;
  }
  return plan;
}

std::optional<std::int64_t> jobset_ttl(std::string_view clean_pod_policy, std::optional<std::int64_t> ttl,
                                       TrainerRelease release) {
  if (!features_of(release).stops_when_finished) return std::nullopt;
  if (clean_pod_policy == "All") return 0;
  return ttl;
}

}  // namespace kpt::model::trainjob
