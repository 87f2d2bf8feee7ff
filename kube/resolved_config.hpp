#pragma once

#include "kube/connection_flags.hpp"
#include "kube/file_system.hpp"
#include "kube/kubeconfig.hpp"
#include "util/expected.hpp"

#include <chrono>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace kpt::kube {

/// How requests authenticate. When several are configured, the first of this order is named
/// (exec is skipped once a token is set, as in client-go).
enum class AuthKind { none, token, token_file, exec, basic, client_cert };

/// "none", "token", "tokenFile", "exec", "basic", "clientCertificate".
const char* auth_kind_name(AuthKind kind);

/// What kubectl would connect with, after kubeconfig merging and flag overrides.
struct ResolvedConfig {
  std::string server;
  std::string namespace_;
  bool namespace_overridden = false;  ///< -n given
  std::string context;                ///< name of the context used ("" when none)
  std::string cluster;
  std::string user;
  bool in_cluster = false;

  // TLS
  std::string ca_file;
  std::string ca_data;  ///< PEM
  bool insecure_skip_tls_verify = false;
  std::string tls_server_name;
  std::string client_certificate_file;
  std::string client_certificate_data;  ///< PEM
  std::string client_key_file;
  std::string client_key_data;  ///< PEM

  // Authentication
  AuthKind auth = AuthKind::none;
  std::string token;
  std::string token_file;  ///< re-read for every request batch (projected tokens rotate)
  std::string username;
  std::string password;
  std::optional<ExecConfig> exec;
  std::string exec_cluster_extension_json;  ///< for provideClusterInfo

  // Impersonation
  std::string impersonate_user;
  std::string impersonate_uid;
  std::vector<std::string> impersonate_groups;
  std::map<std::string, std::vector<std::string>> impersonate_extra;

  std::string proxy_url;
  bool disable_compression = false;
  std::chrono::milliseconds timeout{0};  ///< 0: none
};

/// Where in-cluster credentials live; tests point this at a temporary folder.
inline constexpr const char* k_service_account_dir = "/var/run/secrets/kubernetes.io/serviceaccount";

struct ResolveInputs {
  ConnectionFlags flags;
  std::map<std::string, std::string> env;
  std::string cwd;
  std::string service_account_dir = k_service_account_dir;
};

/// Parses kubectl's duration syntax for --request-timeout ("0", "30", "1s", "2m", "1h30m", "500ms").
Expected<std::chrono::milliseconds> parse_duration(const std::string& text);

/// Applies the flags to a loaded kubeconfig and validates the result as client-go's ConfirmUsable does.
/// Falls back to the in-cluster config when the kubeconfig is empty and a service account is mounted.
Expected<ResolvedConfig> resolve_config(const Kubeconfig& config, const ResolveInputs& in,
                                        const FileSystem& fs);

/// load_kubeconfig + resolve_config with the sources taken from `in` (flags.kubeconfig, $KUBECONFIG, $HOME).
Expected<ResolvedConfig> load_and_resolve(const ResolveInputs& in, const FileSystem& fs);

}  // namespace kpt::kube
