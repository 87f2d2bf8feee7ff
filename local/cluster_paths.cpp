#include "local/cluster_paths.hpp"

#include "apiserver/certs.hpp"
#include "util/file_io.hpp"

#include <openssl/evp.h>

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

std::string base64(const std::string& in) {
  std::string out(4 * ((in.size() + 2) / 3) + 1, '\0');
  const int n =
      EVP_EncodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                      reinterpret_cast<const unsigned char*>(in.data()), static_cast<int>(in.size()));
  out.resize(static_cast<std::size_t>(n));
  return out;
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
  const std::string tmp = path + ".tmp";
  const auto fail = [&path] {
    return make_error(ErrorCode::io, "writing '" + path + "': " + std::strerror(errno));
  };
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);
  if (fd < 0) return fail();
  ::fchmod(fd, mode);
  std::size_t off = 0;
  while (off < text.size()) {
    const auto n = ::write(fd, text.data() + off, text.size() - off);
    if (n <= 0) {
      auto error = fail();
      ::close(fd);
      return error;
    }
    off += static_cast<std::size_t>(n);
  }
  ::close(fd);
  if (::rename(tmp.c_str(), path.c_str()) != 0) return fail();
  return {};
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
                     "\n    certificate-authority-data: " + base64(ca_pem) + "\nusers:\n- name: " + name +
                     "\n  user:\n    token: " + token + "\ncontexts:\n- name: " + name +
                     "\n  context:\n    cluster: " + name + "\n    user: " + name +
                     "\n    namespace: default\ncurrent-context: " + name + "\n";
  return write_private(path, text);
}

}  // namespace kpt::local
