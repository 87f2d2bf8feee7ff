#pragma once

#include "util/expected.hpp"

#include <map>
#include <string>

namespace kpt::local {

/// The files of the local cluster in its state directory.
struct ClusterPaths {
  std::string state_dir;
  std::string pid_file;    ///< pid of `local serve`, written once it serves
  std::string port_file;   ///< bound port, written once it serves (last: readiness)
  std::string lock_file;   ///< held (flock) by the serving process for its whole life
  std::string ca_file;     ///< CA certificate (public)
  std::string cert_file;   ///< serving certificate
  std::string key_file;    ///< serving key (0600)
  std::string token_file;  ///< bearer token (0600)
  std::string log_file;    ///< what the serving process writes (controller, node, errors; no secrets)
  /// One line per request (no secrets); rotated to access.log.1 past 16 MiB.
  std::string access_log_file;
  std::string hosts_file;  ///< name resolution for local pods
  std::string pod_log_dir;
  std::string database_file;    ///< the API server's objects (SQLite, with -wal and -shm beside it)
  std::string ledger_file;      ///< the processes the node started (ProcessLedger)
  std::string node_mode_file;   ///< how the node isolates pods, one line, written before the port file
  std::string stop_grace_file;  ///< `local down --grace`: seconds, read by the server when it stops

  static ClusterPaths in(const std::string& state_dir);
};

/// $XDG_STATE_HOME/kubectl-pytorch, else ~/.local/state/kubectl-pytorch.
std::string default_state_dir(const std::map<std::string, std::string>& env);
/// ~/.kube/kubectl-pytorch-local.yaml.
std::string default_kubeconfig_path(const std::map<std::string, std::string>& env);

/// Creates the state directory (0700) with a fresh CA, serving certificate and token.
Expected<void> prepare_state(const ClusterPaths& paths);

/// The bearer token of the state directory, without a trailing newline.
Expected<std::string> read_token(const ClusterPaths& paths);

/// Writes a kubeconfig (mode 0600) for the server: CA data, server URL, token, namespace default.
Expected<void> write_kubeconfig(const std::string& path, const std::string& server_url,
                                const std::string& ca_pem, const std::string& token);

/// Writes `text` to `path` atomically (a temporary file renamed over it) with `mode`.
Expected<void> write_private(const std::string& path, const std::string& text, unsigned mode = 0600);

}  // namespace kpt::local
