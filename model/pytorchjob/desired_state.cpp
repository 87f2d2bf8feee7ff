#include "model/pytorchjob/desired_state.hpp"

#include "model/k8s/object_meta.hpp"
#include "model/pytorchjob/labels.hpp"
#include "model/pytorchjob/names.hpp"
#include "util/json_access.hpp"

#include <nlohmann/json.hpp>

namespace kpt::model::pytorchjob {

namespace {

using nlohmann::json;

const json& replica_spec_json(const json& job, const std::string& type) {
  static const json k_empty = json::object();
  const auto spec = job.find("spec");
  if (spec == job.end() || !spec->is_object()) return k_empty;
  const auto replicas = spec->find("pytorchReplicaSpecs");
  if (replicas == spec->end() || !replicas->is_object()) return k_empty;
  for (const auto& [key, value] : replicas->items()) {
    if (camel_replica_type(key) == type || key == type) return value;
  }
  return k_empty;
}

bool job_has_master(const json& job) { return !replica_spec_json(job, "Master").empty(); }

ReplicaRef ref_for(const json& job, const ReplicaPodPlan& plan, const std::string& job_name) {
  return ReplicaRef{job_name, plan.replica_type, plan.index, job_has_master(job)};
}

std::string job_name(const json& job) {
  const auto md = job.find("metadata");
  if (md == job.end() || !md->is_object()) return "";
  return md->value("name", std::string());
}

/// Index of the container the default port goes on: `pytorch`, else the first (setDefaultPort).
std::size_t port_container(const json& containers) {
  for (std::size_t i = 0; i < containers.size(); ++i) {
    if (containers[i].is_object() && containers[i].value("name", json()) == k_container_name) return i;
  }
  return 0;
}

void add_default_port(json& containers) {
  if (!containers.is_array() || containers.empty()) return;
  json& c = containers[port_container(containers)];
  if (!c.is_object()) return;
  json& ports = c["ports"];
  if (!ports.is_array()) ports = json::array();
  for (const auto& p : ports) {
    if (p.is_object() && p.value("name", json()) == k_port_name) return;
  }
  ports.push_back({{"name", k_port_name}, {"containerPort", k_default_port}});
}

bool default_port_applies(const ReplicaPodPlan& plan, const EnvStyle& style) {
  // v1.3 defaulted the port on the Master template only; v1.4+ and our styles on every replica type.
  return !style.is_operator() || style.release.at_least(4) || plan.replica_type == "Master";
}

json init_container(const std::string& job, const Release& release) {
  const std::string master = replica_name(job, "master", 0);
  const std::string script =
      release.at_least(7) ? "err=1;for i in $(seq 100); do if nslookup " + master +
                                "; then err=0 && break; fi;echo waiting for master; sleep 2; done; exit $err"
                          : "until nslookup " + master + "; do echo waiting for master; sleep 2; done;";
  return {{"name", "init-pytorch"},
          {"image", "alpine:3.10"},
          {"imagePullPolicy", "IfNotPresent"},
          {"command", json::array({"sh", "-c", script})},
          {"resources",
           {{"limits", {{"cpu", "100m"}, {"memory", "20Mi"}}},
            {"requests", {{"cpu", "50m"}, {"memory", "10Mi"}}}}}};
}

}  // namespace

json owner_reference(const json& job) {
  return k8s::controller_reference("kubeflow.org/v1", "PyTorchJob", job);
}

json desired_pod(const json& job, const ReplicaPodPlan& plan, const EnvStyle& style) {
  const std::string name = job_name(job);
  const json& replica = replica_spec_json(job, plan.replica_type);
  json tmpl = replica.is_object() && replica.contains("template") && replica["template"].is_object()
                  ? replica["template"]
                  : json::object();
  json pod = {{"apiVersion", "v1"}, {"kind", "Pod"}};
  json metadata =
      tmpl.contains("metadata") && tmpl["metadata"].is_object() ? tmpl["metadata"] : json::object();
  metadata.erase("generateName");
  metadata["name"] = plan.name;
  if (const auto md = job.find("metadata"); md != job.end() && md->is_object() && md->contains("namespace")) {
    metadata["namespace"] = (*md)["namespace"];
  }
  json labels =
      metadata.contains("labels") && metadata["labels"].is_object() ? metadata["labels"] : json::object();
  for (const auto& [k, v] : pod_labels(ref_for(job, plan, name), style))
    labels[k] = v;  // ours win on collision
  metadata["labels"] = labels;
  metadata["ownerReferences"] = json::array({owner_reference(job)});
  pod["metadata"] = metadata;

  json spec = tmpl.contains("spec") && tmpl["spec"].is_object() ? tmpl["spec"] : json::object();
  const std::string policy =
      replica.is_object() ? replica.value("restartPolicy", std::string("OnFailure")) : "";
  spec["restartPolicy"] = policy == "ExitCode" ? "Never" : policy;
  json& containers = spec["containers"];
  if (!containers.is_array()) containers = json::array();
  if (default_port_applies(plan, style)) add_default_port(containers);
  for (auto& c : containers) {
    if (!c.is_object()) continue;
    json& env = c["env"];
    if (!env.is_array()) env = json::array();
    for (const auto& v : plan.env) env.push_back({{"name", v.name}, {"value", v.value}});
  }
  if (style.is_operator() && style.release.at_least(4) && plan.replica_type == "Worker" &&
      job_has_master(job)) {
    json& init = spec["initContainers"];
    if (!init.is_array()) init = json::array();
    init.push_back(init_container(name, style.release));
  }
  pod["spec"] = spec;
  return pod;
}

json desired_service(const json& job, const ReplicaPodPlan& plan, const EnvStyle& style) {
  const Labels labels = service_labels(ref_for(job, plan, job_name(job)), style);
  json metadata = {
      {"name", plan.service}, {"labels", labels}, {"ownerReferences", json::array({owner_reference(job)})}};
  if (const auto md = job.find("metadata"); md != job.end() && md->is_object() && md->contains("namespace")) {
    metadata["namespace"] = (*md)["namespace"];
  }
  // Ports: every port of the `pytorch` container after defaulting, as {name, port} (GetPortsFromJob).
  json ports = json::array();
  const json pod = desired_pod(job, plan, style);
  for (const auto& c : pod["spec"]["containers"]) {
    if (!c.is_object() || c.value("name", json()) != k_container_name || !c.contains("ports")) continue;
    for (const auto& p : c["ports"]) {
      if (!p.is_object() || !p.contains("containerPort")) continue;
      json port = {{"name", util::string_at(p, "name")}, {"port", p["containerPort"]}};
      ports.push_back(port);
    }
  }
  json spec = {{"clusterIP", "None"}, {"selector", labels}};
  if (!ports.empty()) spec["ports"] = ports;
  return {{"apiVersion", "v1"}, {"kind", "Service"}, {"metadata", metadata}, {"spec", spec}};
}

}  // namespace kpt::model::pytorchjob
