#include "model/trainjob/status_protocol.hpp"

#include "model/k8s/object_meta.hpp"
#include "model/trainjob/apply.hpp"
#include "model/trainjob/constants.hpp"
#include "util/json_access.hpp"

#include <tuple>
#include <vector>

namespace kpt::model::trainjob {

namespace {

using detail::upsert_by_name;
using nlohmann::json;

constexpr std::string_view k_trainjob_prefix = "/apis/trainer.kubeflow.org/v1alpha1/namespaces/";
constexpr std::string_view k_pytorchjob_prefix = "/apis/kubeflow.org/v1/namespaces/";

std::vector<std::string_view> split_path(std::string_view rest) {
  std::vector<std::string_view> out;
  std::size_t start = 0;
  while (true) {
    const auto slash = rest.find('/', start);
    out.push_back(
        rest.substr(start, slash == std::string_view::npos ? std::string_view::npos : slash - start));
    if (slash == std::string_view::npos) return out;
    start = slash + 1;
  }
}

}  // namespace

std::string status_path(const StatusTarget& target) {
  const bool trainjob = target.kind == StatusTarget::Kind::trainjob;
  return std::string(trainjob ? k_trainjob_prefix : k_pytorchjob_prefix) + target.ns +
         (trainjob ? "/trainjobs/" : "/pytorchjobs/") + target.name + "/status";
}

std::string status_audience(const StatusTarget& target) { return status_path(target).substr(6); }

std::optional<StatusTarget> route_status_request(std::string_view method, std::string_view path) {
  if (method != "POST") return std::nullopt;
  for (const auto& [prefix, kind, plural] :
       {std::tuple{k_trainjob_prefix, StatusTarget::Kind::trainjob, std::string_view("trainjobs")},
        std::tuple{k_pytorchjob_prefix, StatusTarget::Kind::pytorchjob, std::string_view("pytorchjobs")}}) {
    if (path.substr(0, prefix.size()) != prefix) continue;
    const auto parts = split_path(path.substr(prefix.size()));
    if (parts.size() != 4 || parts[1] != plural || parts[3] != "status") return std::nullopt;
    if (parts[0].empty() || parts[2].empty()) return std::nullopt;
    return StatusTarget{kind, std::string(parts[0]), std::string(parts[2])};
  }
  return std::nullopt;
}

std::string status_server_base(const std::string& host, int port) {
  return "https://" + host + ":" + std::to_string(port);
}

std::string tls_config_name(std::string_view job) { return std::string(job) + k_tls_config_suffix; }

void inject_status_client(json& pod_spec, const StatusTarget& target, const std::string& server_base) {
  if (!pod_spec.is_object()) pod_spec = json::object();
  const std::string dir = k_status_mount_path;
  const json env = json::array({
      {{"name", k_env_status_url}, {"value", server_base + status_path(target)}},
      {{"name", k_env_status_ca_cert}, {"value", dir + "/" + k_ca_key}},
      {{"name", k_env_status_token}, {"value", dir + "/token"}},
  });
  const json mount = {{"name", k_status_volume}, {"mountPath", dir}, {"readOnly", true}};
  if (pod_spec.contains("containers") && pod_spec["containers"].is_array()) {
    for (auto& container : pod_spec["containers"]) {
      if (!container.is_object()) continue;
      for (const auto& var : env) upsert_by_name(container["env"], var);
      upsert_by_name(container["volumeMounts"], mount);
    }
  }
  const json volume = {
      {"name", k_status_volume},
      {"projected",
       {{"sources",
         json::array({{{"serviceAccountToken",
                        {{"audience", status_audience(target)},
                         {"expirationSeconds", k_status_token_seconds},
                         {"path", "token"}}}},
                      {{"configMap",
                        {{"name", tls_config_name(target.name)},
                         {"items", json::array({{{"key", k_ca_key}, {"path", k_ca_key}}})}}}}})}}}};
  upsert_by_name(pod_spec["volumes"], volume);
}

bool inject_status_client_into_jobset(json& jobset, const StatusTarget& target,
                                      const std::string& server_base) {
  json* jobs =
      jobset.contains("spec") && jobset["spec"].is_object() && jobset["spec"].contains("replicatedJobs")
          ? &jobset["spec"]["replicatedJobs"]
          : nullptr;
  if (jobs == nullptr || !jobs->is_array()) return false;
  for (auto& job : *jobs) {
    const json* tmpl = util::child(job, "template");
    if (tmpl == nullptr || k8s::label_of(*tmpl, k_label_ancestor) != k_ancestor_trainer) continue;
    inject_status_client(util::ensure_path(job, "template.spec.template.spec"), target, server_base);
    return true;
  }
  return false;
}

json tls_config_map(const StatusTarget& target, const std::string& owner_api_version,
                    const std::string& owner_kind, const std::string& owner_uid, const std::string& ca_pem) {
  return {{"apiVersion", "v1"},
          {"kind", "ConfigMap"},
          {"metadata",
           {{"name", tls_config_name(target.name)},
            {"namespace", target.ns},
            {"ownerReferences", json::array({{{"apiVersion", owner_api_version},
                                              {"kind", owner_kind},
                                              {"name", target.name},
                                              {"uid", owner_uid},
                                              {"controller", true},
                                              {"blockOwnerDeletion", true}}})}}},
          {"data", {{k_ca_key, ca_pem}}}};
}

}  // namespace kpt::model::trainjob
