// The JobSet plugin's SyncParallelCount and Build, and the Builder's Initializer and Trainer steps
// (kubeflow/trainer pkg/runtime/framework/plugins/jobset/{jobset,builder}.go, v2.0.0 to v2.3.0).

#include "model/k8s/object_meta.hpp"
#include "model/trainjob/apply.hpp"
#include "model/trainjob/build_detail.hpp"
#include "model/trainjob/constants.hpp"
#include "util/json_access.hpp"

namespace kpt::model::trainjob {

using k8s::name_of;
using k8s::namespace_of;
using util::at_path;
using util::child;
using util::ensure_path;
using util::find_by;
using util::string_at;

namespace detail {

namespace {

using nlohmann::json;

json& containers_of(json& job) { return ensure_path(job, "template.spec.template.spec")["containers"]; }

void set_initializer(json& job, const json& trainjob, const char* which) {
  job["replicas"] = 1;
  const json* config = at_path(trainjob, std::string("spec.initializer.") + which);
  if (config == nullptr || !config->is_object()) return;
  json& containers = containers_of(job);
  if (!containers.is_array()) return;
  const std::string container_name = std::string(which) + "-initializer";
  for (auto& container : containers) {
    if (string_at(container, "name") != container_name) continue;
    if (const json* uri = child(*config, "storageUri"); uri != nullptr && uri->is_string()) {
      upsert_by_name(container["env"], {{"name", k_storage_uri_env}, {"value", *uri}});
    }
    if (const json* env = child(*config, "env"); env != nullptr && env->is_array()) {
      for (const auto& e : *env) upsert_by_name(container["env"], apply_env_var(e));
    }
    if (const json* secret = at_path(*config, "secretRef.name"); secret != nullptr && secret->is_string()) {
      if (!container.contains("envFrom") || !container["envFrom"].is_array())
        container["envFrom"] = json::array();
      container["envFrom"].push_back({{"secretRef", {{"name", *secret}}}});
    }
  }
}

/// A list field the TrainJob sets replaces the container's; an empty one removes it (the apply
/// configuration omits an empty list).
void replace_list(json& container, const json& trainer, const char* key, const json* replacement = nullptr) {
  const json* value = replacement != nullptr ? replacement : child(trainer, key);
  if (value == nullptr || !value->is_array()) return;
  if (value->empty()) {
    container.erase(key);
  } else {
    container[key] = *value;
  }
}

void set_trainer_fields(json& container, const json& trainer, const PluginOutcome& outcome) {
  if (const json* image = child(trainer, "image"); image != nullptr && image->is_string())
    container["image"] = *image;
  replace_list(container, trainer, "command",
               outcome.trainer_command.is_array() ? &outcome.trainer_command : nullptr);
  replace_list(container, trainer, "args");
}

/// v2.0-v2.2: trainer.resourcesPerNode replaces the container's requirements (requests and limits only).
void replace_resources(json& container, const json& trainer) {
  const json* resources = child(trainer, "resourcesPerNode");
  if (resources == nullptr || !resources->is_object()) return;
  const json* limits = child(*resources, "limits");
  const json* requests = child(*resources, "requests");
  const bool has_limits = limits != nullptr && !limits->is_null();
  const bool has_requests = requests != nullptr && !requests->is_null();
  if (!has_limits && !has_requests) return;
  json out = json::object();
  if (has_limits) out["limits"] = *limits;
  if (has_requests) out["requests"] = *requests;
  container["resources"] = out;
}

void set_trainer(json& job, const PodSet& ps, const json& trainjob, const json& ml_policy,
                 const PluginOutcome& outcome, const ReleaseFeatures& f, bool v20) {
  const bool trainer_job = ps.ancestor == std::string(k_ancestor_trainer);
  const json* launcher = at_path(ml_policy, "mpi.runLauncherAsNode");
  const bool launcher_as_node =
      !v20 && launcher != nullptr && launcher->is_boolean() && launcher->get<bool>() && ps.name == k_node;
  if (trainer_job) job["replicas"] = 1;
  const json* trainer = at_path(trainjob, "spec.trainer");
  if (trainer == nullptr || !trainer->is_object() || (!trainer_job && !launcher_as_node)) return;
  json& containers = containers_of(job);
  json* node = find_by(containers, "name", k_node);
  if (node == nullptr) return;
  if (trainer_job) set_trainer_fields(*node, *trainer, outcome);
  if (f.resources == ResourcesMode::replace) replace_resources(*node, *trainer);
  if (const json* env = child(*trainer, "env"); env != nullptr && env->is_array()) {
    for (const auto& e : *env) upsert_by_name((*node)["env"], apply_env_var(e));
  }
}

/// Container and pod lists the merges left empty are dropped, as the apply configuration omits them.
void drop_empty_lists(json& spec) {
  for (auto& job : spec["replicatedJobs"]) {
    json& pod_spec = ensure_path(job, "template.spec.template.spec");
    for (const char* list : {"containers", "initContainers"}) {
      if (!pod_spec.contains(list)) continue;
      for (auto& container : pod_spec[list]) {
        for (const char* key : {"env", "ports", "envFrom", "volumeMounts"}) {
          if (container.contains(key) && container[key].is_array() && container[key].empty())
            container.erase(key);
        }
      }
    }
  }
}

}  // namespace

json assemble_jobset(RuntimeInfo&& info, const json& trainjob, const PluginOutcome& outcome,
                     TrainerRelease release) {
  const ReleaseFeatures& f = features_of(release);
  json spec = std::move(info.spec);
  for (std::size_t i = 0; i < info.pod_sets.size(); ++i) {
    json& job_spec = ensure_path(spec["replicatedJobs"][i], "template.spec");
    job_spec["parallelism"] = info.pod_sets[i].count;
    job_spec["completions"] = info.pod_sets[i].count;
  }
  for (std::size_t i = 0; i < info.pod_sets.size(); ++i) {
    const PodSet& ps = info.pod_sets[i];
    json& job = spec["replicatedJobs"][i];
    if (ps.ancestor == std::string(k_ancestor_dataset)) set_initializer(job, trainjob, "dataset");
    if (ps.ancestor == std::string(k_ancestor_model)) set_initializer(job, trainjob, "model");
    set_trainer(job, ps, trainjob, info.ml_policy, outcome, f, !release.at_least(1));
  }
  const json* suspend = at_path(trainjob, "spec.suspend");
  spec["suspend"] = suspend != nullptr && suspend->is_boolean() && suspend->get<bool>();
  drop_empty_lists(spec);
  json metadata = {{"name", name_of(trainjob)},
                   {"namespace", namespace_of(trainjob)},
                   {"ownerReferences",
                    json::array({k8s::controller_reference(k_api_version, k_kind_trainjob, trainjob)})}};
  if (!info.labels.empty()) metadata["labels"] = std::move(info.labels);
  if (!info.annotations.empty()) metadata["annotations"] = std::move(info.annotations);
  json jobset = json::object();
  jobset["apiVersion"] = k_jobset_api_version;
  jobset["kind"] = "JobSet";
  jobset["metadata"] = std::move(metadata);
  jobset["spec"] = std::move(spec);
  return jobset;
}

}  // namespace detail

Expected<BuildResult> build_jobset(const nlohmann::json& trainjob, const nlohmann::json& runtime,
                                   TrainerRelease release) {
  detail::RuntimeInfo info = detail::new_runtime_info(trainjob, runtime, release);
  auto outcome = detail::enforce_ml_policy(info, trainjob, release);
  if (!outcome) return outcome.error();
  BuildResult result;
  const detail::PodSet* trainer = detail::trainer_pod_set(info);
  result.num_nodes = trainer != nullptr ? trainer->count : 1;
  result.jobset = detail::assemble_jobset(std::move(info), trainjob, *outcome, release);
  result.framework = outcome->framework;
  result.nproc = outcome->nproc;
  result.notes = outcome->notes;
  if (const nlohmann::json* group = util::at_path(runtime, "spec.podGroupPolicy");
      group != nullptr && group->is_object()) {
    result.notes.push_back(
        "podGroupPolicy is not modelled: the real controller also creates a PodGroup and labels "
        "every pod template for its scheduler");
  }
  return result;
}

}  // namespace kpt::model::trainjob
