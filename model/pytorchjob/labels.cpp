#include "model/pytorchjob/labels.hpp"

#include "model/pytorchjob/names.hpp"
#include "util/strings.hpp"

namespace kpt::model::pytorchjob {

namespace {

constexpr const char* k_new_prefix = "training.kubeflow.org/";

enum class LabelKeys { old_only, both, new_only };

LabelKeys keys_for(const EnvStyle& style) {
  if (!style.is_operator()) return LabelKeys::new_only;
  if (!style.release.at_least(4)) return LabelKeys::old_only;
  if (!style.release.at_least(6)) return LabelKeys::both;
  return LabelKeys::new_only;
}

void put(Labels& labels, LabelKeys keys, const std::string& name, const std::string& value) {
  if (keys != LabelKeys::old_only) labels[k_new_prefix + name] = value;
  if (keys != LabelKeys::new_only) labels[name] = value;
}

bool is_master_role(const ReplicaRef& r, const EnvStyle& style) {
  const std::string type = util::to_lower(r.replica_type);
  if (type == "master") return true;
  // v1.8+ IsMasterRole: Worker 0 of a job without Master also carries job-role=master (a label only).
  const bool worker_zero_rule = !style.is_operator() || style.release.at_least(8);
  return worker_zero_rule && !r.job_has_master && type == "worker" && r.index == 0;
}

}  // namespace

Labels job_selector(std::string_view job, const EnvStyle& style) {
  Labels labels;
  const LabelKeys keys = keys_for(style);
  // v1.3 GenLabels has group-name + job-name; v1.4/v1.5 add operator-name + the new job-name.
  if (keys != LabelKeys::new_only) labels["group-name"] = "kubeflow.org";
  if (keys != LabelKeys::old_only)
    labels[std::string(k_new_prefix) + "operator-name"] = std::string(k_operator_name);
  put(labels, keys, "job-name", std::string(job));
  return labels;
}

Labels service_labels(const ReplicaRef& replica, const EnvStyle& style) {
  Labels labels = job_selector(replica.job, style);
  const LabelKeys keys = keys_for(style);
  put(labels, keys, "replica-type", util::to_lower(replica.replica_type));
  put(labels, keys, "replica-index", std::to_string(replica.index));
  if (!style.is_operator()) labels["app.kubernetes.io/name"] = std::string(replica.job);
  return labels;
}

Labels pod_labels(const ReplicaRef& replica, const EnvStyle& style) {
  Labels labels = service_labels(replica, style);
  if (is_master_role(replica, style)) put(labels, keys_for(style), "job-role", "master");
  return labels;
}

std::string selector_string(const Labels& labels) {
  std::string out;
  for (const auto& [key, value] : labels) {
    if (!out.empty()) out += ",";
    out += key + "=" + value;
  }
  return out;
}

}  // namespace kpt::model::pytorchjob
