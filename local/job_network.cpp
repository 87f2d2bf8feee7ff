#include "local/job_network.hpp"

#include "local/fork_safe.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <net/if.h>
#include <netinet/in.h>
#include <sched.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstring>

namespace kpt::local {

namespace {

/// What the helper sends back with its descriptors.
struct HelperResult {
  std::int32_t step = 0;  ///< 0: done; else the Step that failed
  std::int32_t error = 0;
  std::int32_t has_user = 0;
  std::int32_t listeners = 0;  ///< one per relayed port, in order
};

enum Step : std::int32_t { k_unshare = 1, k_maps, k_loopback, k_listener, k_open_ns };

const char* step_text(std::int32_t step) {
  switch (step) {
    case k_unshare:
      return "creating the namespaces";
    case k_maps:
      return "mapping the user";
    case k_loopback:
      return "bringing loopback up";
    case k_listener:
      return "listening on the API server's port";
    case k_open_ns:
      return "opening the namespaces";
    default:
      return "setting up";
  }
}

/// The helper, a child of the node: enters fresh namespaces, sets them up and sends their
/// descriptors back. Async-signal-safe only (it runs after fork in a threaded process).
[[noreturn]] void run_helper(int sock, bool user, const char* uid_map, const char* gid_map, const int* ports,
                             int nports, pid_t node) {
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (::getppid() != node) ::_exit(1);
  int keep[] = {sock};
  fork_safe::close_all_but(keep, 1);
  HelperResult result;
  int fds[2 + JobNetwork::k_max_relayed];
  int nfds = 0;
  const auto send_back = [&]() {
    msghdr msg{};
    iovec iov{&result, sizeof result};
    msg.msg_iov = &iov;
    msg.msg_iovlen = 1;
    alignas(cmsghdr) char control[CMSG_SPACE(sizeof fds)];
    if (result.step == 0 && nfds > 0) {
      msg.msg_control = control;
      msg.msg_controllen = CMSG_SPACE(sizeof(int) * static_cast<std::size_t>(nfds));
      cmsghdr* c = CMSG_FIRSTHDR(&msg);
      c->cmsg_level = SOL_SOCKET;
      c->cmsg_type = SCM_RIGHTS;
      c->cmsg_len = CMSG_LEN(sizeof(int) * static_cast<std::size_t>(nfds));
      std::memcpy(CMSG_DATA(c), fds, sizeof(int) * static_cast<std::size_t>(nfds));
    }
    (void)::sendmsg(sock, &msg, MSG_NOSIGNAL);
    ::_exit(result.step == 0 ? 0 : 1);
  };
  const auto failed = [&](Step step) {
    result.step = step;
    result.error = errno;
    send_back();
  };
  if (::unshare(user ? CLONE_NEWUSER | CLONE_NEWNET : CLONE_NEWNET) != 0) failed(k_unshare);
  if (user && (!fork_safe::write_text("/proc/self/setgroups", "deny") ||
               !fork_safe::write_text("/proc/self/uid_map", uid_map) ||
               !fork_safe::write_text("/proc/self/gid_map", gid_map)))
    failed(k_maps);
  const int s = ::socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  ifreq ifr{};
  std::memcpy(ifr.ifr_name, "lo", 3);
  if (s < 0 || ::ioctl(s, SIOCGIFFLAGS, &ifr) != 0) failed(k_loopback);
  ifr.ifr_flags = static_cast<short>(ifr.ifr_flags | IFF_UP);
  if (::ioctl(s, SIOCSIFFLAGS, &ifr) != 0) failed(k_loopback);
  ::close(s);
  if (user) {
    fds[nfds] = ::open("/proc/self/ns/user", O_RDONLY | O_CLOEXEC);
    if (fds[nfds++] < 0) failed(k_open_ns);
    result.has_user = 1;
  }
  fds[nfds] = ::open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
  if (fds[nfds++] < 0) failed(k_open_ns);
  for (int p = 0; p < nports; ++p) {
    const int l = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    const int on = 1;
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(static_cast<std::uint16_t>(ports[p]));
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (l < 0 || ::setsockopt(l, SOL_SOCKET, SO_REUSEADDR, &on, sizeof on) != 0 ||
        ::bind(l, reinterpret_cast<const sockaddr*>(&addr), sizeof addr) != 0 || ::listen(l, 128) != 0)
      failed(k_listener);
    fds[nfds++] = l;
    ++result.listeners;
  }
  send_back();
  ::_exit(0);
}

void close_fd(int fd) {
  if (fd >= 0) ::close(fd);
}

/// Whether a PID namespace can be made inside `network` (joined first): what each pod does.
Expected<void> try_pid_namespace(const JobNetwork& network) {
  const pid_t node = ::getpid();
  const pid_t pid = ::fork();
  if (pid < 0) return make_error(ErrorCode::io, std::string("fork: ") + std::strerror(errno));
  if (pid == 0) {
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != node) ::_exit(1);
    if (network.user_fd() >= 0 && ::setns(network.user_fd(), CLONE_NEWUSER) != 0) ::_exit(2);
    if (::setns(network.net_fd(), CLONE_NEWNET) != 0) ::_exit(3);
    if (::unshare(CLONE_NEWPID) != 0) ::_exit(4);
    const pid_t init = ::fork();
    if (init < 0) ::_exit(5);
    if (init == 0) ::_exit(::getpid() == 1 ? 0 : 6);
    int status = 0;
    ::waitpid(init, &status, 0);
    ::_exit(WIFEXITED(status) ? WEXITSTATUS(status) : 7);
  }
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return {};
  static const char* const steps[] = {"",
                                      "",
                                      "joining the user namespace",
                                      "joining the network namespace",
                                      "creating a PID namespace",
                                      "starting its init",
                                      "starting its init",
                                      "starting its init"};
  const int code = WIFEXITED(status) ? WEXITSTATUS(status) : 7;
  return make_error(ErrorCode::io, std::string(steps[code >= 2 && code <= 7 ? code : 7]) + " failed");
}

Expected<void> try_isolation(bool user) {
  auto network = JobNetwork::create(user, {});
  if (!network) return network.error();
  return try_pid_namespace(**network);
}

}  // namespace

std::string identity_map(unsigned id) { return std::to_string(id) + " " + std::to_string(id) + " 1\n"; }

Expected<std::unique_ptr<JobNetwork>> JobNetwork::create(bool user_namespace,
                                                         std::vector<int> relayed_ports) {
  std::erase(relayed_ports, 0);
  if (relayed_ports.size() > static_cast<std::size_t>(k_max_relayed)) relayed_ports.resize(k_max_relayed);
  const std::string uid_map = identity_map(::getuid());
  const std::string gid_map = identity_map(::getgid());
  int sv[2];
  if (::socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) != 0)
    return make_error(ErrorCode::io, std::string("socketpair: ") + std::strerror(errno));
  const pid_t node = ::getpid();
  const pid_t pid = ::fork();
  if (pid < 0) {
    const int err = errno;
    close_fd(sv[0]);
    close_fd(sv[1]);
    return make_error(ErrorCode::io, std::string("fork: ") + std::strerror(err));
  }
  if (pid == 0)
    run_helper(sv[1], user_namespace, uid_map.c_str(), gid_map.c_str(), relayed_ports.data(),
               static_cast<int>(relayed_ports.size()), node);
  close_fd(sv[1]);
  HelperResult result;
  int fds[2 + k_max_relayed] = {-1, -1, -1, -1, -1, -1};
  msghdr msg{};
  iovec iov{&result, sizeof result};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  alignas(cmsghdr) char control[CMSG_SPACE(sizeof fds)];
  msg.msg_control = control;
  msg.msg_controllen = sizeof control;
  ssize_t n;
  do {
    n = ::recvmsg(sv[0], &msg, MSG_CMSG_CLOEXEC);
  } while (n < 0 && errno == EINTR);
  const int recv_errno = errno;
  close_fd(sv[0]);
  while (::waitpid(pid, nullptr, 0) < 0 && errno == EINTR) {
  }
  int count = 0;
  for (cmsghdr* c = CMSG_FIRSTHDR(&msg); n > 0 && c != nullptr; c = CMSG_NXTHDR(&msg, c)) {
    if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS) continue;
    count = static_cast<int>((c->cmsg_len - CMSG_LEN(0)) / sizeof(int));
    std::memcpy(fds, CMSG_DATA(c),
                sizeof(int) * static_cast<std::size_t>(std::min(count, 2 + k_max_relayed)));
  }
  if (n != static_cast<ssize_t>(sizeof result) || result.step != 0) {
    for (const int fd : fds) close_fd(fd);
    if (n != static_cast<ssize_t>(sizeof result))
      return make_error(ErrorCode::io, std::string("setting up a job network: ") +
                                           (n < 0 ? std::strerror(recv_errno) : "the helper ended early"));
    return make_error(ErrorCode::io,
                      std::string(step_text(result.step)) + ": " + std::strerror(result.error));
  }
  int i = 0;
  const int user = result.has_user != 0 ? fds[i++] : -1;
  const int net = fds[i++];
  std::vector<Listener> listeners;
  for (int l = 0; l < result.listeners && i < count; ++l) listeners.push_back({fds[i++], relayed_ports[l]});
  return std::unique_ptr<JobNetwork>(new JobNetwork(user, net, std::move(listeners)));
}

JobNetwork::~JobNetwork() {
  close_fd(m_user);
  close_fd(m_net);
  for (const auto& l : m_listeners) close_fd(l.fd);
}

IsolationSupport probe_isolation() {
  IsolationSupport support;
  if (::geteuid() == 0) {
    if (auto ok = try_isolation(false)) {
      support.namespaces = true;
      return support;
    }
  }
  auto ok = try_isolation(true);
  support.namespaces = static_cast<bool>(ok);
  support.user_namespace = support.namespaces;
  if (!ok) support.unavailable = ok.error().message;
  return support;
}

}  // namespace kpt::local
