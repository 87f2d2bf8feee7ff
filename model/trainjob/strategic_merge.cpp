#include "model/trainjob/strategic_merge.hpp"

#include "model/k8s/strategic_merge.hpp"

#include <array>
#include <string_view>

namespace kpt::model::trainjob {

namespace {

using nlohmann::json;

struct KeyedList {
  std::string_view path;  ///< below a PodSpec, or below the type the prefix reaches
  std::string_view merge_key;
};

// The lists of a PodSpec that merge by key (k8s.io/api core/v1 `patchMergeKey` tags).
constexpr std::array k_pod_spec_lists = {
    KeyedList{"containers", "name"},
    KeyedList{"containers.env", "name"},
    KeyedList{"containers.ports", "containerPort"},
    KeyedList{"containers.volumeMounts", "mountPath"},
    KeyedList{"containers.volumeDevices", "devicePath"},
    KeyedList{"containers.resources.claims", "name"},
    KeyedList{"initContainers", "name"},
    KeyedList{"initContainers.env", "name"},
    KeyedList{"initContainers.ports", "containerPort"},
    KeyedList{"initContainers.volumeMounts", "mountPath"},
    KeyedList{"initContainers.volumeDevices", "devicePath"},
    KeyedList{"initContainers.resources.claims", "name"},
    KeyedList{"ephemeralContainers", "name"},
    KeyedList{"ephemeralContainers.env", "name"},
    KeyedList{"ephemeralContainers.ports", "containerPort"},
    KeyedList{"ephemeralContainers.volumeMounts", "mountPath"},
    KeyedList{"ephemeralContainers.volumeDevices", "devicePath"},
    KeyedList{"ephemeralContainers.resources.claims", "name"},
    KeyedList{"volumes", "name"},
    KeyedList{"imagePullSecrets", "name"},
    KeyedList{"schedulingGates", "name"},
    KeyedList{"resourceClaims", "name"},
    KeyedList{"hostAliases", "ip"},
    KeyedList{"topologySpreadConstraints", "topologyKey"},
};

// Where a PodSpec sits below each type a patch is applied against; JobSetSpec's own keyed lists
// (JobSet v0.12.0 api types) are added to its table.
constexpr std::string_view k_job_template_to_pod_spec = "spec.template.spec.";
constexpr std::string_view k_jobset_to_pod_spec = "replicatedJobs.template.spec.template.spec.";

model::k8s::PatchStrategies pod_spec_below(std::string_view prefix) {
  model::k8s::PatchStrategies out;
  for (const auto& list : k_pod_spec_lists) {
    out.emplace(std::string(prefix) + std::string(list.path),
                model::k8s::ListStrategy{std::string(list.merge_key), true, false});
  }
  return out;
}

model::k8s::PatchStrategies strategies_for(PatchType type) {
  switch (type) {
    case PatchType::jobset_spec: {
      auto out = pod_spec_below(k_jobset_to_pod_spec);
      out.emplace("replicatedJobs", model::k8s::ListStrategy{"name", true, false});
      out.emplace("replicatedJobs.dependsOn", model::k8s::ListStrategy{"name", true, false});
      return out;
    }
    case PatchType::job_template_spec:
      return pod_spec_below(k_job_template_to_pod_spec);
    case PatchType::pod_template_spec:
      return pod_spec_below("spec.");
    case PatchType::pod_spec:
      return pod_spec_below("");
    case PatchType::resource_requirements:
      return {{"claims", model::k8s::ListStrategy{"name", true, false}}};
  }
  return {};
}

const model::k8s::PatchStrategies& strategies_of(PatchType type) {
  constexpr std::size_t k_types = static_cast<std::size_t>(PatchType::resource_requirements) + 1;
  static const auto k_tables = [] {
    std::array<model::k8s::PatchStrategies, k_types> out;
    for (std::size_t i = 0; i < k_types; ++i) out[i] = strategies_for(static_cast<PatchType>(i));
    return out;
  }();
  return k_tables[static_cast<std::size_t>(type)];
}

}  // namespace

nlohmann::json strategic_merge(nlohmann::json original, const nlohmann::json& patch, PatchType type) {
  // A typed patch merges without directives or merge-key checks, the only errors there are, so it
  // cannot fail; the Go code marshals a struct, so a patch that is not a map changes nothing.
  auto merged =
      model::k8s::strategic_merge(std::move(original), patch, strategies_of(type), model::k8s::k_typed_patch);
  return merged ? std::move(merged.value()) : nlohmann::json::object();
}

}  // namespace kpt::model::trainjob
