#include "model/trainjob/env_plan.hpp"

#include "model/k8s/object_meta.hpp"
#include "model/trainjob/constants.hpp"
#include "model/trainjob/jobset_children.hpp"
#include "util/json_access.hpp"

namespace kpt::model::trainjob {

namespace {

using nlohmann::json;
using util::string_at;

/// metadata.annotations['k'] / metadata.labels['k'] / metadata.name ... on the pod.
std::optional<std::string> field_value(const json& pod, const std::string& path) {
  for (const char* map : {"labels", "annotations"}) {
    const std::string prefix = std::string("metadata.") + map + "['";
    if (path.rfind(prefix, 0) == 0 && path.size() > prefix.size() + 2 &&
        path.substr(path.size() - 2) == "']") {
      const std::string key = path.substr(prefix.size(), path.size() - prefix.size() - 2);
      const json& values = util::object_at(pod, std::string("metadata.") + map);
      if (values.contains(key) && values[key].is_string()) return values[key].get<std::string>();
      return "";
    }
  }
  if (path == "metadata.name" || path == "metadata.namespace")
    return string_at(util::object_at(pod, "metadata"), path.substr(9));
  if (path == "spec.hostname" || path == "spec.subdomain")
    return string_at(util::object_at(pod, "spec"), path.substr(5));
  return std::nullopt;
}

ResolvedEnv resolve_one(const json& e, const json& pod) {
  ResolvedEnv r{string_at(e, "name"), string_at(e, "value"), "", true};
  const json* from = util::child(e, "valueFrom");
  if (from == nullptr || !from->is_object()) return r;
  if (const json* ref = util::child(*from, "fieldRef")) {
    const std::string path = string_at(*ref, "fieldPath");
    r.source = "fieldRef " + path;
    const auto value = field_value(pod, path);
    r.value = value.value_or("");
    r.resolved = value.has_value();
  } else if (const json* secret = util::child(*from, "secretKeyRef")) {
    r = {r.name, "", "secretKeyRef " + string_at(*secret, "name") + "/" + string_at(*secret, "key"), false};
  } else if (const json* cm = util::child(*from, "configMapKeyRef")) {
    r = {r.name, "", "configMapKeyRef " + string_at(*cm, "name") + "/" + string_at(*cm, "key"), false};
  } else if (const json* res = util::child(*from, "resourceFieldRef")) {
    r = {r.name, "", "resourceFieldRef " + string_at(*res, "resource"), false};
  }
  return r;
}

const json* trainer_job_spec(const json& jobset) {
  for (const auto& rjob : util::array_at(jobset, "spec.replicatedJobs")) {
    if (k8s::label_of(util::object_at(rjob, "template"), k_label_ancestor) == k_ancestor_trainer)
      return &rjob;
  }
  return nullptr;
}

NodePod node_pod(const json& pod, const json& job, std::int64_t k) {
  NodePod p;
  p.job = k8s::name_of(job);
  p.index = k;
  p.generate_name = string_at(util::object_at(pod, "metadata"), "generateName");
  p.hostname = string_at(util::object_at(pod, "spec"), "hostname");
  p.subdomain = string_at(util::object_at(pod, "spec"), "subdomain");
  const json* node = util::find_by(util::array_at(pod, "spec.containers"), "name", k_node);
  p.env = node != nullptr ? util::array_at(*node, "env") : json::array();
  p.resolved = resolve_env(p.env, pod);
  return p;
}

void set_master(EnvPlan& plan, const std::string& name) {
  switch (plan.build.framework) {
    case Framework::torch:
    case Framework::jax:
    case Framework::xgboost:
      plan.master_addr = name + "-node-0-0." + name;
      plan.master_port = k_trainer_port;
      break;
    case Framework::torchtune:
      if (plan.build.num_nodes > 1) {
        plan.master_addr = name + "-node-0-0." + name;
        plan.master_port = k_trainer_port;
      }
      break;
    default:
      break;
  }
}

}  // namespace

std::vector<ResolvedEnv> resolve_env(const json& env, const json& pod) {
  std::vector<ResolvedEnv> out;
  for (const auto& e : env.is_array() ? env : json::array()) out.push_back(resolve_one(e, pod));
  return out;
}

Expected<EnvPlan> plan_env(const json& trainjob, const json& runtime, TrainerRelease release) {
  auto build = build_jobset(trainjob, runtime, release);
  if (!build) return build.error();
  EnvPlan plan;
  plan.build = std::move(*build);
  const json jobset = default_jobset(plan.build.jobset);
  const json* trainer = trainer_job_spec(jobset);
  const auto fixed_suffix = [](const std::string&, std::int64_t) { return std::string("xxxxx"); };
  if (trainer != nullptr) {
    for (const auto& job : desired_jobs(jobset)) {
      if (k8s::label_of(job, "jobset.sigs.k8s.io/replicatedjob-name") != string_at(*trainer, "name"))
        continue;
      // A suspended TrainJob's pods do not exist yet; show the ones its resume creates.
      const json created = created_job(job, "");
      const json* completions = util::at_path(created, "spec.completions");
      const std::int64_t n =
          completions != nullptr && completions->is_number_integer() ? completions->get<std::int64_t>() : 1;
      for (std::int64_t k = 0; k < n; ++k)
        plan.pods.push_back(node_pod(desired_pod(created, k, fixed_suffix), created, k));
    }
  }
  set_master(plan, k8s::name_of(trainjob));
  plan.notes = explain_env(trainjob, plan.build, release);
  return plan;
}

}  // namespace kpt::model::trainjob
