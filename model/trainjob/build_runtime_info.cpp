// newRuntimeInfo and the override merges of each release
// (kubeflow/trainer pkg/runtime/core/trainingruntime.go at v2.0.0, v2.1.0, v2.2.0 and v2.3.0).

#include "model/k8s/object_meta.hpp"
#include "model/trainjob/build_detail.hpp"
#include "model/trainjob/constants.hpp"
#include "model/trainjob/strategic_merge.hpp"
#include "util/json_access.hpp"

#include <algorithm>
#include <map>

namespace kpt::model::trainjob::detail {

using k8s::label_of;
using util::array_at;
using util::at_path;
using util::child;
using util::ensure_path;
using util::find_by;
using util::string_at;

namespace {

using nlohmann::json;

void overlay_strings(json& into, const json* from) {
  if (from == nullptr || !from->is_object()) return;
  for (const auto& [k, v] : from->items()) into[k] = v;
}

/// v2.0-v2.1: spec.labels / spec.annotations; v2.2+: each runtime patch's template.metadata.
void propagate_metadata(RuntimeInfo& info, const json& trainjob, const json& runtime,
                        const ReleaseFeatures& f) {
  overlay_strings(info.labels, at_path(runtime, "spec.template.metadata.labels"));
  overlay_strings(info.annotations, at_path(runtime, "spec.template.metadata.annotations"));
  if (f.spec_labels_annotations) {
    overlay_strings(info.labels, at_path(trainjob, "spec.labels"));
    overlay_strings(info.annotations, at_path(trainjob, "spec.annotations"));
    return;
  }
  if (f.overrides != OverrideApi::runtime_patches) return;
  for (const auto& patch : array_at(trainjob, "spec.runtimePatches")) {
    overlay_strings(info.labels, at_path(patch, "trainingRuntimeSpec.template.metadata.labels"));
    overlay_strings(info.annotations, at_path(patch, "trainingRuntimeSpec.template.metadata.annotations"));
  }
}

bool targets(const json& override_entry, const std::string& job_name) {
  for (const auto& target : array_at(override_entry, "targetJobs")) {
    if (string_at(target, "name") == job_name) return true;
  }
  return false;
}

/// Merges `patch` at `path` of every replicated job an override entry's targetJobs name.
void merge_into_targets(json& spec, const json& entry, const json& patch, const char* path, PatchType type) {
  for (auto& job : spec["replicatedJobs"]) {
    if (!targets(entry, string_at(job, "name"))) continue;
    json& target = ensure_path(job, path);
    target = strategic_merge(std::move(target), patch, type);
  }
}

/// v2.0 mergePodSpecOverrides: each override (minus targetJobs) onto the pod spec of its targets.
void merge_pod_spec_overrides(json& spec, const json& trainjob) {
  for (const auto& entry : array_at(trainjob, "spec.podSpecOverrides")) {
    json patch = entry;
    if (patch.is_object()) patch.erase("targetJobs");
    merge_into_targets(spec, entry, patch, "template.spec.template.spec", PatchType::pod_spec);
  }
}

/// v2.1 mergePodTemplateOverrides: metadata labels/annotations and spec onto the pod template.
void merge_pod_template_overrides(json& spec, const json& trainjob) {
  for (const auto& entry : array_at(trainjob, "spec.podTemplateOverrides")) {
    json patch = json::object();
    json metadata = json::object();
    if (const json* labels = at_path(entry, "metadata.labels"); labels != nullptr && !labels->is_null()) {
      metadata["labels"] = *labels;
    }
    if (const json* ann = at_path(entry, "metadata.annotations"); ann != nullptr && !ann->is_null()) {
      metadata["annotations"] = *ann;
    }
    if (!metadata.empty()) patch["metadata"] = metadata;
    if (const json* pod_spec = child(entry, "spec"); pod_spec != nullptr && !pod_spec->is_null()) {
      patch["spec"] = *pod_spec;
    }
    merge_into_targets(spec, entry, patch, "template.spec.template", PatchType::pod_template_spec);
  }
}

/// v2.2 mergeRuntimePatches: each patch job's template onto the runtime job of the same name.
void merge_patches_per_job(json& spec, const json& trainjob) {
  for (const auto& patch : array_at(trainjob, "spec.runtimePatches")) {
    if (at_path(patch, "trainingRuntimeSpec.template.spec") == nullptr) continue;
    for (const auto& job_patch : array_at(patch, "trainingRuntimeSpec.template.spec.replicatedJobs")) {
      const json* tmpl = child(job_patch, "template");
      if (tmpl == nullptr || tmpl->is_null()) continue;
      for (auto& job : spec["replicatedJobs"]) {
        if (string_at(job, "name") != string_at(job_patch, "name")) continue;
        json& target = ensure_path(job, "template");
        target = strategic_merge(std::move(target), *tmpl, PatchType::job_template_spec);
      }
    }
  }
}

/// v2.3 mergeRuntimePatches: each patch's template.spec onto the JobSetSpec, then the runtime's job
/// order is restored with a stable sort (a job the runtime lacks ranks as its first job, as a missing
/// key reads 0 from the Go map).
void merge_patches_whole_spec(json& spec, const json& trainjob) {
  std::map<std::string, std::size_t> order;
  for (std::size_t i = 0; i < spec["replicatedJobs"].size(); ++i)
    order[string_at(spec["replicatedJobs"][i], "name")] = i;
  for (const auto& patch : array_at(trainjob, "spec.runtimePatches")) {
    const json* patch_spec = at_path(patch, "trainingRuntimeSpec.template.spec");
    if (patch_spec == nullptr || patch_spec->is_null()) continue;
    spec = strategic_merge(std::move(spec), *patch_spec, PatchType::jobset_spec);
  }
  if (!spec.contains("replicatedJobs") || !spec["replicatedJobs"].is_array()) return;
  std::vector<json> jobs(spec["replicatedJobs"].begin(), spec["replicatedJobs"].end());
  auto rank = [&](const json& job) {
    const auto it = order.find(string_at(job, "name"));
    return it == order.end() ? std::size_t{0} : it->second;
  };
  std::stable_sort(jobs.begin(), jobs.end(), [&](const json& a, const json& b) { return rank(a) < rank(b); });
  spec["replicatedJobs"] = jobs;
}

void merge_overrides(json& spec, const json& trainjob, const ReleaseFeatures& f) {
  switch (f.overrides) {
    case OverrideApi::pod_spec_overrides:
      merge_pod_spec_overrides(spec, trainjob);
      break;
    case OverrideApi::pod_template_overrides:
      merge_pod_template_overrides(spec, trainjob);
      break;
    case OverrideApi::runtime_patches:
      if (f.patch_scope == PatchScope::per_replicated_job) {
        merge_patches_per_job(spec, trainjob);
      } else {
        merge_patches_whole_spec(spec, trainjob);
      }
      break;
  }
}

bool mpi_launcher_as_node(const json& ml_policy) {
  const json* v = at_path(ml_policy, "mpi.runLauncherAsNode");
  return v != nullptr && v->is_boolean() && v->get<bool>();
}

/// v2.3: trainer.resourcesPerNode strategic-merged onto the runtime's requests and limits of the
/// first `node` container; only requests and limits are written back, so claims are dropped.
void merge_resources(json& job, const json& resources_per_node) {
  json* containers = const_cast<json*>(at_path(job, "template.spec.template.spec.containers"));
  json* node = containers != nullptr ? find_by(*containers, "name", k_node) : nullptr;
  if (node == nullptr) return;
  json base = json::object();
  if (const json* limits = at_path(*node, "resources.limits"); limits != nullptr && !limits->is_null()) {
    base["limits"] = *limits;
  }
  if (const json* requests = at_path(*node, "resources.requests");
      requests != nullptr && !requests->is_null()) {
    base["requests"] = *requests;
  }
  json merged = strategic_merge(std::move(base), resources_per_node, PatchType::resource_requirements);
  json out = json::object();
  if (merged.contains("limits")) out["limits"] = std::move(merged["limits"]);
  if (merged.contains("requests")) out["requests"] = std::move(merged["requests"]);
  (*node)["resources"] = out;
}

PodSet pod_set_for(json& job, const json& trainjob, const json& ml_policy, const ReleaseFeatures& f) {
  PodSet ps;
  ps.name = string_at(job, "name");
  const json* parallelism = at_path(job, "template.spec.parallelism");
  ps.count =
      parallelism != nullptr && parallelism->is_number_integer() ? parallelism->get<std::int64_t>() : 1;
  const json* labels = at_path(job, "template.metadata.labels");
  if (labels != nullptr && labels->contains(k_label_ancestor) && (*labels)[k_label_ancestor].is_string()) {
    ps.ancestor = (*labels)[k_label_ancestor].get<std::string>();
    if (*ps.ancestor == k_ancestor_trainer && !ml_policy.is_null()) {
      const json* nodes = child(ml_policy, "numNodes");
      ps.count = nodes != nullptr && nodes->is_number_integer() ? nodes->get<std::int64_t>() : 1;
    }
  }
  const json* resources = at_path(trainjob, "spec.trainer.resourcesPerNode");
  if (f.resources == ResourcesMode::merge && resources != nullptr && resources->is_object()) {
    const bool trainer = ps.ancestor == std::string(k_ancestor_trainer) && !ml_policy.is_null();
    const bool launcher_as_node =
        !ml_policy.is_null() && mpi_launcher_as_node(ml_policy) && ps.name == k_node;
    if (trainer || launcher_as_node) merge_resources(job, *resources);
  }
  ps.count = std::max<std::int64_t>(ps.count, 1);  // runtime.WithPodSet keeps at least one pod
  return ps;
}

}  // namespace

RuntimeInfo new_runtime_info(const json& trainjob, const json& runtime, TrainerRelease release) {
  const ReleaseFeatures& f = features_of(release);
  RuntimeInfo info;
  propagate_metadata(info, trainjob, runtime, f);
  const json* spec = at_path(runtime, "spec.template.spec");
  info.spec = spec != nullptr && spec->is_object() ? *spec : json::object();
  if (!info.spec.contains("replicatedJobs") || !info.spec["replicatedJobs"].is_array()) {
    info.spec["replicatedJobs"] = json::array();
  }
  const json* ml_policy = at_path(runtime, "spec.mlPolicy");
  info.ml_policy = ml_policy != nullptr && ml_policy->is_object() ? *ml_policy : json();
  merge_overrides(info.spec, trainjob, f);
  // A patch of the wrong type (which the CRD would have refused) must not leave a non-list behind.
  if (!info.spec.is_object()) info.spec = json::object();
  if (!info.spec["replicatedJobs"].is_array()) info.spec["replicatedJobs"] = json::array();
  for (auto& job : info.spec["replicatedJobs"])
    info.pod_sets.push_back(pod_set_for(job, trainjob, info.ml_policy, f));
  return info;
}

PodSet* trainer_pod_set(RuntimeInfo& info) {
  for (auto& ps : info.pod_sets) {
    if (ps.ancestor == std::string(k_ancestor_trainer)) return &ps;
  }
  return nullptr;
}

json* container_in(RuntimeInfo& info, std::size_t index, const std::string& name, bool init_too) {
  if (index >= info.spec["replicatedJobs"].size()) return nullptr;
  json& pod_spec = ensure_path(info.spec["replicatedJobs"][index], "template.spec.template.spec");
  if (json* found =
          pod_spec.contains("containers") ? find_by(pod_spec["containers"], "name", name) : nullptr) {
    return found;
  }
  if (!init_too || !pod_spec.contains("initContainers")) return nullptr;
  return find_by(pod_spec["initContainers"], "name", name);
}

const json* runtime_node_resources(const RuntimeInfo& info) {
  for (const auto& job : info.spec["replicatedJobs"]) {
    const json* tmpl = child(job, "template");
    const bool trainer = tmpl != nullptr && label_of(*tmpl, k_label_ancestor) == k_ancestor_trainer;
    if (string_at(job, "name") != k_node && !trainer) continue;
    for (const auto& container : array_at(job, "template.spec.template.spec.containers")) {
      if (string_at(container, "name") == k_node && child(container, "resources") != nullptr &&
          container["resources"].is_object()) {
        return &container["resources"];
      }
    }
  }
  return nullptr;
}

}  // namespace kpt::model::trainjob::detail
