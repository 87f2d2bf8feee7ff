#pragma once

#include "util/expected.hpp"

#include <chrono>
#include <map>
#include <string>
#include <vector>

namespace kpt::apiserver {

/// The files of a background server in its state directory.
struct LocalPaths {
  std::string state_dir;
  std::string pid_file;    ///< pid of `local serve`, written once it serves
  std::string port_file;   ///< bound port, written once it serves
  std::string ca_file;     ///< CA certificate (public)
  std::string cert_file;   ///< serving certificate
  std::string key_file;    ///< serving key (0600)
  std::string token_file;  ///< bearer token (0600)
  std::string log_file;    ///< the server's request log (no secrets)

  static LocalPaths in(const std::string& state_dir);
};

/// $XDG_STATE_HOME/kubectl-pytorch, else ~/.local/state/kubectl-pytorch.
std::string default_state_dir(const std::map<std::string, std::string>& env);
/// ~/.kube/kubectl-pytorch-local.yaml.
std::string default_kubeconfig_path(const std::map<std::string, std::string>& env);

struct LocalStatus {
  bool running = false;
  int pid = 0;
  int port = 0;
};

/// Whether the server of `paths` runs: its pid file names a live process and its port file exists.
LocalStatus local_status(const LocalPaths& paths);

/// Creates the state directory (0700) with a fresh CA, serving certificate and token.
Expected<void> prepare_state(const LocalPaths& paths);

/// Writes a kubeconfig (mode 0600) for the server: CA data, server URL, token, namespace default.
Expected<void> write_kubeconfig(const std::string& path, const std::string& server_url,
                                const std::string& ca_pem, const std::string& token);

/// Starts `self_exe local serve --state-dir DIR --port N` detached (own session, stdio to the
/// log file), then waits until it answers an authenticated GET /version over TLS. Returns the port.
/// `extra_args` are appended to the serve command line (e.g. "--server-only").
Expected<int> spawn_and_wait(const std::string& self_exe, const LocalPaths& paths, int port,
                             std::chrono::milliseconds timeout,
                             const std::vector<std::string>& extra_args = {});

/// An authenticated GET /version against 127.0.0.1:port, verifying the server with `ca_pem`.
Expected<void> probe(int port, const std::string& ca_pem, const std::string& token);

/// Sends SIGTERM to the server and waits until it has exited; removes a stale pid file.
Expected<void> stop_local(const LocalPaths& paths, std::chrono::milliseconds timeout);

/// Runs the server in the foreground until SIGTERM/SIGINT (the hidden `local serve`).
/// Writes the port and pid files once serving and removes them on the way out.
int serve_foreground(const LocalPaths& paths, int port);

}  // namespace kpt::apiserver
