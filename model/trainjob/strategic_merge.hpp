#pragma once

#include <nlohmann/json.hpp>

namespace kpt::model::trainjob {

/// The Kubernetes type a strategic merge patch is applied against; it decides which lists merge
/// by key (k8s.io/api core/v1 and batch/v1 `patchMergeKey` tags, JobSet v0.12.0 api types).
enum class PatchType {
  jobset_spec,            ///< jobset.x-k8s.io JobSetSpec: replicatedJobs and dependsOn by name
  job_template_spec,      ///< batch/v1 JobTemplateSpec
  pod_template_spec,      ///< core/v1 PodTemplateSpec
  pod_spec,               ///< core/v1 PodSpec
  resource_requirements,  ///< core/v1 ResourceRequirements: claims by name (the last)
};

/// apimachinery's strategicpatch.StrategicMergePatch(original, patch, type) for patches that were
/// marshalled from a Go struct: maps merge recursively, a null deletes, lists with a merge key merge
/// element by element (new elements appended in patch order), other lists are replaced. Empty lists
/// in the patch are dropped first, as `omitempty` drops them before the Go code merges, so
/// `tolerations: []` leaves the original tolerations in place; `$`-directives are dropped too.
/// model::k8s::strategic_merge with each type's table and k_typed_patch.
/// `original` by value, so that a caller merging in place moves it in: the JobSet spec and templates
/// were copied whole for every patch.
nlohmann::json strategic_merge(nlohmann::json original, const nlohmann::json& patch, PatchType type);

}  // namespace kpt::model::trainjob
