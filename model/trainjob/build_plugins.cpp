// The EnforceMLPolicy stage: kubeflow/trainer pkg/runtime/framework/plugins/{torch,jax,xgboost,plainml}.

#include "model/k8s/object_meta.hpp"
#include "model/trainjob/apply.hpp"
#include "model/trainjob/build_detail.hpp"
#include "model/trainjob/constants.hpp"
#include "model/trainjob/runtime_ref.hpp"
#include "util/json_access.hpp"

namespace kpt::model::trainjob {

using k8s::name_of;
using util::array_at;
using util::at_path;
using util::child;
using util::string_at;

std::string to_string(Framework framework) {
  switch (framework) {
    case Framework::torch:
      return "torch";
    case Framework::torchtune:
      return "torchtune";
    case Framework::jax:
      return "jax";
    case Framework::xgboost:
      return "xgboost";
    case Framework::mpi:
      return "mpi";
    case Framework::flux:
      return "flux";
    case Framework::plain:
      return "plain";
  }
  return "plain";
}

Framework framework_of(const nlohmann::json& trainjob, const nlohmann::json& runtime,
                       TrainerRelease release) {
  const nlohmann::json* policy = util::at_path(runtime, "spec.mlPolicy");
  if (policy == nullptr || !policy->is_object()) return Framework::plain;
  auto has = [&](const char* key) { return policy->contains(key) && (*policy)[key].is_object(); };
  if (has("torch")) return is_torchtune_command(trainjob) ? Framework::torchtune : Framework::torch;
  if (has("mpi")) return Framework::mpi;
  if (features_of(release).jax_xgboost) {
    if (has("jax")) return Framework::jax;
    if (has("xgboost")) return Framework::xgboost;
    if (has("flux")) return Framework::flux;
  }
  return Framework::plain;
}

bool framework_modelled(Framework framework) {
  return framework != Framework::mpi && framework != Framework::flux;
}

namespace detail {

namespace {

using nlohmann::json;

/// The trainer pod set's count after `trainer.numNodes` (which has no minimum), or 1 without one.
std::int64_t apply_num_nodes(RuntimeInfo& info, const json& trainjob) {
  PodSet* ps = trainer_pod_set(info);
  if (ps == nullptr) return 1;
  const json* nodes = at_path(trainjob, "spec.trainer.numNodes");
  if (nodes != nullptr && nodes->is_number_integer()) ps->count = nodes->get<std::int64_t>();
  return ps->count;
}

/// Container `node` of the trainer pod set, only when the TrainJob has spec.trainer.
json* trainer_container(RuntimeInfo& info, const json& trainjob) {
  if (trainer_of(trainjob) == nullptr) return nullptr;
  for (std::size_t i = 0; i < info.pod_sets.size(); ++i) {
    if (info.pod_sets[i].ancestor == std::string(k_ancestor_trainer))
      return container_in(info, i, k_node, false);
  }
  return nullptr;
}

void upsert_all(json& container, const std::vector<json>& env) {
  for (const auto& e : env) upsert_by_name(container["env"], e);
}

void upsert_trainer_env(json& container, const json& trainjob) {
  const json* env = at_path(trainjob, "spec.trainer.env");
  if (env == nullptr || !env->is_array()) return;
  for (const auto& e : *env) upsert_by_name(container["env"], apply_env_var(e));
}

void upsert_trainer_port(json& container) {
  upsert_port(container["ports"], json{{"containerPort", k_trainer_port}});
}

/// mlPolicy.torch.envInjection.targets where the release reads them and they are a list, else nullptr.
const json* env_injection_targets(const RuntimeInfo& info, TrainerRelease release) {
  const json* targets =
      features_of(release).env_injection ? at_path(info.ml_policy, "torch.envInjection.targets") : nullptr;
  return targets != nullptr && targets->is_array() ? targets : nullptr;
}

Expected<void> inject_env_targets(RuntimeInfo& info, const json& targets, const std::vector<json>& env) {
  for (const auto& target : targets) {
    const std::string job = string_at(target, "jobName");
    const json* names = child(target, "containerNames");
    for (const auto& entry : names != nullptr && names->is_array() ? *names : json::array()) {
      const std::string name = entry.is_string() ? entry.get<std::string>() : "";
      json* container = nullptr;
      for (std::size_t k = 0; k < info.pod_sets.size() && container == nullptr; ++k) {
        if (info.pod_sets[k].name == job) container = container_in(info, k, name, true);
      }
      if (container == nullptr) {
        return make_error(ErrorCode::usage, "envInjection target podSet \"" + job + "\" container \"" + name +
                                                "\" not found in runtime template");
      }
      upsert_all(*container, env);
    }
  }
  return {};
}

Expected<PluginOutcome> enforce_torch(RuntimeInfo& info, const json& trainjob, TrainerRelease release,
                                      bool torchtune) {
  PluginOutcome out;
  out.framework = torchtune ? Framework::torchtune : Framework::torch;
  const std::int64_t nnodes = apply_num_nodes(info, trainjob);
  out.nproc = decide_nproc(trainjob, info.ml_policy, runtime_node_resources(info), release);
  const std::string name = name_of(trainjob);
  // Built once: torchtune's trainer alone goes without the master variables.
  const std::vector<json> env = pet_env(name, nnodes, *out.nproc, true);
  if (json* container = trainer_container(info, trainjob)) {
    upsert_trainer_env(*container, trainjob);
    if (torchtune) {
      upsert_all(*container, pet_env(name, nnodes, *out.nproc, false));
    } else {
      upsert_all(*container, env);  // a conditional expression would copy it
    }
    if (torchtune) {
      json command = at_path(trainjob, "spec.trainer.command") != nullptr
                         ? trainjob["spec"]["trainer"]["command"]
                         : json::array();
      const json& runtime_command = array_at(*container, "command");
      for (const auto& part :
           torchtune_command_suffix(trainjob, nnodes, *out.nproc, runtime_command, release)) {
        command.push_back(part);
      }
      out.trainer_command = command;
    }
    upsert_trainer_port(*container);
  }
  // Injection targets always get the master variables, even for torchtune.
  if (const json* targets = env_injection_targets(info, release)) {
    if (auto injected = inject_env_targets(info, *targets, env); !injected) return injected.error();
  }
  if (out.nproc->gpu_name_ambiguous) {
    out.notes.push_back(
        "several resources are named like a GPU: Trainer reads one of them, picked by Go map order");
  }
  return out;
}

PluginOutcome enforce_jax(RuntimeInfo& info, const json& trainjob) {
  PluginOutcome out;
  out.framework = Framework::jax;
  const std::int64_t nnodes = apply_num_nodes(info, trainjob);
  const std::string name = name_of(trainjob);
  if (json* container = trainer_container(info, trainjob)) {
    upsert_all(*container, {{{"name", "JAX_NUM_PROCESSES"}, {"value", std::to_string(nnodes)}},
                            {{"name", "JAX_PROCESS_ID"},
                             {"valueFrom", {{"fieldRef", {{"fieldPath", k_completion_index_field_path}}}}}},
                            {{"name", "JAX_COORDINATOR_ADDRESS"},
                             {"value", name + "-node-0-0." + name + ":" + std::to_string(k_trainer_port)}}});
    upsert_trainer_port(*container);
  }
  return out;
}

PluginOutcome enforce_xgboost(RuntimeInfo& info, const json& trainjob) {
  PluginOutcome out;
  out.framework = Framework::xgboost;
  if (trainer_pod_set(info) == nullptr) return out;
  const std::int64_t nnodes = apply_num_nodes(info, trainjob);
  const json* from_trainjob = at_path(trainjob, "spec.trainer.resourcesPerNode");
  const json* resources =
      from_trainjob != nullptr && from_trainjob->is_object() ? from_trainjob : runtime_node_resources(info);
  const std::int64_t gpus = resources != nullptr ? gpus_of(*resources) : 0;
  const std::string name = name_of(trainjob);
  if (json* container = trainer_container(info, trainjob)) {
    // PlainML also runs for XGBoost and upserts the trainer env; which of the two goes first follows
    // Go map order, so the env order below is one of two the real controller produces.
    upsert_trainer_env(*container, trainjob);
    upsert_all(*container,
               {{{"name", "DMLC_TRACKER_URI"}, {"value", name + "-node-0-0." + name}},
                {{"name", "DMLC_TRACKER_PORT"}, {"value", std::to_string(k_trainer_port)}},
                {{"name", "DMLC_TASK_ID"},
                 {"valueFrom", {{"fieldRef", {{"fieldPath", k_completion_index_field_path}}}}}},
                {{"name", "DMLC_NUM_WORKER"}, {"value", std::to_string(nnodes * (gpus > 0 ? gpus : 1))}}});
    upsert_trainer_port(*container);
    out.notes.push_back(
        "the trainer env and the DMLC_* variables are upserted by two plugins whose order follows Go "
        "map order: new trainer env names may also come after DMLC_NUM_WORKER");
  }
  return out;
}

PluginOutcome enforce_plain(RuntimeInfo& info, const json& trainjob) {
  PluginOutcome out;
  apply_num_nodes(info, trainjob);
  if (json* container = trainer_container(info, trainjob)) upsert_trainer_env(*container, trainjob);
  return out;
}

Error not_modelled(const char* policy, const char* what) {
  return make_error(ErrorCode::usage, std::string("mlPolicy.") + policy + ": " + what + " is not modelled");
}

}  // namespace

Expected<PluginOutcome> enforce_ml_policy(RuntimeInfo& info, const json& trainjob, TrainerRelease release) {
  json runtime = {{"spec", {{"mlPolicy", info.ml_policy}}}};
  switch (framework_of(trainjob, runtime, release)) {
    case Framework::torch:
      return enforce_torch(info, trainjob, release, false);
    case Framework::torchtune:
      return enforce_torch(info, trainjob, release, true);
    case Framework::jax:
      return enforce_jax(info, trainjob);
    case Framework::xgboost:
      return enforce_xgboost(info, trainjob);
    case Framework::plain:
      return enforce_plain(info, trainjob);
    case Framework::mpi:
      return not_modelled("mpi",
                          "the MPI plugin (launcher and node pod counts, the <name>-mpi-ssh-auth Secret, the "
                          "<name>-mpi-hostfile ConfigMap, their volumes and OMPI_* env)");
    case Framework::flux:
      return not_modelled("flux", "the Flux plugin");
  }
  return enforce_plain(info, trainjob);
}

}  // namespace detail

}  // namespace kpt::model::trainjob
