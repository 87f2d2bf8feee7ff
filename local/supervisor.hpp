#pragma once

#include <signal.h>
#include <sys/types.h>

#include <cstddef>
#include <cstdint>

namespace kpt::local {

/// The namespaces a supervised command runs in. Descriptors name existing namespaces (a job's
/// network, a pod's PID namespace for an exec); the flags ask for fresh ones.
struct NamespacePlan {
  int user_fd = -1;       ///< join this user namespace first (the job network of a node that is not root)
  int net_fd = -1;        ///< join this network namespace
  int pid_fd = -1;        ///< join this PID namespace (an exec into a pod)
  bool new_user = false;  ///< a fresh user namespace that maps the node's uid and gid to themselves
  bool new_pid = false;   ///< a fresh PID namespace whose init is the supervisor's (a pod)
  const char* uid_map = nullptr;  ///< "<uid> <uid> 1\n", for new_user
  const char* gid_map = nullptr;
};

/// A resource limit to set before exec (setrlimit).
struct RlimitSetting {
  int resource = 0;
  std::uint64_t value = 0;
};

/// Everything the child does between fork and exec, prepared before fork: after fork in a
/// threaded process only async-signal-safe calls are allowed, so nothing here allocates.
struct SupervisorPlan {
  char* const* argv = nullptr;  ///< looked up on envp's PATH
  char* const* envp = nullptr;
  const char* workdir = nullptr;   ///< nullptr: stay where the node is
  int std_fds[3] = {-1, -1, -1};   ///< the command's stdin, stdout, stderr (-1: /dev/null)
  const char* tty_path = nullptr;  ///< a terminal to open as 0, 1 and 2 and make controlling

  NamespacePlan ns;

  const RlimitSetting* limits = nullptr;
  std::size_t limit_count = 0;
  bool set_identity = false;  ///< switch to uid/gid/groups (a root node honouring runAsUser)
  uid_t uid = 0;
  gid_t gid = 0;
  const gid_t* groups = nullptr;
  std::size_t group_count = 0;
  bool no_new_privs = false;       ///< allowPrivilegeEscalation: false
  const int* drop_caps = nullptr;  ///< capabilities to drop from the bounding set (a root node)
  std::size_t drop_cap_count = 0;

  int report_fd = -1;  ///< write end of the close-on-exec report pipe (see SupervisorReport)
  pid_t node_pid = 0;  ///< the process that forks: the supervisor dies with it
};

/// What a supervisor tells the node on the report pipe before the command runs. The pipe
/// reaches end-of-file once the command has exec'd (every copy of its write end is closed).
struct SupervisorReport {
  enum Kind : std::int32_t { child_pid = 1, failed = 2 };
  enum Stage : std::int32_t { isolation = 1, workdir = 2, limits = 3, identity = 4, exec = 5 };
  std::int32_t kind = 0;
  std::int32_t value = 0;  ///< child_pid: the pid (in the node's PID namespace); failed: the Stage
  std::int32_t error = 0;  ///< errno, for failed
};

/// The signal the node sends a supervisor to end its command and every process of it at once
/// (SIGKILL would only end the supervisor). Sent by anyone else, and every other signal, it is
/// passed on to the command's process group.
inline constexpr int k_kill_all_signal = SIGUSR1;

/// Runs in the child of fork() and never returns. The supervisor ends its command when the
/// node dies (PR_SET_PDEATHSIG sends it k_kill_all_signal), keeps only the descriptors of the plan, enters
/// the namespaces, and starts the command: with `ns.new_pid` under a tiny init that is PID 1 of the pod's PID
/// namespace (when the command ends, init ends every process left, setsid'd ones included);
/// otherwise as its own child, with the supervisor as the child subreaper that ends every
/// descendant once the command ended. The command gets a new session, default signal
/// dispositions, an empty signal mask and no inherited descriptors. The supervisor then passes
/// on the signals it gets and ends with the command's exit status (the same code, or the same
/// signal), so the node sees the command's own status.
[[noreturn]] void run_supervisor(const SupervisorPlan& plan);

}  // namespace kpt::local
