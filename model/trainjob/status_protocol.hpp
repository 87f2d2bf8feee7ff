#pragma once

// Kubeflow Trainer's TrainJob progress protocol (v2.2+, feature gate TrainJobStatus): what the
// controller injects into the trainer pods, and where they send their progress. Names and values
// are Trainer's (pkg/runtime/framework/plugins/trainjobstatus, pkg/statusserver/utils.go); the
// PyTorchJob route is our own, built the same way, since the v1 operator has none.

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace kpt::model::trainjob {

inline constexpr const char* k_env_status_url = "KUBEFLOW_TRAINER_SERVER_URL";
inline constexpr const char* k_env_status_ca_cert = "KUBEFLOW_TRAINER_SERVER_CA_CERT";
inline constexpr const char* k_env_status_token = "KUBEFLOW_TRAINER_SERVER_TOKEN";
inline constexpr const char* k_status_mount_path = "/var/run/secrets/kubeflow/trainer";
inline constexpr const char* k_status_volume = "kubeflow-trainer-token";
inline constexpr std::int64_t k_status_token_seconds = 3600;
/// `<job>-tls-config`: the ConfigMap holding the status server's CA (key ca.crt).
inline constexpr const char* k_tls_config_suffix = "-tls-config";
inline constexpr const char* k_ca_key = "ca.crt";
inline constexpr int k_status_server_port = 10443;
/// The field manager of the status server's writes.
inline constexpr const char* k_status_field_manager = "trainer-status";

/// The job a status request writes: a TrainJob (Trainer's route) or a PyTorchJob (ours).
struct StatusTarget {
  enum class Kind { trainjob, pytorchjob };
  Kind kind = Kind::trainjob;
  std::string ns;
  std::string name;
  friend bool operator==(const StatusTarget&, const StatusTarget&) = default;
};

/// "/apis/trainer.kubeflow.org/v1alpha1/namespaces/<ns>/trainjobs/<name>/status"; a PyTorchJob's
/// "/apis/kubeflow.org/v1/namespaces/<ns>/pytorchjobs/<name>/status".
std::string status_path(const StatusTarget& target);

/// The token audience the endpoint requires: the path without its leading "/apis/".
std::string status_audience(const StatusTarget& target);

/// The target of a request to the status server: only POST to one of the two routes (any other
/// method or path is Trainer's catch-all 404). Path segments must be non-empty and slash-free.
std::optional<StatusTarget> route_status_request(std::string_view method, std::string_view path);

/// Where the pods reach the status server: "https://<host>:<port>".
std::string status_server_base(const std::string& host, int port);

/// `<job>-tls-config`.
std::string tls_config_name(std::string_view job);

/// Trainer's injection into one pod spec: the three env vars (upserted: they win over the user's),
/// the read-only mount of `kubeflow-trainer-token` in every regular container (init containers
/// untouched), and the projected volume (the pod's service account token for the job's audience,
/// 3600 s, and ca.crt from `<job>-tls-config`).
void inject_status_client(nlohmann::json& pod_spec, const StatusTarget& target,
                          const std::string& server_base);

/// The same into a JobSet: the first replicated job whose template is labelled with the trainer
/// ancestor step. False when there is none (nothing injected).
bool inject_status_client_into_jobset(nlohmann::json& jobset, const StatusTarget& target,
                                      const std::string& server_base);

/// The ConfigMap `<job>-tls-config` in the job's namespace holding `ca_pem` as ca.crt, controlled
/// by the job (`owner_api_version`, `owner_kind`, `owner_uid`), as an apply body.
nlohmann::json tls_config_map(const StatusTarget& target, const std::string& owner_api_version,
                              const std::string& owner_kind, const std::string& owner_uid,
                              const std::string& ca_pem);

}  // namespace kpt::model::trainjob
