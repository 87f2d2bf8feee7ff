// Lints for TrainJobs that no validator (and no Trainer webhook) reports: names JobSet rejects after
// admission, torch runtimes that bypass torchrun, and process counts that do not fit the GPUs (the
// numNodes and numProcPerNode bounds are in trainer_bound_lints.cpp).
#include "model/k8s/object_meta.hpp"
#include "model/trainjob/build.hpp"
#include "model/trainjob/constants.hpp"
#include "model/trainjob/name_limits.hpp"
#include "model/trainjob/torch_plugin.hpp"
#include "schema/rules/launch_command.hpp"
#include "schema/rules/rule_helpers.hpp"
#include "schema/rules/trainer_rules.hpp"
#include "util/json_access.hpp"

namespace kpt::schema::rules {

namespace {

namespace tj = model::trainjob;
using nlohmann::json;

yaml::Position pos_at(const yaml::Document& doc, std::initializer_list<std::string_view> path) {
  return pos_or(doc.root.at_path(path), doc.start);
}

// The CRD allows 63 characters, JobSet's webhook fewer; the rejected JobSet only shows as a Warning
// event (kubeflow/trainer#2735), the TrainJob keeps no condition at all.
void lint_name_length(const yaml::Document& doc, const json& trainjob, const tj::BuildResult& build,
                      Diagnostics& out) {
  const std::string name = model::k8s::name_of(trainjob);
  if (name.size() > tj::k_max_generated_label) return;
  const tj::NameLimit limit = tj::name_limit(build.jobset);
  if (name.size() <= limit.max_length) return;
  out.push_back(make_finding(
      doc, pos_at(doc, {"metadata", "name"}), Severity::error, "metadata.name", "lint.trainjob-name-length",
      "name '" + name + "' has " + std::to_string(name.size()) +
          " characters: the TrainJob CRD allows 63, but JobSet's webhook allows at most " +
          std::to_string(limit.max_length) + " here (the " + (limit.by_pod_name ? "pod" : "job") +
          " names of '" + limit.limiting_job +
          "' would exceed 63), so the JobSet is rejected and the TrainJob gets no condition, only a Warning "
          "event",
      "use a name of at most " + std::to_string(limit.max_length) + " characters"));
}

const json* trainer_container(const json& jobset) {
  for (const auto& rjob : util::array_at(jobset, "spec.replicatedJobs")) {
    if (model::k8s::label_of(util::object_at(rjob, "template"), tj::k_label_ancestor) !=
        tj::k_ancestor_trainer)
      continue;
    return util::find_by(util::array_at(rjob, "template.spec.template.spec.containers"), "name", tj::k_node);
  }
  return nullptr;
}

std::vector<std::string> argv_of(const json& container) {
  std::vector<std::string> argv;
  for (const char* key : {"command", "args"}) {
    for (const auto& a : util::array_at(container, key)) {
      if (a.is_string()) argv.push_back(a.get<std::string>());
    }
  }
  return argv;
}

void lint_torchrun(const yaml::Document& doc, const json& node, Diagnostics& out) {
  const LaunchInfo launch = classify_launch(argv_of(node));
  if (launch.launcher != Launcher::plain_python) return;
  const bool own = doc.root.at_path({"spec", "trainer", "command"}) != nullptr;
  out.push_back(make_finding(
      doc, own ? pos_at(doc, {"spec", "trainer", "command"}) : pos_at(doc, {"spec", "runtimeRef"}),
      Severity::warning, own ? "spec.trainer.command" : "spec.runtimeRef", "lint.trainjob-no-torchrun",
      "the torch runtime runs '" + launch.shown +
          "' without torchrun: Trainer sets only PET_* variables, so RANK, LOCAL_RANK and WORLD_SIZE are "
          "unset and init_process_group(\"env://\") fails",
      "start it with torchrun (e.g. torchrun " + launch.shown.substr(launch.shown.find(' ') + 1) +
          "), which turns PET_* into RANK/LOCAL_RANK/WORLD_SIZE"));
}

void lint_nproc_gpus(const yaml::Document& doc, const json& node, Diagnostics& out) {
  const yaml::Node* nproc = doc.root.at_path({"spec", "trainer", "numProcPerNode"});
  if (nproc == nullptr || nproc->kind != yaml::NodeKind::integer) return;
  const std::int64_t gpus = tj::gpus_of(util::object_at(node, "resources"));
  if (gpus <= 0 || nproc->integer <= gpus) return;
  out.push_back(make_finding(
      doc, nproc->pos, Severity::warning, "spec.trainer.numProcPerNode", "lint.trainjob-nproc-gpus",
      "numProcPerNode " + std::to_string(nproc->integer) + " is more than the " + std::to_string(gpus) +
          " GPU(s) each node requests: torchrun starts " + std::to_string(nproc->integer) + " processes on " +
          std::to_string(gpus) + " device(s), and NCCL fails on a shared GPU",
      "set numProcPerNode to " + std::to_string(gpus) + " (or leave it unset: auto)"));
}

void lint_runtime_gpu(const yaml::Document& doc, const tj::BuildResult& build, tj::TrainerRelease release,
                      Diagnostics& out) {
  if (!build.nproc || !build.nproc->runtime_gpu_ignored) return;
  const bool replaced = tj::features_of(release).resources == tj::ResourcesMode::replace;
  out.push_back(make_finding(
      doc, pos_at(doc, {"spec", "trainer", "resourcesPerNode"}), Severity::warning,
      "spec.trainer.resourcesPerNode", "lint.trainjob-runtime-gpu",
      "the runtime's node container requests a GPU but trainer.resourcesPerNode does not: Trainer reads only "
      "the TrainJob's resources, so PET_NPROC_PER_NODE=" +
          build.nproc->value + " instead of auto" +
          (replaced
               ? " (and " + release.to_string() + " replaces the runtime's resources, so the pod gets no GPU)"
               : ""),
      "repeat the runtime's GPU request in trainer.resourcesPerNode, or set numProcPerNode"));
}

}  // namespace

namespace detail {

Diagnostics check_trainjob_lints(const yaml::Document& doc, const json& trainjob, const json& runtime,
                                 tj::TrainerRelease release) {
  Diagnostics out;
  // One JobSet for every lint: built twice (once more for the name limit) it was half of a TrainJob's
  // validation time.
  const auto build = tj::build_jobset(trainjob, runtime, release);
  if (build) lint_name_length(doc, trainjob, *build, out);
  const tj::Framework framework = tj::framework_of(trainjob, runtime, release);
  lint_num_nodes(doc, framework, out);
  lint_num_proc_per_node(doc, framework, out);
  if (!build || build->framework != tj::Framework::torch) return out;
  const json* node = trainer_container(build->jobset);
  if (node == nullptr || doc.root.at_path({"spec", "trainer"}) == nullptr) return out;
  lint_torchrun(doc, *node, out);
  lint_nproc_gpus(doc, *node, out);
  lint_runtime_gpu(doc, *build, release, out);
  return out;
}

}  // namespace detail

}  // namespace kpt::schema::rules
