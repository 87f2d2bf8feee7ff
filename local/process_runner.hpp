#pragma once

#include "local/container_security.hpp"
#include "util/expected.hpp"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace kpt::local {

class JobNetwork;

/// What to start: one container's process, under a supervisor (see run_supervisor).
struct ProcessSpec {
  std::vector<std::string> argv;  ///< command + args; argv[0] is looked up on the env's PATH
  std::vector<std::string> env;   ///< KEY=VALUE, the whole environment (nothing inherited)
  std::string workdir;
  std::string log_path;  ///< stdout and stderr are appended here
  ContainerSecurity security;
  const JobNetwork* network = nullptr;  ///< the job's network to join; nullptr: the node's
  bool pid_namespace = false;           ///< a PID namespace of its own (its init ends what is left)
  bool user_namespace = false;          ///< namespaces need a user namespace here (the node is not root)
};

/// How a process ended.
struct ProcessExit {
  int exit_code = 0;  ///< 128+signal when killed, as a container runtime reports it
  int signal = 0;
  bool start_failed = false;  ///< exec itself failed (command not found, not executable)
  std::string start_error;    ///< e.g. "exec: \"nosuch\": executable file not found in $PATH"
};

struct StartedProcess {
  int pid = 0;        ///< the supervisor: what poll(), signal() and kill() take
  int inner_pid = 0;  ///< the pod's init or the command (0 when unknown)
};

/// Starts and watches processes. The real one forks; tests use a fake that records calls.
class ProcessRunner {
 public:
  virtual ~ProcessRunner() = default;
  virtual Expected<StartedProcess> start(const ProcessSpec& spec) = 0;
  /// Non-blocking: the exit of `pid` once it has ended (reaped), else nothing.
  virtual std::optional<ProcessExit> poll(int pid) = 0;
  /// Passes `sig` on to the command's process group (SIGTERM, as the kubelet sends it).
  virtual void signal(int pid, int sig) = 0;
  /// Ends the command and every process it started, at once (the kubelet's SIGKILL).
  virtual void kill(int pid) = 0;
};

std::unique_ptr<ProcessRunner> make_posix_runner();

/// `strings` as the NULL-terminated array execve() takes (pointing into `strings`).
std::vector<char*> exec_array(const std::vector<std::string>& strings);

/// Why exec of `command` in `workdir` failed with `err`, worded as a container runtime does
/// (`exec: "nosuch": executable file not found in $PATH`).
std::string describe_start_error(const std::string& command, const std::string& workdir, int err);

}  // namespace kpt::local
