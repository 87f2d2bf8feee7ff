#include "local/cluster_lifecycle.hpp"

#include "kube/rest_client.hpp"
#include "util/file_io.hpp"

#include <httplib.h>
#include <openssl/pem.h>

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/auxv.h>
#include <sys/file.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <thread>

namespace kpt::local {

namespace {

using SteadyClock = std::chrono::steady_clock;

/// How often start-up and shut-down are checked: short, since `local down` and `run --local`
/// wait on it.
constexpr std::chrono::milliseconds k_poll{5};

int read_int_file(const std::string& path) {
  auto text = util::read_file(path, 64);
  if (!text) return 0;
  return std::atoi(text->c_str());
}

/// A zombie is not alive: once `local up` has exited the server is reparented, and in a container
/// whose init reaps late (or never) kill(pid, 0) keeps finding the exited process.
bool process_alive(int pid) {
  if (pid <= 0 || (::kill(pid, 0) != 0 && errno != EPERM)) return false;
  const auto stat = util::read_file("/proc/" + std::to_string(pid) + "/stat", 4096);
  if (!stat) return true;               // no procfs: trust kill()
  const auto paren = stat->rfind(')');  // the command name may hold spaces and parentheses
  return paren == std::string::npos || paren + 2 >= stat->size() ||
         ((*stat)[paren + 2] != 'Z' && (*stat)[paren + 2] != 'X');
}

/// Whether some process holds the lock file (a shared probe fails against its exclusive lock).
bool lock_held(const std::string& lock_file) {
  const int fd = ::open(lock_file.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  const bool held = ::flock(fd, LOCK_SH | LOCK_NB) != 0 && errno == EWOULDBLOCK;
  ::close(fd);  // also releases the probe's own shared lock
  return held;
}

std::string seconds_text(std::chrono::milliseconds d) { return std::to_string(d.count() / 1000) + "s"; }

}  // namespace

std::string self_executable(unsigned long interpreter_base, const std::string& argv0) {
  if (interpreter_base == 0 && !argv0.empty()) return argv0;
  return "/proc/self/exe";
}

std::string running_executable() {
  // glibc's program_invocation_name is main's argv[0], after the loader applied --argv0.
  return self_executable(::getauxval(AT_BASE),
                         program_invocation_name != nullptr ? program_invocation_name : "");
}

ClusterLifecycle::ClusterLifecycle(ClusterPaths paths, LifecycleOptions options)
    : m_paths(std::move(paths)), m_options(std::move(options)) {}

ClusterStatus ClusterLifecycle::status() const {
  ClusterStatus s;
  if (!lock_held(m_paths.lock_file)) return s;
  s.pid = read_int_file(m_paths.pid_file);
  s.port = read_int_file(m_paths.port_file);
  s.state = s.port > 0 ? ClusterStatus::State::running : ClusterStatus::State::starting;
  return s;
}

Expected<void> ClusterLifecycle::probe(int port) const {
  auto ca_pem = util::read_file(m_paths.ca_file);
  if (!ca_pem) return ca_pem.error().context("reading '" + m_paths.ca_file + "'");
  auto token = read_token(m_paths);
  if (!token) return token.error();
  httplib::SSLClient cli("127.0.0.1", port);
  BIO* bio = BIO_new_mem_buf(ca_pem->data(), static_cast<int>(ca_pem->size()));
  X509* ca = PEM_read_bio_X509(bio, nullptr, nullptr, nullptr);
  BIO_free(bio);
  if (ca == nullptr) return make_error(ErrorCode::config, "the local CA certificate does not parse");
  X509_STORE* store = X509_STORE_new();
  X509_STORE_add_cert(store, ca);
  X509_free(ca);
  cli.set_ca_cert_store(store);  // the client owns the store from here
  cli.enable_server_certificate_verification(true);
  cli.set_connection_timeout(std::chrono::seconds(2));
  cli.set_read_timeout(m_options.probe_timeout);
  auto res = cli.Get("/version", {{"Authorization", "Bearer " + *token}});
  if (!res) {
    return make_error(ErrorCode::http, "connecting to 127.0.0.1:" + std::to_string(port) + ": " +
                                           httplib::to_string(res.error()));
  }
  if (res->status != 200) {
    return make_error(ErrorCode::http, "GET /version answered HTTP " + std::to_string(res->status));
  }
  return {};
}

Expected<UpResult> ClusterLifecycle::ensure_up() const {
  auto s = wait_while_starting(status());
  if (s.running()) {
    if (probe(s.port)) return UpResult{s.pid, s.port, false};
    // It holds the lock, so it is ours, but it does not answer: a wedged server. It cannot
    // be asked to stop, and a second server must not share its state.
    if (s.pid > 0) ::kill(s.pid, SIGKILL);
    if (auto gone = wait_exit(s.pid, m_options.stop_timeout); !gone) return gone.error();
  }
  if (auto prepared = prepare_state(m_paths); !prepared) return prepared.error();
  remove_stale_files();
  auto child = spawn();
  if (!child) return child.error();
  return wait_ready(*child);
}

ClusterStatus ClusterLifecycle::wait_while_starting(ClusterStatus s) const {
  const auto deadline = SteadyClock::now() + m_options.start_timeout;
  while (s.state == ClusterStatus::State::starting && SteadyClock::now() < deadline) {
    std::this_thread::sleep_for(k_poll);
    s = status();
  }
  return s;
}

Expected<int> ClusterLifecycle::spawn() const {
  std::vector<std::string> args = {m_options.self_exe,
                                   "local",
                                   "serve",
                                   "--state-dir",
                                   m_paths.state_dir,
                                   "--port",
                                   std::to_string(m_options.port)};
  if (m_options.server_only) args.emplace_back("--server-only");
  if (m_options.watch_history > 0) {
    args.emplace_back("--watch-history");
    args.push_back(std::to_string(m_options.watch_history));
  }
  if (!m_options.pod_network.empty()) {
    args.emplace_back("--pod-network");
    args.push_back(m_options.pod_network);
  }
  if (m_options.event_ttl.count() > 0) {
    args.emplace_back("--event-ttl");
    args.push_back(std::to_string(m_options.event_ttl.count()) + "s");
  }
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  const pid_t child = ::fork();
  if (child < 0) {
    return make_error(ErrorCode::io, std::string("starting the server: ") + std::strerror(errno));
  }
  if (child == 0) {
    ::setsid();
    const int in = ::open("/dev/null", O_RDONLY);
    const int log = ::open(m_paths.log_file.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0600);
    ::dup2(in, 0);
    ::dup2(log, 1);
    ::dup2(log, 2);
    for (int fd = 3; fd < 1024; ++fd) ::close(fd);  // bats and shells wait on inherited descriptors
    ::execv(m_options.self_exe.c_str(), argv.data());
    ::_exit(127);
  }
  return static_cast<int>(child);
}

Expected<UpResult> ClusterLifecycle::wait_ready(int child) const {
  const auto deadline = SteadyClock::now() + m_options.start_timeout;
  Error last = make_error(ErrorCode::timeout,
                          "the server did not start within " + seconds_text(m_options.start_timeout));
  while (SteadyClock::now() < deadline) {
    int wstatus = 0;
    if (::waitpid(child, &wstatus, WNOHANG) == child) {
      return make_error(ErrorCode::io, "the server exited during start-up (see '" + m_paths.log_file + "')");
    }
    if (const auto s = status(); s.running()) {
      auto ok = probe(s.port);
      if (ok) return UpResult{s.pid > 0 ? s.pid : child, s.port, true};
      last = ok.error();
    }
    std::this_thread::sleep_for(k_poll);
  }
  return last.context("waiting for the local server");
}

Expected<StopResult> ClusterLifecycle::stop(const StopOptions& options) const {
  const auto s = status();
  if (s.state == ClusterStatus::State::stopped) {
    remove_stale_files();
    return StopResult{};
  }
  auto pods_grace = options.pods_grace;
  if (options.grace) {
    pods_grace = std::min(pods_grace, *options.grace);
    if (auto w = write_private(m_paths.stop_grace_file, std::to_string(options.grace->count()) + "\n"); !w)
      return w.error();
  }
  if (s.pid <= 0 || ::kill(s.pid, SIGTERM) != 0) {
    return make_error(ErrorCode::io, "stopping pid " + std::to_string(s.pid) + ": " + std::strerror(errno));
  }
  const auto timeout =
      m_options.stop_timeout + std::chrono::duration_cast<std::chrono::milliseconds>(pods_grace);
  if (auto gone = wait_exit(s.pid, timeout); !gone) return gone.error();
  remove_stale_files();
  return StopResult{true, s.pid};
}

Expected<StopResult> ClusterLifecycle::reset(const StopOptions& options) const {
  auto stopped = stop(options);
  if (!stopped) return stopped.error();
  std::error_code ec;
  for (const auto& file : {m_paths.database_file, m_paths.database_file + "-wal",
                           m_paths.database_file + "-shm", m_paths.hosts_file, m_paths.ledger_file}) {
    if (std::filesystem::remove(file, ec); ec) {
      return make_error(ErrorCode::io, "removing '" + file + "': " + ec.message());
    }
  }
  if (std::filesystem::remove_all(m_paths.pod_log_dir, ec); ec) {
    return make_error(ErrorCode::io, "removing '" + m_paths.pod_log_dir + "': " + ec.message());
  }
  return stopped;
}

Expected<void> ClusterLifecycle::wait_exit(int pid, std::chrono::milliseconds timeout) const {
  const auto deadline = SteadyClock::now() + timeout;
  while (SteadyClock::now() < deadline) {
    // When this process started the server (run --local), it must reap it, or the exited
    // server stays a zombie that kill(pid, 0) still finds. For anyone else's child this is a no-op.
    (void)::waitpid(pid, nullptr, WNOHANG);
    if (!lock_held(m_paths.lock_file) && !process_alive(pid)) {
      // It may have become a zombie only after the reap above: reap it now, or a caller that
      // checks kill(pid, 0) right after stop() still finds it.
      (void)::waitpid(pid, nullptr, WNOHANG);
      return {};
    }
    std::this_thread::sleep_for(k_poll);
  }
  return make_error(ErrorCode::timeout, "the server (pid " + std::to_string(pid) + ") did not stop within " +
                                            seconds_text(timeout));
}

void ClusterLifecycle::remove_stale_files() const {
  ::unlink(m_paths.pid_file.c_str());
  ::unlink(m_paths.port_file.c_str());
}

Expected<std::unique_ptr<kube::ApiClient>> ClusterLifecycle::client() const {
  const auto s = status();
  if (!s.running()) return make_error(ErrorCode::not_found, "the local cluster is not running");
  auto token = read_token(m_paths);
  if (!token) return token.error();
  return client_for(m_paths, s.port, *token);
}

Expected<void> ClusterLifecycle::write_kubeconfig(const std::string& path, int port) const {
  auto ca = util::read_file(m_paths.ca_file);
  if (!ca) return ca.error().context("reading '" + m_paths.ca_file + "'");
  auto token = read_token(m_paths);
  if (!token) return token.error();
  return local::write_kubeconfig(path, "https://127.0.0.1:" + std::to_string(port), *ca, *token);
}

Expected<ServeLock> ServeLock::acquire(const ClusterPaths& paths) {
  const int fd = ::open(paths.lock_file.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
  if (fd < 0) {
    return make_error(ErrorCode::io, "opening '" + paths.lock_file + "': " + std::strerror(errno));
  }
  // A status() probe holds a shared lock for a moment: retry briefly before calling it taken.
  for (int attempt = 0; attempt < 100; ++attempt) {
    if (::flock(fd, LOCK_EX | LOCK_NB) == 0) {
      ServeLock lock(fd);
      if (auto w = write_private(paths.pid_file, std::to_string(::getpid()) + "\n", 0644); !w)
        return w.error();
      return lock;
    }
    if (errno != EWOULDBLOCK) break;
    std::this_thread::sleep_for(k_poll);
  }
  ::close(fd);
  return make_error(ErrorCode::usage, "another server (pid " + std::to_string(read_int_file(paths.pid_file)) +
                                          ") serves the state directory '" + paths.state_dir + "'");
}

ServeLock::ServeLock(ServeLock&& other) noexcept : m_fd(other.m_fd) { other.m_fd = -1; }

ServeLock::~ServeLock() {
  if (m_fd >= 0) ::close(m_fd);
}

Expected<std::unique_ptr<kube::ApiClient>> client_for(const ClusterPaths& paths, int port,
                                                      const std::string& token) {
  // kube::ConnectionFlags carries the token only in memory; it never reaches a log.
  kube::ConnectionFlags flags;
  flags.server = "https://127.0.0.1:" + std::to_string(port);
  flags.token = token;
  flags.certificate_authority = paths.ca_file;
  flags.namespace_ = "default";
  // No kubeconfig is consulted: an empty environment has no KUBECONFIG and no HOME.
  return kube::make_client(flags, {}, {});
}

}  // namespace kpt::local
