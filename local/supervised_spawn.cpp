#include "local/supervised_spawn.hpp"

#include "local/process_runner.hpp"

#include <fcntl.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace kpt::local {

std::string describe_supervisor_failure(const SupervisorReport& report, const std::string& command,
                                        const std::string& workdir) {
  const std::string why = std::strerror(report.error);
  switch (report.value) {
    case SupervisorReport::exec:
      return describe_start_error(command, workdir, report.error);
    case SupervisorReport::workdir:
      return "chdir to working directory '" + workdir + "': " + why;
    case SupervisorReport::isolation:
      return "entering the pod's namespaces: " + why;
    case SupervisorReport::limits:
      return "setting resource limits: " + why;
    case SupervisorReport::identity:
      return "switching to the pod's user and capabilities: " + why;
    default:
      return "starting the container: " + why;
  }
}

Expected<Spawned> spawn_supervised(const SpawnRequest& request) {
  if (request.argv.empty()) return make_error(ErrorCode::usage, "no command to run");
  // Everything the child needs is made here, before fork.
  std::vector<char*> argv = exec_array(request.argv);
  std::vector<char*> envp = exec_array(request.env);
  const ContainerSecurity& sec = request.security;
  std::vector<RlimitSetting> limits;
  if (sec.memory_limit) limits.push_back({RLIMIT_DATA, *sec.memory_limit});
  const std::vector<gid_t> groups(sec.groups.begin(), sec.groups.end());
  const std::string uid_map = std::to_string(::getuid()) + " " + std::to_string(::getuid()) + " 1\n";
  const std::string gid_map = std::to_string(::getgid()) + " " + std::to_string(::getgid()) + " 1\n";

  SupervisorPlan plan;
  plan.argv = argv.data();
  plan.envp = envp.data();
  plan.workdir = request.workdir.empty() ? nullptr : request.workdir.c_str();
  for (int i = 0; i < 3; ++i) plan.std_fds[i] = request.std_fds[i];
  plan.tty_path = request.tty_path.empty() ? nullptr : request.tty_path.c_str();
  plan.ns = request.ns;
  plan.ns.uid_map = uid_map.c_str();
  plan.ns.gid_map = gid_map.c_str();
  plan.limits = limits.data();
  plan.limit_count = limits.size();
  plan.set_identity = sec.set_identity;
  plan.uid = sec.uid;
  plan.gid = sec.gid;
  plan.groups = groups.data();
  plan.group_count = groups.size();
  plan.no_new_privs = sec.no_new_privs;
  plan.drop_caps = sec.drop_capabilities.data();
  plan.drop_cap_count = sec.drop_capabilities.size();
  plan.node_pid = ::getpid();

  int report[2];
  if (::pipe2(report, O_CLOEXEC) != 0)
    return make_error(ErrorCode::io, std::string("pipe: ") + std::strerror(errno));
  plan.report_fd = report[1];
  const pid_t pid = ::fork();
  if (pid < 0) {
    const int err = errno;
    ::close(report[0]);
    ::close(report[1]);
    return make_error(ErrorCode::io, std::string("fork: ") + std::strerror(err));
  }
  if (pid == 0) run_supervisor(plan);
  ::close(report[1]);
  Spawned out;
  out.pid = pid;
  // End-of-file once the command exec'd: every copy of the write end is closed by then.
  for (;;) {
    SupervisorReport r;
    const ssize_t n = ::read(report[0], &r, sizeof r);
    if (n < 0 && errno == EINTR) continue;
    if (n != static_cast<ssize_t>(sizeof r)) break;
    if (r.kind == SupervisorReport::child_pid) out.inner_pid = r.value;
    if (r.kind == SupervisorReport::failed && !out.start_error)
      out.start_error = describe_supervisor_failure(r, request.argv.front(), request.workdir);
  }
  ::close(report[0]);
  return out;
}

}  // namespace kpt::local
