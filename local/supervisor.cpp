// Everything here runs between fork() and exec() of a threaded process (the node): only
// async-signal-safe calls, no allocation, no locks, no C++ library facilities that might take one.
#include "local/supervisor.hpp"

#include "local/fork_safe.hpp"

#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <sched.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <initializer_list>

extern char** environ;

namespace kpt::local {

namespace {

void report(int fd, std::int32_t kind, std::int32_t value, std::int32_t error) {
  if (fd < 0) return;
  const SupervisorReport r{kind, value, error};
  (void)!::write(fd, &r, sizeof r);  // smaller than PIPE_BUF: one atomic write
}

[[noreturn]] void fail(int report_fd, SupervisorReport::Stage stage) {
  report(report_fd, SupervisorReport::failed, stage, errno);
  ::_exit(127);
}

void sleep_ms(long ms) {
  timespec ts{0, ms * 1'000'000L};
  ::nanosleep(&ts, nullptr);
}

/// The parent pid in a /proc/<pid>/stat text ("pid (comm) state ppid ..."), or -1.
long ppid_in_stat(const char* text, ssize_t n) {
  ssize_t close = -1;
  for (ssize_t i = 0; i < n; ++i)
    if (text[i] == ')') close = i;  // the command name may hold ')' itself: take the last
  if (close < 0 || close + 4 >= n) return -1;
  long ppid = 0;
  ssize_t i = close + 4;  // ") S " then the ppid
  if (text[i] < '0' || text[i] > '9') return -1;
  for (; i < n && text[i] >= '0' && text[i] <= '9'; ++i) ppid = ppid * 10 + (text[i] - '0');
  return ppid;
}

/// Sends SIGKILL to every child of this process (found in /proc); true when there was one.
bool kill_children() {
  const pid_t self = ::getpid();
  const int dir = ::open("/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir < 0) return false;
  bool any = false;
  alignas(8) char buf[4096];
  for (;;) {
    const long n = ::syscall(SYS_getdents64, dir, buf, sizeof buf);
    if (n <= 0) break;
    for (long off = 0; off < n;) {
      // struct linux_dirent64: u64 ino, s64 off, u16 reclen, u8 type, char name[]
      unsigned short reclen = 0;
      std::memcpy(&reclen, buf + off + 16, sizeof reclen);
      const char* name = buf + off + 19;
      off += reclen;
      if (name[0] < '1' || name[0] > '9') continue;
      char path[64] = "/proc/";
      std::size_t len = std::strlen(name);
      if (len > 20) continue;
      std::memcpy(path + 6, name, len);
      std::memcpy(path + 6 + len, "/stat", 6);
      const int fd = ::open(path, O_RDONLY | O_CLOEXEC);
      if (fd < 0) continue;
      char stat[512];
      const ssize_t got = ::read(fd, stat, sizeof stat);
      ::close(fd);
      if (ppid_in_stat(stat, got) != self) continue;
      long pid = 0;
      for (std::size_t i = 0; i < len; ++i) pid = pid * 10 + (name[i] - '0');
      ::kill(static_cast<pid_t>(pid), SIGKILL);
      any = true;
    }
  }
  ::close(dir);
  return any;
}

/// Ends every descendant: as child subreaper, this process inherits the orphans of its
/// descendants, so killing and reaping its children until none is left reaches the whole tree,
/// setsid'd and double-forked processes included.
void end_descendants() {
  for (int round = 0; round < 5000; ++round) {
    kill_children();
    int status = 0;
    pid_t r = 0;
    while ((r = ::waitpid(-1, &status, WNOHANG)) > 0) {
    }
    if (r < 0 && errno == ECHILD) return;
    sleep_ms(2);  // killed ones are still exiting, or new orphans are being re-parented
  }
}

/// Ends this process the way `status` says the command ended: the same exit code, or death by
/// the same signal (without a core dump), so the node reads the command's own status.
[[noreturn]] void exit_like(int status) {
  if (WIFSIGNALED(status)) {
    const int sig = WTERMSIG(status);
    struct sigaction dfl {};
    dfl.sa_handler = SIG_DFL;
    ::sigaction(sig, &dfl, nullptr);
    const rlimit no_core{0, 0};
    ::setrlimit(RLIMIT_CORE, &no_core);
    sigset_t only;
    sigemptyset(&only);
    sigaddset(&only, sig);
    ::kill(::getpid(), sig);
    ::sigprocmask(SIG_UNBLOCK, &only, nullptr);
    ::_exit(128 + sig);
  }
  ::_exit(WIFEXITED(status) ? WEXITSTATUS(status) : 1);
}

enum class Role {
  supervisor_of_init,     ///< the child is the pod's init, in another PID namespace
  supervisor_of_command,  ///< the child is the command; this process is its child subreaper
  init,                   ///< PID 1 of the pod's PID namespace; the child is the command
};

/// Waits for `child`, passing signals on; returns its wait status. k_kill_all_signal ends
/// everything only when `node` sent it (or the kernel did for it, as the node's death signal):
/// from anyone else, the command's own processes included, it is passed on like any other.
int wait_passing_signals(pid_t child, Role role, pid_t node) {
  sigset_t all;
  sigfillset(&all);
  for (;;) {
    siginfo_t info;
    const int sig = ::sigwaitinfo(&all, &info);
    if (sig < 0) continue;
    if (sig == SIGCHLD) {
      int status = 0;
      pid_t r = 0;
      while ((r = ::waitpid(-1, &status, WNOHANG)) > 0) {
        if (r == child) return status;
      }
      continue;
    }
    const bool kill_all = sig == k_kill_all_signal && info.si_pid == node && role != Role::init;
    if (role == Role::supervisor_of_init) {
      // The init passes signals on to the command's group; killing it ends the namespace.
      ::kill(child, kill_all ? SIGKILL : sig);
    } else if (kill_all) {
      ::kill(-child, SIGKILL);
      ::kill(child, SIGKILL);
      kill_children();
    } else if (::kill(-child, sig) != 0) {
      ::kill(child, sig);  // before the command's setsid() its group does not exist yet
    }
  }
}

[[noreturn]] void exec_command(const SupervisorPlan& p, pid_t parent, bool check_parent) {
  if (check_parent) {
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != parent) ::_exit(1);
  }
  ::setsid();
  if (p.tty_path != nullptr) {
    const int tty = ::open(p.tty_path, O_RDWR);
    if (tty >= 0) {
      ::ioctl(tty, TIOCSCTTY, 0);
      for (int fd = 0; fd < 3; ++fd) ::dup2(tty, fd);
      if (tty > 2) ::close(tty);
    }
  } else {
    for (int fd = 0; fd < 3; ++fd) {
      const int from =
          p.std_fds[fd] >= 0 ? p.std_fds[fd] : ::open("/dev/null", fd == 0 ? O_RDONLY : O_WRONLY);
      if (from >= 0 && from != fd) ::dup2(from, fd);
    }
  }
  fork_safe::cloexec_from_3();
  if (p.workdir != nullptr && p.workdir[0] != '\0' && ::chdir(p.workdir) != 0)
    fail(p.report_fd, SupervisorReport::workdir);
  for (std::size_t i = 0; i < p.limit_count; ++i) {
    const rlimit lim{p.limits[i].value, p.limits[i].value};
    if (::setrlimit(p.limits[i].resource, &lim) != 0) fail(p.report_fd, SupervisorReport::limits);
  }
  for (std::size_t i = 0; i < p.drop_cap_count; ++i) {
    if (::prctl(PR_CAPBSET_DROP, p.drop_caps[i], 0, 0, 0) != 0 && errno != EINVAL)
      fail(p.report_fd, SupervisorReport::identity);
  }
  if (p.set_identity) {
    if (::setgroups(p.group_count, p.groups) != 0 || ::setgid(p.gid) != 0 || ::setuid(p.uid) != 0)
      fail(p.report_fd, SupervisorReport::identity);
  }
  if (p.no_new_privs) ::prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
  // A container starts with default dispositions and nothing blocked: exec keeps what is
  // ignored (the node ignores SIGPIPE) and the mask (the node blocks SIGTERM and SIGINT).
  for (int sig = 1; sig < NSIG; ++sig) {
    struct sigaction dfl {};
    dfl.sa_handler = SIG_DFL;
    ::sigaction(sig, &dfl, nullptr);  // SIGKILL, SIGSTOP and libc's own fail harmlessly
  }
  sigset_t none;
  sigemptyset(&none);
  ::sigprocmask(SIG_SETMASK, &none, nullptr);
  environ = const_cast<char**>(p.envp);  // execvp looks argv[0] up on the command's own PATH
  ::execvp(p.argv[0], p.argv);
  fail(p.report_fd, SupervisorReport::exec);
}

/// PID 1 of the pod's PID namespace: starts the command, passes signals on to its group,
/// and once it ended, ends every other process of the namespace and hands its status to the
/// supervisor through `result_fd`.
[[noreturn]] void run_init(const SupervisorPlan& p, int result_fd, int alive_fd) {
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  pollfd alive{alive_fd, 0, 0};
  if (::poll(&alive, 1, 0) > 0 && (alive.revents & (POLLHUP | POLLERR)) != 0) ::_exit(1);  // too late
  ::close(alive_fd);
  const pid_t child = ::fork();
  if (child < 0) fail(p.report_fd, SupervisorReport::isolation);
  if (child == 0) {
    ::close(result_fd);
    exec_command(p, 1, false);  // it dies with this init, with the whole namespace
  }
  ::close(p.report_fd);
  for (const int fd : p.std_fds)
    if (fd >= 0) ::close(fd);
  const int status = wait_passing_signals(child, Role::init, 0);
  ::kill(-1, SIGKILL);  // from PID 1: every other process of the namespace
  while (::waitpid(-1, nullptr, 0) > 0 || errno == EINTR) {
  }
  (void)!::write(result_fd, &status, sizeof status);
  ::_exit(0);
}

void enter_namespaces(const SupervisorPlan& p) {
  const NamespacePlan& ns = p.ns;
  if (ns.user_fd >= 0) {
    if (::setns(ns.user_fd, CLONE_NEWUSER) != 0) fail(p.report_fd, SupervisorReport::isolation);
  } else if (ns.new_user) {
    if (::unshare(CLONE_NEWUSER) != 0 || !fork_safe::write_text("/proc/self/setgroups", "deny") ||
        !fork_safe::write_text("/proc/self/uid_map", ns.uid_map) ||
        !fork_safe::write_text("/proc/self/gid_map", ns.gid_map))
      fail(p.report_fd, SupervisorReport::isolation);
  }
  if (ns.net_fd >= 0 && ::setns(ns.net_fd, CLONE_NEWNET) != 0) fail(p.report_fd, SupervisorReport::isolation);
  if (ns.pid_fd >= 0) {
    if (::setns(ns.pid_fd, CLONE_NEWPID) != 0) fail(p.report_fd, SupervisorReport::isolation);
  } else if (ns.new_pid && ::unshare(CLONE_NEWPID) != 0) {
    fail(p.report_fd, SupervisorReport::isolation);
  }
  for (const int fd : {ns.user_fd, ns.net_fd, ns.pid_fd})
    if (fd >= 0) ::close(fd);
}

}  // namespace

void run_supervisor(const SupervisorPlan& p) {
  sigset_t all;
  sigfillset(&all);
  ::sigprocmask(SIG_SETMASK, &all, nullptr);  // signals are taken with sigwaitinfo only
  struct sigaction dfl {};
  dfl.sa_handler = SIG_DFL;
  ::sigaction(SIGCHLD, &dfl, nullptr);  // an ignored SIGCHLD would reap children behind waitpid's back
  // When the node dies, the supervisor is told to end everything of its command (not killed
  // itself: without a PID namespace, only it can still find the command's orphans).
  ::prctl(PR_SET_PDEATHSIG, k_kill_all_signal);
  if (::getppid() != p.node_pid) ::_exit(1);  // the node died before the line above
  ::setsid();  // out of the node's process group: a terminal's ^C reaches the node, not pods
  int keep[] = {p.report_fd,  p.std_fds[0], p.std_fds[1], p.std_fds[2],
                p.ns.user_fd, p.ns.net_fd,  p.ns.pid_fd};
  fork_safe::close_all_but(keep, sizeof keep / sizeof keep[0]);
  enter_namespaces(p);
  const bool init = p.ns.new_pid;
  if (!init) ::prctl(PR_SET_CHILD_SUBREAPER, 1);
  int result[2] = {-1, -1};
  int alive[2] = {-1, -1};
  if (init && (::pipe2(result, O_CLOEXEC) != 0 || ::pipe2(alive, O_CLOEXEC) != 0))
    fail(p.report_fd, SupervisorReport::isolation);
  const pid_t self = ::getpid();
  const pid_t child = ::fork();
  if (child < 0) fail(p.report_fd, SupervisorReport::isolation);
  if (child == 0) {
    if (init) {
      ::close(result[0]);
      ::close(alive[1]);
      run_init(p, result[1], alive[0]);
    }
    // Joined into a pod's PID namespace, the parent is outside it: getppid() says 0.
    exec_command(p, p.ns.pid_fd >= 0 ? 0 : self, true);
  }
  report(p.report_fd, SupervisorReport::child_pid, child, 0);
  ::close(p.report_fd);
  for (const int fd : p.std_fds)
    if (fd >= 0) ::close(fd);
  if (init) {
    ::close(result[1]);
    ::close(alive[0]);
  }
  const int status =
      wait_passing_signals(child, init ? Role::supervisor_of_init : Role::supervisor_of_command, p.node_pid);
  if (init) {
    int inner = 0;
    if (::read(result[0], &inner, sizeof inner) == static_cast<ssize_t>(sizeof inner)) exit_like(inner);
    exit_like(status);  // the init itself was killed: so was everything in the namespace
  }
  end_descendants();
  exit_like(status);
}

}  // namespace kpt::local
