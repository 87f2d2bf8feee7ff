// The Job controller's pods for Indexed Jobs (kubernetes pkg/controller/job/job_controller.go and
// indexed_job_utils.go), the batch API's defaults, and the JobSet pod webhook's priority label.

#include "model/k8s/object_meta.hpp"
#include "model/trainjob/constants.hpp"
#include "model/trainjob/jobset_children.hpp"
#include "util/json_access.hpp"

namespace kpt::model::trainjob {

namespace {

using nlohmann::json;
using util::at_path;
using util::ensure_path;

/// names.MaxGeneratedNameLength: 63 minus the 5 random characters.
constexpr std::size_t k_max_generated_name = 58;

void add_completion_index_env(json& container, bool pod_index_label) {
  if (!container.is_object()) return;
  if (!container.contains("env") || !container["env"].is_array()) container["env"] = json::array();
  if (util::find_by(container["env"], "name", "JOB_COMPLETION_INDEX") != nullptr) return;
  const std::string path = std::string(pod_index_label ? "metadata.labels['" : "metadata.annotations['") +
                           k_completion_index_key + "']";
  container["env"].push_back(
      {{"name", "JOB_COMPLETION_INDEX"}, {"valueFrom", {{"fieldRef", {{"fieldPath", path}}}}}});
}

bool job_suspended(const json& job) {
  const json* suspend = at_path(job, "spec.suspend");
  return suspend != nullptr && suspend->is_boolean() && suspend->get<bool>();
}

}  // namespace

json created_job(const json& job, const std::string& uid) {
  json out = job;
  ensure_path(out, "metadata")["uid"] = uid;
  json& spec = ensure_path(out, "spec");
  if (!spec.contains("backoffLimit")) spec["backoffLimit"] = 6;
  if (!spec.contains("selector")) {
    spec["selector"] = {{"matchLabels", {{"batch.kubernetes.io/controller-uid", uid}}}};
  }
  json& labels = ensure_path(spec, "template.metadata.labels");
  const std::string name = k8s::name_of(job);
  labels["batch.kubernetes.io/controller-uid"] = uid;
  labels["batch.kubernetes.io/job-name"] = name;
  labels["controller-uid"] = uid;
  labels["job-name"] = name;
  return out;
}

std::string pod_generate_name(const std::string& job, std::int64_t index) {
  const std::string append = "-" + std::to_string(index) + "-";
  const std::string prefix = job + append;
  if (prefix.size() <= k_max_generated_name) return prefix;
  return prefix.substr(0, k_max_generated_name - append.size()) + append;
}

json desired_pod(const json& job, std::int64_t index, const PodNameSuffix& suffix,
                 const PodOptions& options) {
  const std::string job_name = k8s::name_of(job);
  json pod = {{"apiVersion", "v1"},
              {"kind", "Pod"},
              {"metadata", util::object_at(job, "spec.template.metadata")},
              {"spec", util::object_at(job, "spec.template.spec")}};
  json& meta = pod["metadata"];
  const std::string generate_name = pod_generate_name(job_name, index);
  meta["generateName"] = generate_name;
  meta["name"] = generate_name + suffix(generate_name, index);
  meta["namespace"] = k8s::namespace_of(job);
  ensure_path(meta, "annotations")[k_completion_index_key] = std::to_string(index);
  if (options.pod_index_label) ensure_path(meta, "labels")[k_completion_index_key] = std::to_string(index);
  if (options.priority)
    ensure_path(meta, "labels")["jobset.sigs.k8s.io/priority"] = std::to_string(*options.priority);
  meta["ownerReferences"] = json::array({{{"apiVersion", "batch/v1"},
                                          {"kind", "Job"},
                                          {"name", job_name},
                                          {"uid", k8s::uid_of(job)},
                                          {"controller", true},
                                          {"blockOwnerDeletion", true}}});
  json& spec = pod["spec"];
  spec["hostname"] = job_name + "-" + std::to_string(index);
  for (const char* list : {"initContainers", "containers"}) {
    if (!spec.contains(list) || !spec[list].is_array()) continue;
    for (auto& container : spec[list]) add_completion_index_env(container, options.pod_index_label);
  }
  return pod;
}

std::vector<json> desired_pods(const json& jobset, const std::vector<json>& jobs, const PodNameSuffix& suffix,
                               const PodOptions& options) {
  std::vector<json> out;
  const json* suspend = at_path(jobset, "spec.suspend");
  if (suspend != nullptr && suspend->is_boolean() && suspend->get<bool>()) return out;
  for (const auto& job : jobs) {
    if (job_suspended(job)) continue;
    const json* completions = at_path(job, "spec.completions");
    const std::int64_t n =
        completions != nullptr && completions->is_number_integer() ? completions->get<std::int64_t>() : 1;
    for (std::int64_t k = 0; k < n; ++k) out.push_back(desired_pod(job, k, suffix, options));
  }
  return out;
}

}  // namespace kpt::model::trainjob
