#include "apiserver/local_control.hpp"

#include "apiserver/api_server.hpp"
#include "util/file_io.hpp"

#include <httplib.h>
#include <openssl/evp.h>
#include <openssl/pem.h>

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <thread>

namespace kpt::apiserver {

namespace fs = std::filesystem;

namespace {

std::string env_or(const std::map<std::string, std::string>& env, const std::string& key) {
  const auto it = env.find(key);
  return it == env.end() ? std::string{} : it->second;
}

Expected<void> write_private(const std::string& path, const std::string& text, mode_t mode = 0600) {
  const std::string tmp = path + ".tmp";
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);
  if (fd < 0) return make_error(ErrorCode::io, "writing '" + path + "': " + std::strerror(errno));
  ::fchmod(fd, mode);
  std::size_t off = 0;
  while (off < text.size()) {
    const auto n = ::write(fd, text.data() + off, text.size() - off);
    if (n <= 0) {
      ::close(fd);
      return make_error(ErrorCode::io, "writing '" + path + "': " + std::strerror(errno));
    }
    off += static_cast<std::size_t>(n);
  }
  ::close(fd);
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    return make_error(ErrorCode::io, "writing '" + path + "': " + std::strerror(errno));
  }
  return {};
}

std::string base64(const std::string& in) {
  std::string out(4 * ((in.size() + 2) / 3) + 1, '\0');
  const int n =
      EVP_EncodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                      reinterpret_cast<const unsigned char*>(in.data()), static_cast<int>(in.size()));
  out.resize(static_cast<std::size_t>(n));
  return out;
}

int read_int_file(const std::string& path) {
  std::ifstream in(path);
  int v = 0;
  in >> v;
  return in ? v : 0;
}

bool process_alive(int pid) { return pid > 0 && (::kill(pid, 0) == 0 || errno == EPERM); }

}  // namespace

LocalPaths LocalPaths::in(const std::string& state_dir) {
  LocalPaths p;
  p.state_dir = state_dir;
  p.pid_file = state_dir + "/apiserver.pid";
  p.port_file = state_dir + "/apiserver.port";
  p.ca_file = state_dir + "/ca.crt";
  p.cert_file = state_dir + "/apiserver.crt";
  p.key_file = state_dir + "/apiserver.key";
  p.token_file = state_dir + "/token";
  p.log_file = state_dir + "/apiserver.log";
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

LocalStatus local_status(const LocalPaths& paths) {
  LocalStatus s;
  s.pid = read_int_file(paths.pid_file);
  s.port = read_int_file(paths.port_file);
  s.running = process_alive(s.pid) && s.port > 0;
  return s;
}

Expected<void> prepare_state(const LocalPaths& paths) {
  std::error_code ec;
  fs::create_directories(paths.state_dir, ec);
  if (ec) return make_error(ErrorCode::io, "creating '" + paths.state_dir + "': " + ec.message());
  ::chmod(paths.state_dir.c_str(), 0700);
  auto certs = generate_certificates();
  if (!certs) return certs.error();
  auto token = generate_token();
  if (!token) return token.error();
  for (const auto& [path, text] : {std::pair{paths.ca_file, certs->ca_cert_pem},
                                   {paths.cert_file, certs->cert_pem},
                                   {paths.key_file, certs->key_pem},
                                   {paths.token_file, *token}}) {
    if (auto w = write_private(path, text); !w) return w;
  }
  return {};
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

Expected<void> probe(int port, const std::string& ca_pem, const std::string& token) {
  httplib::SSLClient cli("127.0.0.1", port);
  BIO* bio = BIO_new_mem_buf(ca_pem.data(), static_cast<int>(ca_pem.size()));
  X509* ca = PEM_read_bio_X509(bio, nullptr, nullptr, nullptr);
  BIO_free(bio);
  if (ca == nullptr) return make_error(ErrorCode::config, "the local CA certificate does not parse");
  X509_STORE* store = X509_STORE_new();
  X509_STORE_add_cert(store, ca);
  X509_free(ca);
  cli.set_ca_cert_store(store);  // the client owns the store from here
  cli.enable_server_certificate_verification(true);
  cli.set_connection_timeout(std::chrono::seconds(2));
  cli.set_read_timeout(std::chrono::seconds(5));
  auto res = cli.Get("/version", {{"Authorization", "Bearer " + token}});
  if (!res)
    return make_error(ErrorCode::http, "connecting to 127.0.0.1:" + std::to_string(port) + ": " +
                                           httplib::to_string(res.error()));
  if (res->status != 200) {
    return make_error(ErrorCode::http, "GET /version answered HTTP " + std::to_string(res->status));
  }
  return {};
}

Expected<int> spawn_and_wait(const std::string& self_exe, const LocalPaths& paths, int port,
                             std::chrono::milliseconds timeout, const std::vector<std::string>& extra_args) {
  std::vector<std::string> args = {
      self_exe, "local", "serve", "--state-dir", paths.state_dir, "--port", std::to_string(port)};
  args.insert(args.end(), extra_args.begin(), extra_args.end());
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  ::unlink(paths.port_file.c_str());
  const pid_t child = ::fork();
  if (child < 0)
    return make_error(ErrorCode::io, std::string("starting the server: ") + std::strerror(errno));
  if (child == 0) {
    ::setsid();
    const int in = ::open("/dev/null", O_RDONLY);
    const int log = ::open(paths.log_file.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0600);
    ::dup2(in, 0);
    ::dup2(log, 1);
    ::dup2(log, 2);
    for (int fd = 3; fd < 1024; ++fd) ::close(fd);  // bats and shells wait on inherited descriptors
    ::execv(self_exe.c_str(), argv.data());
    ::_exit(127);
  }
  auto ca = util::read_file(paths.ca_file);
  if (!ca) return ca.error().context("reading '" + paths.ca_file + "'");
  auto token = util::read_file(paths.token_file);
  if (!token) return token.error().context("reading '" + paths.token_file + "'");
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  Error last = make_error(ErrorCode::timeout,
                          "the server did not start within " + std::to_string(timeout.count() / 1000) + "s");
  while (std::chrono::steady_clock::now() < deadline) {
    int status = 0;
    if (::waitpid(child, &status, WNOHANG) == child) {
      return make_error(ErrorCode::io, "the server exited during start-up (see '" + paths.log_file + "')");
    }
    const int bound = read_int_file(paths.port_file);
    if (bound > 0) {
      auto ok = probe(bound, *ca, *token);
      if (ok) return bound;
      last = ok.error();
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return last.context("waiting for the local server");
}

Expected<void> stop_local(const LocalPaths& paths, std::chrono::milliseconds timeout) {
  const auto s = local_status(paths);
  if (!process_alive(s.pid)) {
    ::unlink(paths.pid_file.c_str());
    ::unlink(paths.port_file.c_str());
    return {};
  }
  if (::kill(s.pid, SIGTERM) != 0) {
    return make_error(ErrorCode::io, "stopping pid " + std::to_string(s.pid) + ": " + std::strerror(errno));
  }
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (std::chrono::steady_clock::now() < deadline) {
    // When this process started the server (run --local), it must reap it, or the exited
    // server stays a zombie that kill(pid, 0) still finds. For anyone else's child this is a no-op.
    (void)::waitpid(s.pid, nullptr, WNOHANG);
    if (!process_alive(s.pid)) {
      ::unlink(paths.pid_file.c_str());
      ::unlink(paths.port_file.c_str());
      return {};
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return make_error(ErrorCode::timeout, "the server (pid " + std::to_string(s.pid) +
                                            ") did not stop within " +
                                            std::to_string(timeout.count() / 1000) + "s");
}

int serve_foreground(const LocalPaths& paths, int port) {
  // Block the stop signals before any thread starts, so only sigwait() sees them.
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGTERM);
  sigaddset(&set, SIGINT);
  pthread_sigmask(SIG_BLOCK, &set, nullptr);

  ServerOptions opts;
  auto ca = util::read_file(paths.ca_file);
  auto cert = util::read_file(paths.cert_file);
  auto key = util::read_file(paths.key_file);
  auto token = util::read_file(paths.token_file);
  if (!ca || !cert || !key || !token) {
    std::cerr << "error: the state directory '" << paths.state_dir << "' lacks certificates or token\n";
    return 2;
  }
  opts.certificates = ServerCertificates{*ca, {}, *cert, *key};
  opts.token = *token;
  opts.access_log = [](const std::string& line) { std::cerr << line << "\n"; };
  ApiServer server(opts);
  auto bound = server.start(port);
  if (!bound) {
    std::cerr << "error: " << bound.error().message << "\n";
    return 2;
  }
  (void)write_private(paths.pid_file, std::to_string(::getpid()) + "\n", 0644);
  (void)write_private(paths.port_file, std::to_string(*bound) + "\n", 0644);
  std::cerr << "serving on " << server.url() << "\n";
  int sig = 0;
  sigwait(&set, &sig);
  std::cerr << "stopping on signal " << sig << "\n";
  server.stop();
  ::unlink(paths.port_file.c_str());
  ::unlink(paths.pid_file.c_str());
  return 0;
}

}  // namespace kpt::apiserver
