// The TrainJob validating webhook of Kubeflow Trainer (kubeflow/trainer v2.3.0
// pkg/webhooks/trainjob_webhook.go and the plugins' Validate: plugins/jobset/jobset.go,
// plugins/torch/{torch,torchtune}.go), checked against the runtime the TrainJob names.
#include "model/k8s/object_meta.hpp"
#include "model/trainjob/build.hpp"
#include "model/trainjob/constants.hpp"
#include "model/trainjob/runtime_catalog.hpp"
#include "model/trainjob/torch_plugin.hpp"
#include "schema/rules/rule_helpers.hpp"
#include "schema/rules/trainer_rules.hpp"
#include "util/json_access.hpp"
#include "util/strings.hpp"
#include "yaml/node_json.hpp"

#include <algorithm>
#include <array>

namespace kpt::schema::rules {

namespace {

namespace tj = model::trainjob;
using nlohmann::json;

constexpr std::array<std::string_view, 5> k_reserved_torch_env = {
    "PET_NNODES", "PET_NPROC_PER_NODE", "PET_NODE_RANK", "PET_MASTER_ADDR", "PET_MASTER_PORT"};
constexpr std::array<std::string_view, 4> k_torchtune_models = {"llama3_2/1B", "llama3_2/3B", "llama3_3/70B",
                                                                "qwen2_5/1.5B"};
constexpr std::array<std::string_view, 4> k_torchtune_managed_args = {
    "output_dir", "tokenizer.path", "checkpointer.checkpoint_dir", "tokenizer.merges_file"};

/// "spec.runtimeRef: Invalid value: {...}: <detail>" -> "<detail>": the field path is the finding's own.
std::string webhook_detail(const std::string& message) {
  const auto marker = message.find(": Invalid value: ");
  if (marker == std::string::npos) return message;
  const auto detail = message.find("}: ", marker);
  return detail == std::string::npos ? message : message.substr(detail + 3);
}

std::string shipped_names(tj::TrainerRelease release) {
  return util::join(tj::carried_runtime_names(release), ", ");
}

void check_runtime_ref(const yaml::Document& doc, const Expected<json>& runtime,
                       const TrainerRuleOptions& opts, Diagnostics& out) {
  const yaml::Node* ref = doc.root.at_path({"spec", "runtimeRef"});
  const auto pos = pos_or(ref, doc.start);
  if (!runtime) {
    const bool unsupported = runtime.error().code == ErrorCode::usage;
    out.push_back(make_finding(
        doc, pos, Severity::error, "spec.runtimeRef", "trainer.runtime-ref",
        webhook_detail(runtime.error().message),
        unsupported ? "use kind TrainingRuntime or ClusterTrainingRuntime in apiGroup trainer.kubeflow.org"
                    : "create the runtime first, validate its file together with this one, or name one that "
                      "Trainer " +
                          opts.release.to_string() + " ships: " + shipped_names(opts.release)));
    return;
  }
  const std::string warning = tj::deprecated_runtime_warning(*runtime);
  if (!warning.empty() && util::string_at(*runtime, "kind") == tj::k_kind_cluster_training_runtime) {
    out.push_back(make_finding(doc, pos, Severity::warning, "spec.runtimeRef", "trainer.deprecated-runtime",
                               warning, "move to a supported runtime"));
  }
}

bool runtime_has_ancestor(const json& runtime, std::string_view ancestor) {
  const json& rjobs = util::array_at(runtime, "spec.template.spec.replicatedJobs");
  return std::any_of(rjobs.begin(), rjobs.end(), [&](const json& rjob) {
    return model::k8s::label_of(util::object_at(rjob, "template"), tj::k_label_ancestor) == ancestor;
  });
}

void check_initializers(const yaml::Document& doc, const json& runtime, Diagnostics& out) {
  for (const auto& [key, ancestor, config] : {std::tuple{"dataset", tj::k_ancestor_dataset, "datasetConfig"},
                                              std::tuple{"model", tj::k_ancestor_model, "modelConfig"}}) {
    const yaml::Node* init = doc.root.at_path({"spec", "initializer", key});
    if (is_absent(init) || runtime_has_ancestor(runtime, ancestor)) continue;
    out.push_back(make_finding(
        doc, pos_or(init, doc.start), Severity::error, "spec.runtimeRef", "trainer.initializer",
        "must have " + std::string(ancestor) + " job when trainJob is configured with input " + config,
        "name a runtime with a " + std::string(ancestor) + " job, or drop spec.initializer." + key));
  }
}

void check_reserved_env(const yaml::Document& doc, Diagnostics& out) {
  const yaml::Node* env = doc.root.at_path({"spec", "trainer", "env"});
  if (env == nullptr || !env->is_seq()) return;
  std::vector<std::string> reserved;
  const yaml::Node* first = nullptr;
  for (const auto& e : env->items) {
    const std::string_view name = string_value(e.find("name"));
    if (std::find(k_reserved_torch_env.begin(), k_reserved_torch_env.end(), name) ==
        k_reserved_torch_env.end())
      continue;
    if (first == nullptr) first = &e;
    reserved.emplace_back(name);
  }
  if (reserved.empty()) return;
  std::sort(reserved.begin(), reserved.end());
  reserved.erase(std::unique(reserved.begin(), reserved.end()), reserved.end());
  out.push_back(make_finding(
      doc, pos_or(first, env->pos), Severity::error, "spec.trainer.env", "trainer.reserved-env",
      "must not have reserved envs, invalid envs configured: [" + util::join(reserved, " ") + "]",
      "Trainer sets these from numNodes, numProcPerNode and the JobSet; drop them"));
}

bool has_named(const json& pod_spec, const char* list, const std::string& name) {
  return util::find_by(util::array_at(pod_spec, list), "name", name) != nullptr;
}

// v2.3 envInjection: every target container must exist in its replicated job (containers, then
// initContainers); the webhook words it as the reconcile does.
void check_env_injection(const yaml::Document& doc, const json& runtime, Diagnostics& out) {
  const json& rjobs = util::array_at(runtime, "spec.template.spec.replicatedJobs");
  for (const auto& target : util::array_at(runtime, "spec.mlPolicy.torch.envInjection.targets")) {
    const std::string job = util::string_at(target, "jobName");
    const json* rjob = util::find_by(rjobs, "name", job);
    const json none = json::object();
    const json& pod_spec = rjob != nullptr ? util::object_at(*rjob, "template.spec.template.spec") : none;
    for (const auto& c : util::array_at(target, "containerNames")) {
      if (!c.is_string()) continue;
      const std::string name = c.get<std::string>();
      if (has_named(pod_spec, "containers", name) || has_named(pod_spec, "initContainers", name)) continue;
      out.push_back(make_finding(doc, pos_or(doc.root.at_path({"spec", "runtimeRef"}), doc.start),
                                 Severity::error, "spec.runtimeRef", "trainer.env-injection",
                                 "envInjection target podSet \"" + job + "\" container \"" + name +
                                     "\" not found in runtime template",
                                 "fix the runtime's mlPolicy.torch.envInjection.targets"));
    }
  }
}

void check_torchtune(const yaml::Document& doc, const json& runtime, const TrainerRuleOptions& opts,
                     Diagnostics& out) {
  const std::string model = tj::torchtune_model(model::k8s::name_of(runtime));
  if (std::find(k_torchtune_models.begin(), k_torchtune_models.end(), model) == k_torchtune_models.end()) {
    out.push_back(make_finding(doc, pos_or(doc.root.at_path({"spec", "runtimeRef", "name"}), doc.start),
                               Severity::error, "spec.runtimeRef.name", "trainer.torchtune-model",
                               "must have a supported pretrained model, invalid model configured: " + model,
                               "`tune run` needs a torchtune runtime: torchtune-llama3.2-1b, ..."));
    return;
  }
  const yaml::Node* nodes = doc.root.at_path({"spec", "trainer", "numNodes"});
  if (nodes != nullptr && nodes->kind == yaml::NodeKind::integer && nodes->integer > 1 &&
      model != "llama3_3/70B") {
    out.push_back(make_finding(doc, nodes->pos, Severity::error, "spec.trainer.numNodes",
                               "trainer.torchtune-num-nodes", "must be 1 for " + model + " model",
                               "only llama3_3/70B trains on several nodes"));
  }
  if (!tj::features_of(opts.release).torchtune_arg_checks) return;
  const yaml::Node* args = doc.root.at_path({"spec", "trainer", "args"});
  if (args == nullptr || !args->is_seq()) return;
  for (std::size_t i = 0; i < args->items.size(); ++i) {
    const std::string_view arg = string_value(&args->items[i]);
    const std::string_view key = arg.substr(0, arg.find('='));
    if (std::find(k_torchtune_managed_args.begin(), k_torchtune_managed_args.end(), key) ==
        k_torchtune_managed_args.end())
      continue;
    out.push_back(make_finding(doc, args->items[i].pos, Severity::error,
                               "spec.trainer.args[" + std::to_string(i) + "]", "trainer.torchtune-args",
                               "must not set immutable config \"" + std::string(key) +
                                   "\" in trainer args; it is managed by the runtime",
                               "drop it: the runtime sets " + std::string(key)));
  }
}

}  // namespace

namespace detail {

Diagnostics check_trainjob_rules(const yaml::Document& doc, const TrainerRuleOptions& opts) {
  Diagnostics out;
  const json trainjob = yaml::to_json(doc.root);
  if (!trainjob.is_object()) return out;
  tj::AvailableRuntimes built;
  const tj::AvailableRuntimes* available = opts.runtimes;
  if (available == nullptr || !opts.runtimes_include_carried) {
    built = tj::with_carried_runtimes(opts.runtimes != nullptr ? *opts.runtimes : tj::AvailableRuntimes{},
                                      opts.release);
    available = &built;
  }
  const auto runtime = tj::resolve_runtime(trainjob, *available, tj::LookupBy::webhook);
  check_runtime_ref(doc, runtime, opts, out);
  if (!runtime) return out;  // the webhook stops at a missing runtime
  check_initializers(doc, *runtime, out);
  if (tj::features_of(opts.release).overrides == tj::OverrideApi::runtime_patches) {
    auto patches = check_patch_rules(doc, *runtime);
    out.insert(out.end(), patches.begin(), patches.end());
  }
  const tj::Framework framework = tj::framework_of(trainjob, *runtime, opts.release);
  if (framework == tj::Framework::torch || framework == tj::Framework::torchtune) {
    check_reserved_env(doc, out);
    if (tj::features_of(opts.release).env_injection) check_env_injection(doc, *runtime, out);
  }
  if (framework == tj::Framework::torchtune) check_torchtune(doc, *runtime, opts, out);
  auto lints = check_trainjob_lints(doc, trainjob, *runtime, opts.release);
  out.insert(out.end(), lints.begin(), lints.end());
  return out;
}

}  // namespace detail

}  // namespace kpt::schema::rules
