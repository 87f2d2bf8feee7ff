#pragma once

#include "kube/command_runner.hpp"
#include "kube/kubeconfig.hpp"
#include "util/expected.hpp"

#include <chrono>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string>

namespace kpt::kube {

/// What a credential plugin returned (status of an ExecCredential).
struct ExecCredential {
  std::string token;
  std::string client_certificate_pem;
  std::string client_key_pem;
  std::optional<std::chrono::system_clock::time_point> expiration;
};

/// The cluster as exec plugins see it in KUBERNETES_EXEC_INFO when provideClusterInfo is set.
struct ExecClusterInfo {
  std::string server;
  std::string tls_server_name;
  bool insecure_skip_tls_verify = false;
  std::string certificate_authority_data;  ///< PEM; sent base64-encoded
  std::string proxy_url;
  bool disable_compression = false;
  std::string config_json;  ///< the cluster's client.authentication.k8s.io/exec extension
};

/// The KUBERNETES_EXEC_INFO value for a run of `config`.
std::string exec_info_json(const ExecConfig& config, const ExecClusterInfo& cluster, bool interactive);

/// Decodes a plugin's stdout; errors are worded as client-go's.
Expected<ExecCredential> parse_exec_output(const ExecConfig& config, const std::string& out);

/// Runs the plugin when needed: caches the credential until its expirationTimestamp and
/// re-runs it once per credential after a 401. Thread-safe.
class ExecCredentialProvider {
 public:
  using Clock = std::function<std::chrono::system_clock::time_point()>;

  ExecCredentialProvider(ExecConfig config, ExecClusterInfo cluster, CommandRunner& runner,
                         std::map<std::string, std::string> env, bool stdin_is_terminal, Clock clock = {});

  /// The cached credential, or a fresh one from the plugin.
  Expected<ExecCredential> get();
  /// Called after a 401 sent with credential generation `generation`: drops that credential so the
  /// next get() re-runs the plugin. Returns false when it was already dropped (retry only once).
  bool unauthorized(std::uint64_t generation);
  /// Increases each time the plugin is run.
  [[nodiscard]] std::uint64_t generation() const;

 private:
  Expected<ExecCredential> run_plugin();

  ExecConfig m_config;
  ExecClusterInfo m_cluster;
  CommandRunner& m_runner;
  std::map<std::string, std::string> m_env;
  bool m_stdin_is_terminal;
  Clock m_clock;
  mutable std::mutex m_mutex;
  std::optional<ExecCredential> m_cached;
  std::uint64_t m_generation = 0;
};

}  // namespace kpt::kube
