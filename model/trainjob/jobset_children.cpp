// What the JobSet controller (kubernetes-sigs/jobset v0.12.0 pkg/controllers/jobset_controller.go,
// volume_claim_policy.go) and the Job controller (kubernetes pkg/controller/job) create.

#include "model/trainjob/jobset_children.hpp"

#include "model/k8s/object_meta.hpp"
#include "model/trainjob/constants.hpp"
#include "util/json_access.hpp"
#include "util/sha1.hpp"

namespace kpt::model::trainjob {

namespace {

using nlohmann::json;
using util::array_at;
using util::at_path;
using util::child;
using util::ensure_path;
using util::int_at;
using util::string_at;

constexpr const char* k_js = "jobset.sigs.k8s.io/";

const json& replicated_jobs(const json& jobset) {
  static const json k_empty = json::array();
  const json* jobs = at_path(jobset, "spec.replicatedJobs");
  return jobs != nullptr && jobs->is_array() ? *jobs : k_empty;
}

void default_replicated_job(json& job) {
  if (!job.contains("replicas")) job["replicas"] = 1;
  if (!job.contains("groupName")) job["groupName"] = "default";
  json& job_spec = ensure_path(job, "template.spec");
  if (!job_spec.contains("completionMode")) job_spec["completionMode"] = "Indexed";
  json& pod_spec = ensure_path(job_spec, "template.spec");
  if (string_at(pod_spec, "restartPolicy").empty()) pod_spec["restartPolicy"] = "OnFailure";
}

struct JobPlacement {
  std::int64_t global_index = 0;
  std::int64_t global_replicas = 0;
  std::int64_t group_index = 0;
  std::int64_t group_replicas = 0;
};

JobPlacement placement(const json& jobset, const json& target, std::int64_t index) {
  JobPlacement p;
  const std::string group = string_at(target, "groupName");
  bool before_target = true;
  bool before_in_group = true;
  for (const auto& job : replicated_jobs(jobset)) {
    const std::int64_t replicas = int_at(job, "replicas").value_or(1);
    const bool is_target = string_at(job, "name") == string_at(target, "name");
    p.global_replicas += replicas;
    if (is_target) before_target = false;
    if (before_target) p.global_index += replicas;
    if (string_at(job, "groupName") == group) {
      p.group_replicas += replicas;
      if (is_target) before_in_group = false;
      if (before_in_group) p.group_index += replicas;
    }
  }
  p.global_index += index;
  p.group_index += index;
  return p;
}

/// labelAndAnnotateObject: the same keys as labels and as annotations.
void label_and_annotate(json& object, const json& jobset, const json& rjob, std::int64_t index) {
  const std::string name = k8s::name_of(jobset);
  const std::string job = job_name(name, string_at(rjob, "name"), index);
  const JobPlacement p = placement(jobset, rjob, index);
  const json* restarts = at_path(jobset, "status.restarts");
  json keys = {
      {std::string(k_js) + "jobset-name", name},
      {std::string(k_js) + "jobset-uid", k8s::uid_of(jobset)},
      {std::string(k_js) + "replicatedjob-name", string_at(rjob, "name")},
      {std::string(k_js) + "restart-attempt",
       std::to_string(restarts != nullptr && restarts->is_number_integer() ? restarts->get<std::int64_t>()
                                                                           : 0)},
      {std::string(k_js) + "replicatedjob-replicas", std::to_string(int_at(rjob, "replicas").value_or(1))},
      {std::string(k_js) + "global-replicas", std::to_string(p.global_replicas)},
      {std::string(k_js) + "job-index", std::to_string(index)},
      {std::string(k_js) + "job-key", util::sha1_hex(k8s::namespace_of(jobset) + "/" + job)},
      {std::string(k_js) + "job-global-index", std::to_string(p.global_index)},
      {std::string(k_js) + "group-name", string_at(rjob, "groupName")},
      {std::string(k_js) + "group-replicas", std::to_string(p.group_replicas)},
      {std::string(k_js) + "job-group-index", std::to_string(p.group_index)}};
  if (const json* coordinator = at_path(jobset, "spec.coordinator");
      coordinator != nullptr && coordinator->is_object()) {
    keys[std::string(k_js) + "coordinator"] =
        name + "-" + string_at(*coordinator, "replicatedJob") + "-" +
        std::to_string(int_at(*coordinator, "jobIndex").value_or(0)) + "-" +
        std::to_string(int_at(*coordinator, "podIndex").value_or(0)) + "." + jobset_subdomain(jobset);
  }
  json& meta = ensure_path(object, "metadata");
  for (const char* field : {"labels", "annotations"}) {
    if (!meta.contains(field) || !meta[field].is_object()) meta[field] = json::object();
    for (const auto& [k, v] : keys.items()) meta[field][k] = v;
  }
}

/// JobSet's exclusive-placement annotations, copied onto the Job and its pods.
void copy_exclusive_annotations(json& object, const json& jobset, const json& rjob) {
  const std::string exclusive = "alpha.jobset.sigs.k8s.io/exclusive-topology";
  const std::string strategy = "alpha.jobset.sigs.k8s.io/node-selector";
  for (const json* source :
       {at_path(jobset, "metadata.annotations"), at_path(rjob, "template.metadata.annotations")}) {
    if (source == nullptr || !source->contains(exclusive)) continue;
    object["metadata"]["annotations"][exclusive] = (*source)[exclusive];
    if (source->contains(strategy)) object["metadata"]["annotations"][strategy] = (*source)[strategy];
  }
}

/// The nodeSelector strategy of exclusive placement: the namespaced job name as a node selector,
/// plus a toleration of JobSet's no-schedule taint.
void add_exclusive_node_selector(json& job) {
  const json* ann = at_path(job, "metadata.annotations");
  if (ann == nullptr || !ann->contains("alpha.jobset.sigs.k8s.io/exclusive-topology") ||
      !ann->contains("alpha.jobset.sigs.k8s.io/node-selector")) {
    return;
  }
  json& pod_spec = ensure_path(job, "spec.template.spec");
  ensure_path(pod_spec, "nodeSelector")["alpha.jobset.sigs.k8s.io/namespaced-job"] =
      k8s::namespace_of(job) + "_" + k8s::name_of(job);
  if (!pod_spec.contains("tolerations") || !pod_spec["tolerations"].is_array())
    pod_spec["tolerations"] = json::array();
  pod_spec["tolerations"].push_back(
      {{"key", "alpha.jobset.sigs.k8s.io/no-schedule"}, {"operator", "Exists"}, {"effect", "NoSchedule"}});
}

void add_claim_volumes(json& job, const json& jobset) {
  const json* policies = at_path(jobset, "spec.volumeClaimPolicies");
  if (policies == nullptr || !policies->is_array()) return;
  json& pod_spec = ensure_path(job, "spec.template.spec");
  for (const auto& policy : *policies) {
    for (const auto& tmpl : array_at(policy, "templates")) {
      const std::string name = k8s::name_of(tmpl);
      bool mounted = false;
      for (const char* list : {"containers", "initContainers"}) {
        for (const auto& c : array_at(pod_spec, list)) {
          mounted = mounted || util::find_by(array_at(c, "volumeMounts"), "name", name) != nullptr;
        }
      }
      if (!mounted) continue;
      if (!pod_spec.contains("volumes") || !pod_spec["volumes"].is_array())
        pod_spec["volumes"] = json::array();
      pod_spec["volumes"].push_back(
          {{"name", name}, {"persistentVolumeClaim", {{"claimName", name + "-" + k8s::name_of(jobset)}}}});
    }
  }
}

json job_for(const json& jobset, const json& rjob, std::int64_t index) {
  const std::string name = job_name(k8s::name_of(jobset), string_at(rjob, "name"), index);
  json job = {{"apiVersion", "batch/v1"},
              {"kind", "Job"},
              {"metadata", {{"name", name}, {"namespace", k8s::namespace_of(jobset)}}},
              {"spec", util::object_at(rjob, "template.spec")}};
  if (const json* labels = at_path(rjob, "template.metadata.labels")) job["metadata"]["labels"] = *labels;
  if (const json* ann = at_path(rjob, "template.metadata.annotations")) job["metadata"]["annotations"] = *ann;
  label_and_annotate(job, jobset, rjob, index);
  label_and_annotate(ensure_path(job, "spec.template"), jobset, rjob, index);
  copy_exclusive_annotations(job, jobset, rjob);
  add_exclusive_node_selector(job);
  const json* dns = at_path(jobset, "spec.network.enableDNSHostnames");
  if (dns != nullptr && dns->is_boolean() && dns->get<bool>()) {
    ensure_path(job, "spec.template.spec")["subdomain"] = jobset_subdomain(jobset);
  }
  const json* suspend = at_path(jobset, "spec.suspend");
  job["spec"]["suspend"] = suspend != nullptr && suspend->is_boolean() && suspend->get<bool>();
  add_claim_volumes(job, jobset);
  job["metadata"]["ownerReferences"] =
      json::array({k8s::controller_reference(k_jobset_api_version, "JobSet", jobset)});
  return job;
}

}  // namespace

json default_jobset(const json& jobset) {
  json out = jobset;
  json& spec = ensure_path(out, "spec");
  if (!spec.contains("successPolicy")) spec["successPolicy"] = {{"operator", "All"}};
  if (!spec.contains("startupPolicy")) spec["startupPolicy"] = {{"startupPolicyOrder", "AnyOrder"}};
  if (!spec.contains("replicatedJobs") || !spec["replicatedJobs"].is_array())
    spec["replicatedJobs"] = json::array();
  for (auto& job : spec["replicatedJobs"]) {
    if (job.is_object()) default_replicated_job(job);
  }
  json& network = ensure_path(spec, "network");
  if (!network.contains("enableDNSHostnames")) network["enableDNSHostnames"] = true;
  if (!network.contains("publishNotReadyAddresses")) network["publishNotReadyAddresses"] = true;
  if (spec.contains("failurePolicy") && spec["failurePolicy"].is_object()) {
    json& policy = spec["failurePolicy"];
    if (!policy.contains("restartStrategy")) policy["restartStrategy"] = "Recreate";
    if (policy.contains("rules") && policy["rules"].is_array()) {
      for (std::size_t i = 0; i < policy["rules"].size(); ++i) {
        json& rule = policy["rules"][i];
        if (rule.is_object() && string_at(rule, "name").empty())
          rule["name"] = "failurePolicyRule" + std::to_string(i);
      }
    }
  }
  if (spec.contains("volumeClaimPolicies") && spec["volumeClaimPolicies"].is_array()) {
    for (auto& policy : spec["volumeClaimPolicies"]) {
      if (policy.is_object() && !policy.contains("retentionPolicy"))
        policy["retentionPolicy"] = {{"whenDeleted", "Delete"}};
    }
  }
  return out;
}

std::string jobset_subdomain(const json& jobset) {
  const json* subdomain = at_path(jobset, "spec.network.subdomain");
  return subdomain != nullptr && subdomain->is_string() && !subdomain->get<std::string>().empty()
             ? subdomain->get<std::string>()
             : k8s::name_of(jobset);
}

std::optional<json> headless_service(const json& jobset) {
  const json* dns = at_path(jobset, "spec.network.enableDNSHostnames");
  if (dns == nullptr || !dns->is_boolean() || !dns->get<bool>()) return std::nullopt;
  const json* publish = at_path(jobset, "spec.network.publishNotReadyAddresses");
  return json{
      {"apiVersion", "v1"},
      {"kind", "Service"},
      {"metadata",
       {{"name", jobset_subdomain(jobset)},
        {"namespace", k8s::namespace_of(jobset)},
        {"ownerReferences",
         json::array({k8s::controller_reference(k_jobset_api_version, "JobSet", jobset)})}}},
      {"spec",
       {{"clusterIP", "None"},
        {"selector", {{std::string(k_js) + "jobset-name", k8s::name_of(jobset)}}},
        {"publishNotReadyAddresses", publish == nullptr || !publish->is_boolean() || publish->get<bool>()}}}};
}

std::vector<json> desired_pvcs(const json& jobset) {
  std::vector<json> out;
  const json* policies = at_path(jobset, "spec.volumeClaimPolicies");
  if (policies == nullptr || !policies->is_array()) return out;
  for (const auto& policy : *policies) {
    const bool owned = util::string_at(util::object_at(policy, "retentionPolicy"), "whenDeleted") == "Delete";
    for (const auto& tmpl : array_at(policy, "templates")) {
      json meta = {{"name", k8s::name_of(tmpl) + "-" + k8s::name_of(jobset)},
                   {"namespace", k8s::namespace_of(jobset)},
                   {"labels", util::object_at(tmpl, "metadata.labels")}};
      meta["labels"][std::string(k_js) + "jobset-name"] = k8s::name_of(jobset);
      if (const json* ann = at_path(tmpl, "metadata.annotations")) meta["annotations"] = *ann;
      if (owned)
        meta["ownerReferences"] =
            json::array({k8s::controller_reference(k_jobset_api_version, "JobSet", jobset)});
      out.push_back({{"apiVersion", "v1"},
                     {"kind", "PersistentVolumeClaim"},
                     {"metadata", meta},
                     {"spec", util::object_at(tmpl, "spec")}});
    }
  }
  return out;
}

std::string job_name(const std::string& jobset, const std::string& replicated_job, std::int64_t index) {
  return jobset + "-" + replicated_job + "-" + std::to_string(index);
}

std::optional<json> desired_job(const json& jobset, const std::string& replicated_job, std::int64_t index) {
  const json* rjob = util::find_by(replicated_jobs(jobset), "name", replicated_job);
  if (rjob == nullptr || index < 0 || index >= int_at(*rjob, "replicas").value_or(1)) return std::nullopt;
  return job_for(jobset, *rjob, index);
}

std::vector<json> desired_jobs(const json& jobset) {
  std::vector<json> out;
  for (const auto& rjob : replicated_jobs(jobset)) {
    for (std::int64_t i = 0; i < int_at(rjob, "replicas").value_or(1); ++i)
      out.push_back(job_for(jobset, rjob, i));
  }
  return out;
}

}  // namespace kpt::model::trainjob
