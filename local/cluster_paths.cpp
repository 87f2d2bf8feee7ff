#include "local/cluster_paths.hpp"

#include "apiserver/certs.hpp"
#include "util/base64.hpp"
#include "util/file_io.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

namespace kpt::local {

namespace fs = std::filesystem;

namespace {

std::string env_or(const std::map<std::string, std::string>& env, const std::string& key) {
  const auto it = env.find(key);
  return it == env.end() ? std::string{} : it->second;
}

}  // namespace

ClusterPaths ClusterPaths::in(const std::string& state_dir) {
  ClusterPaths p;
  p.state_dir = state_dir;
  p.pid_file = state_dir + "/apiserver.pid";
  p.port_file = state_dir + "/apiserver.port";
  p.lock_file = state_dir + "/apiserver.lock";
  p.ca_file = state_dir + "/ca.crt";
  p.cert_file = state_dir + "/apiserver.crt";
  p.key_file = state_dir + "/apiserver.key";
  p.token_file = state_dir + "/token";
  p.log_file = state_dir + "/apiserver.log";
  p.access_log_file = state_dir + "/access.log";
  p.hosts_file = state_dir + "/hosts";
  p.pod_log_dir = state_dir + "/logs";
  p.database_file = state_dir + "/objects.db";
  p.ledger_file = state_dir + "/node.pids";
  p.node_mode_file = state_dir + "/node.mode";
  p.stop_grace_file = state_dir + "/apiserver.stop-grace";
  return p;
}

std::string default_state_dir(const std::map<std::string, std::string>& env) {
  const auto xdg = env_or(env, "XDG_STATE_HOME");
  if (!xdg.empty()) return xdg + "/kubectl-pytorch";
  return env_or(env, "HOME") + "/.local/state/kubectl-pytorch";
}

std::string default_kubeconfig_path(const std::map<std::string, std::string>& env) {
  return env_or(env, "HOME") + "/.kube/kubectl-pytorch-local.yaml";
}

Expected<void> write_private(const std::string& path, const std::string& text, unsigned mode) {
  return util::write_file_atomically(path, text, mode);
}

Expected<void> prepare_state(const ClusterPaths& paths) {
  std::error_code ec;
  fs::create_directories(paths.state_dir, ec);
  if (ec) return make_error(ErrorCode::io, "creating '" + paths.state_dir + "': " + ec.message());
  ::chmod(paths.state_dir.c_str(), 0700);
  auto certs = apiserver::generate_certificates();
  if (!certs) return certs.error();
  auto token = apiserver::generate_token();
  if (!token) return token.error();
  for (const auto& [path, text] : {std::pair{paths.ca_file, certs->ca_cert_pem},
                                   {paths.cert_file, certs->cert_pem},
                                   {paths.key_file, certs->key_pem},
                                   {paths.token_file, *token}}) {
    if (auto w = write_private(path, text); !w) return w;
  }
  return {};
}

Expected<std::string> read_token(const ClusterPaths& paths) {
  auto token = util::read_file(paths.token_file);
  if (!token) return token.error().context("reading '" + paths.token_file + "'");
  std::string t = std::move(*token);
  while (!t.empty() && (t.back() == '\n' || t.back() == '\r')) t.pop_back();
  return t;
}

Expected<void> write_kubeconfig(const std::string& path, const std::string& server_url,
                                const std::string& ca_pem, const std::string& token) {
  std::error_code ec;
  const auto parent = fs::path(path).parent_path();
  if (!parent.empty()) fs::create_directories(parent, ec);
  if (ec) return make_error(ErrorCode::io, "creating '" + parent.string() + "': " + ec.message());
  const std::string name = "kubectl-pytorch-local";
  std::string text = "apiVersion: v1\nkind: Config\nclusters:\n- name: " + name +
                     "\n  cluster:\n    server: " + server_url +
                     "\n    certificate-authority-data: " + util::base64_encode(ca_pem) +
                     "\nusers:\n- name: " + name + "\n  user:\n    token: " + token +
                     "\ncontexts:\n- name: " + name + "\n  context:\n    cluster: " + name +
                     "\n    user: " + name + "\n    namespace: default\ncurrent-context: " + name + "\n";
  return write_private(path, text);
}

}  // namespace kpt::local
