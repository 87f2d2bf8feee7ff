#pragma once

#include "apiserver/exec_provider.hpp"
#include "local/container_security.hpp"
#include "local/supervisor.hpp"

#include <memory>
#include <string>
#include <vector>

namespace kpt::local {

/// One `kubectl exec` command as a local process.
struct ExecSpec {
  std::vector<std::string> argv;  ///< looked up on the env's PATH
  std::vector<std::string> env;   ///< KEY=VALUE, the whole environment (the container's)
  std::string workdir;
  bool with_stdin = false;     ///< else stdin is /dev/null
  bool tty = false;            ///< a pseudo-terminal for stdin, stdout and stderr together
  ContainerSecurity security;  ///< the container's: an exec runs as its processes do
  /// The pod's namespaces to join (descriptors open for the call only), so the command and
  /// everything it starts end with the pod.
  NamespacePlan ns;
};

/// Starts the command under a supervisor (see run_supervisor), in its own session, with pipes
/// or a terminal. A command that cannot start (not found, not executable, no such directory) gives
/// nullptr and the reason in `error`, worded as a container runtime words it.
/// `pid`, when given, receives the supervisor's pid.
std::unique_ptr<apiserver::ExecProcess> start_exec_process(const ExecSpec& spec, std::string& error,
                                                           int* pid = nullptr);

}  // namespace kpt::local
