// The runtime webhooks of Kubeflow Trainer (kubeflow/trainer v2.3.0 pkg/webhooks/
// {trainingruntime,clustertrainingruntime}_webhook.go): the replicated jobs an ancestor label marks.
#include "model/trainjob/constants.hpp"
#include "model/trainjob/runtime_ref.hpp"
#include "schema/rules/rule_helpers.hpp"
#include "schema/rules/trainer_rules.hpp"
#include "yaml/node_json.hpp"

#include <array>

namespace kpt::schema::rules {

namespace {

namespace tj = model::trainjob;

std::string_view label_of(const yaml::Node* meta, std::string_view key) {
  return meta == nullptr ? std::string_view{} : string_value(meta->at_path({"labels", key}));
}

bool has_container(const yaml::Node* containers, std::string_view name) {
  if (containers == nullptr || !containers->is_seq()) return false;
  for (const auto& c : containers->items) {
    if (string_value(c.find("name")) == name) return true;
  }
  return false;
}

void check_replicated_job(const yaml::Document& doc, const yaml::Node& rjob, const std::string& path,
                          Diagnostics& out) {
  const std::string_view ancestor = label_of(rjob.at_path({"template", "metadata"}), tj::k_label_ancestor);
  if (ancestor != tj::k_ancestor_trainer && ancestor != tj::k_ancestor_dataset &&
      ancestor != tj::k_ancestor_model) {
    return;
  }
  if (const yaml::Node* replicas = rjob.find("replicas");
      replicas != nullptr && replicas->kind == yaml::NodeKind::integer && replicas->integer != 1) {
    out.push_back(make_finding(doc, replicas->pos, Severity::error, path + ".replicas",
                               "trainer.runtime-replicas", "always must be 1",
                               "a job Trainer fills (" + std::string(ancestor) +
                                   ") runs once; scale it with numNodes or parallelism"));
  }
  const std::string required = ancestor == tj::k_ancestor_trainer ? tj::k_node : std::string(ancestor);
  const yaml::Node* pod_spec = rjob.at_path({"template", "spec", "template", "spec"});
  const yaml::Node* containers = pod_spec != nullptr ? pod_spec->find("containers") : nullptr;
  if (!has_container(containers, required)) {
    out.push_back(
        make_finding(doc, pos_or(containers, pos_or(&rjob, doc.start)), Severity::error,
                     path + ".template.spec.template.spec.containers", "trainer.runtime-container",
                     "must contain the required container for the ancestor: " + std::string(ancestor),
                     "name the container '" + required + "'"));
  }
}

}  // namespace

bool is_trainer_kind(std::string_view kind) {
  return kind == tj::k_kind_trainjob || kind == tj::k_kind_training_runtime ||
         kind == tj::k_kind_cluster_training_runtime;
}

void collect_runtime(const yaml::Document& doc, tj::AvailableRuntimes& into) {
  const std::string_view kind = string_value(doc.root.find("kind"));
  if (kind == tj::k_kind_training_runtime) into.training_runtimes.push_back(yaml::to_json(doc.root));
  if (kind == tj::k_kind_cluster_training_runtime)
    into.cluster_training_runtimes.push_back(yaml::to_json(doc.root));
}

Diagnostics check_trainer_rules(const yaml::Document& doc, const TrainerRuleOptions& opts) {
  const std::string_view kind = string_value(doc.root.find("kind"));
  if (kind == tj::k_kind_trainjob) return detail::check_trainjob_rules(doc, opts);
  if (is_trainer_kind(kind)) return detail::check_runtime_rules(doc);
  return {};
}

namespace detail {

Diagnostics check_runtime_rules(const yaml::Document& doc) {
  Diagnostics out = check_runtime_lints(doc);
  const yaml::Node* meta = doc.root.find("metadata");
  if (label_of(meta, tj::k_label_webhook_validation) == "disabled") return out;
  if (string_value(doc.root.find("kind")) == tj::k_kind_cluster_training_runtime) {
    const std::string warning = tj::deprecated_runtime_warning(yaml::to_json(doc.root));
    if (!warning.empty()) {
      // The create warning drops the "Referenced " the TrainJob webhook puts first.
      const std::string text = warning.rfind("Referenced ", 0) == 0 ? warning.substr(11) : warning;
      out.push_back(make_finding(doc, pos_or(meta, doc.start), Severity::warning, "metadata.labels",
                                 "trainer.deprecated-runtime", text, "move to a supported runtime"));
    }
  }
  const yaml::Node* rjobs = doc.root.at_path({"spec", "template", "spec", "replicatedJobs"});
  if (rjobs == nullptr || !rjobs->is_seq()) return out;
  for (std::size_t i = 0; i < rjobs->items.size(); ++i) {
    check_replicated_job(doc, rjobs->items[i], "spec.template.spec.replicatedJobs[" + std::to_string(i) + "]",
                         out);
  }
  return out;
}

}  // namespace detail

}  // namespace kpt::schema::rules
