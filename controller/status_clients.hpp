#pragma once

#include "kube/api_client.hpp"
#include "model/trainjob/status_protocol.hpp"
#include "util/expected.hpp"

#include <nlohmann/json.hpp>

#include <map>
#include <mutex>
#include <optional>
#include <string>

namespace kpt::controller {

/// Where the pods of a job send their progress (feature gate TrainJobStatus): the status server's
/// "https://host:port" and the CA that signed its certificate.
struct StatusClientConfig {
  std::string server_base;
  std::string ca_pem;
};

/// The pods' side of the progress protocol, shared by both reconcilers: the env and volume injected
/// into a job's trainer pods, and the job's `<job>-tls-config` ConfigMap (server-side applied,
/// controlled by the job, as Trainer's TrainJobStatus plugin builds it). Disabled without a config.
class StatusClients {
 public:
  StatusClients(kube::ApiClient& client, std::optional<StatusClientConfig> config, std::string field_manager)
      : m_client(client), m_config(std::move(config)), m_field_manager(std::move(field_manager)) {}

  [[nodiscard]] bool enabled() const { return m_config.has_value(); }
  /// Into a pod spec (a PyTorchJob's pods: every container).
  void inject(nlohmann::json& pod_spec, const model::trainjob::StatusTarget& target) const;
  /// Into a JobSet (a TrainJob's: the trainer ancestor's replicated job only).
  void inject_jobset(nlohmann::json& jobset, const model::trainjob::StatusTarget& target) const;
  /// Applies the CA ConfigMap of `job` (of `api_version` and `kind`), once per job uid in this
  /// process: the CA does not change while it runs.
  Expected<void> ensure_ca(const nlohmann::json& job, const model::trainjob::StatusTarget& target,
                           const std::string& api_version, const std::string& kind);
  /// The job is gone: its ConfigMap goes with it, through its owner reference.
  void forget(const std::string& key);

 private:
  kube::ApiClient& m_client;
  std::optional<StatusClientConfig> m_config;
  std::string m_field_manager;
  std::mutex m_mutex;
  std::map<std::string, std::string> m_applied;  ///< job key -> uid of the job the CA was applied for
};

}  // namespace kpt::controller
