#include "controller/status_clients.hpp"

#include "util/strings.hpp"

namespace kpt::controller {

namespace tj = model::trainjob;

void StatusClients::inject(nlohmann::json& pod_spec, const tj::StatusTarget& target) const {
  if (m_config) tj::inject_status_client(pod_spec, target, m_config->server_base);
}

void StatusClients::inject_jobset(nlohmann::json& jobset, const tj::StatusTarget& target) const {
  if (m_config) tj::inject_status_client_into_jobset(jobset, target, m_config->server_base);
}

Expected<void> StatusClients::ensure_ca(const nlohmann::json& job, const tj::StatusTarget& target,
                                        const std::string& api_version, const std::string& kind) {
  if (!m_config) return {};
  const std::string key = target.ns + "/" + target.name;
  const std::string uid = job.at("metadata").value("uid", std::string{});
  {
    std::lock_guard lock(m_mutex);
    if (const auto it = m_applied.find(key); it != m_applied.end() && it->second == uid) return {};
  }
  const auto config_map = tj::tls_config_map(target, api_version, kind, uid, m_config->ca_pem);
  kube::WriteOptions apply;
  apply.field_manager = m_field_manager;
  apply.force = true;
  const std::string name = tj::tls_config_name(target.name);
  auto applied = m_client.patch(kube::resources::configmaps(), target.ns, name, kube::PatchType::apply,
                                config_map.dump(), apply);
  if (!applied) return applied.error().context("applying ConfigMap " + util::quote(name));
  std::lock_guard lock(m_mutex);
  m_applied[key] = uid;
  return {};
}

void StatusClients::forget(const std::string& key) {
  std::lock_guard lock(m_mutex);
  m_applied.erase(key);
}

}  // namespace kpt::controller
