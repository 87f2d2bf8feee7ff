// Where convert puts what spec.trainer cannot hold: the release's override of torch-distributed's
// `node` job, or a TrainingRuntime built on the release's own torch-distributed.
#include "model/trainjob/convert_runtime.hpp"

#include "model/trainjob/constants.hpp"
#include "model/trainjob/runtime_catalog.hpp"
#include "util/json_access.hpp"

#include <stdexcept>

namespace kpt::model::trainjob {

namespace {

using nlohmann::json;

constexpr const char* k_patch_manager = "kubectl-pytorch.kubeflow.org/convert";

/// The pod spec the override or runtime gives the node pods: `carry.pod_spec`, plus container
/// `node` with `carry.node_container` when that is not empty.
json override_pod_spec(const NodeCarry& carry) {
  json spec = carry.pod_spec;
  if (!carry.node_container.empty()) {
    json node = carry.node_container;
    node["name"] = k_node;
    spec["containers"] = json::array({node});
  }
  return spec;
}

json target_node_job() { return json::array({{{"name", k_node}}}); }

void overlay(json& into, const json& from) {
  if (!into.is_object()) into = json::object();
  for (const auto& [key, value] : from.items()) into[key] = value;
}

}  // namespace

bool NodeCarry::empty() const {
  return pod_metadata.empty() && pod_spec.empty() && node_container.empty() && sidecars.empty() &&
         job_spec.empty() && jobset_spec.empty() && !image_entrypoint;
}

json node_override(const NodeCarry& carry, TrainerRelease release) {
  const json spec = override_pod_spec(carry);
  const OverrideApi api = features_of(release).overrides;
  // v2.0's podSpecOverrides has no pod metadata; the caller sends it to a runtime instead.
  const bool metadata = !carry.pod_metadata.empty() && api != OverrideApi::pod_spec_overrides;
  if (spec.empty() && !metadata) return nullptr;
  json entry;
  switch (api) {
    case OverrideApi::pod_spec_overrides:
      entry = spec;
      entry["targetJobs"] = target_node_job();
      break;
    case OverrideApi::pod_template_overrides:
      entry = {{"targetJobs", target_node_job()}};
      if (!spec.empty()) entry["spec"] = spec;
      if (metadata) entry["metadata"] = carry.pod_metadata;
      break;
    case OverrideApi::runtime_patches: {
      json pod_template = json::object();
      if (!spec.empty()) pod_template["spec"] = spec;
      if (metadata) pod_template["metadata"] = carry.pod_metadata;
      json job = {{"name", k_node}};
      job["template"]["spec"]["template"] = pod_template;
      entry = {{"manager", k_patch_manager}};
      entry["trainingRuntimeSpec"]["template"]["spec"]["replicatedJobs"] = json::array({job});
      break;
    }
  }
  return json::array({entry});
}

json training_runtime(const std::string& name, const std::string& ns, const NodeCarry& carry,
                      std::int64_t nodes, std::optional<std::int64_t> nproc, TrainerRelease release) {
  std::optional<json> base = carried_runtime(release, "torch-distributed");
  // Every release ships torch-distributed (runtime_catalog.cpp), so this is a broken invariant.
  if (!base) throw std::logic_error("no carried torch-distributed runtime for " + release.to_string());
  json runtime = std::move(*base);
  runtime["kind"] = k_kind_training_runtime;
  json& meta = runtime["metadata"];
  meta["name"] = name;
  if (!ns.empty()) meta["namespace"] = ns;
  // v2.3's install overlay exempts its own runtimes from the webhooks; this one is the user's.
  if (meta.contains("labels")) {
    meta["labels"].erase(k_label_webhook_validation);
    if (meta["labels"].empty()) meta.erase("labels");
  }
  json& spec = runtime["spec"];
  spec["mlPolicy"]["numNodes"] = nodes;
  if (nproc && features_of(release).runtime_num_proc_per_node)
    spec["mlPolicy"]["torch"]["numProcPerNode"] = *nproc;
  json& jobset = spec["template"]["spec"];
  overlay(jobset, carry.jobset_spec);
  json* job = util::find_by(jobset["replicatedJobs"], "name", k_node);
  if (job == nullptr) throw std::logic_error("torch-distributed has no replicated job 'node'");
  json& job_spec = util::ensure_path(*job, "template.spec");
  overlay(job_spec, carry.job_spec);
  json& pod_template = util::ensure_path(job_spec, "template");
  if (!carry.pod_metadata.empty()) overlay(util::ensure_path(pod_template, "metadata"), carry.pod_metadata);
  json& pod_spec = util::ensure_path(pod_template, "spec");
  overlay(pod_spec, carry.pod_spec);
  json* node = util::find_by(pod_spec["containers"], "name", k_node);
  if (node == nullptr) throw std::logic_error("torch-distributed has no container 'node'");
  overlay(*node, carry.node_container);
  // v2.0's torch-distributed prints its env instead of running the image.
  if (carry.image_entrypoint) node->erase("command");
  for (const auto& sidecar : carry.sidecars) pod_spec["containers"].push_back(sidecar);
  return runtime;
}

}  // namespace kpt::model::trainjob
