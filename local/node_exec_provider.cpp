#include "local/node_exec_provider.hpp"

#include "local/exec_process.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace kpt::local {

namespace {

/// The descriptors of the namespaces an exec enters, closed when it has started.
struct JoinedNamespaces {
  int fds[3] = {-1, -1, -1};
  ~JoinedNamespaces() {
    for (const int fd : fds)
      if (fd >= 0) ::close(fd);
  }
};

Expected<int> open_namespace(int pid, const char* name) {
  const std::string path = "/proc/" + std::to_string(pid) + "/ns/" + name;
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return make_error(ErrorCode::io, "opening '" + path + "': " + std::strerror(errno));
  return fd;
}

}  // namespace

std::optional<Error> NodeExecProvider::check(const apiserver::ExecRequest& request,
                                             const nlohmann::json& /*pod*/) {
  auto launch = m_node.running_container(request.ns, request.pod, request.container);
  if (!launch) return apiserver::bad_request(launch.error().message);
  return std::nullopt;
}

std::unique_ptr<apiserver::ExecProcess> NodeExecProvider::start(const apiserver::ExecRequest& request,
                                                                const nlohmann::json& /*pod*/,
                                                                apiserver::ExecStartError& error) {
  auto target = m_node.exec_target(request.ns, request.pod, request.container);
  if (!target) {
    error.message = target.error().message;
    return nullptr;
  }
  ExecSpec spec;
  spec.argv = request.command;
  spec.env = target->launch.env;
  spec.workdir = target->launch.workdir;
  spec.with_stdin = request.with_stdin;
  spec.tty = request.tty;
  spec.security = target->launch.security;
  // The command joins the container's namespaces through its supervisor's: its PID namespace's
  // children are the container's, so the command ends with the pod.
  JoinedNamespaces joined;
  const std::pair<bool, const char*> wanted[] = {
      {target->join_user, "user"}, {target->join_network, "net"}, {target->join_pid, "pid_for_children"}};
  for (std::size_t i = 0; i < 3; ++i) {
    if (!wanted[i].first) continue;
    auto fd = open_namespace(target->supervisor_pid, wanted[i].second);
    if (!fd) {
      error.message = fd.error().message;
      return nullptr;
    }
    joined.fds[i] = *fd;
  }
  spec.ns.user_fd = joined.fds[0];
  spec.ns.net_fd = joined.fds[1];
  spec.ns.pid_fd = joined.fds[2];
  int pid = 0;
  auto process = start_exec_process(spec, error.message, &pid);
  if (process) m_node.track_exec(request.ns, request.pod, pid);
  return process;
}

}  // namespace kpt::local
