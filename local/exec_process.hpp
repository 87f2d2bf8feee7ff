#pragma once

#include "apiserver/exec_provider.hpp"

#include <memory>
#include <string>
#include <vector>

namespace kpt::local {

/// One `kubectl exec` command as a local process.
struct ExecSpec {
  std::vector<std::string> argv;  ///< looked up on the env's PATH
  std::vector<std::string> env;   ///< KEY=VALUE, the whole environment (the container's)
  std::string workdir;
  bool with_stdin = false;  ///< else stdin is /dev/null
  bool tty = false;         ///< a pseudo-terminal for stdin, stdout and stderr together
};

/// Starts the command in its own session (so the whole group can be killed), with pipes or a
/// terminal. A command that cannot start (not found, not executable, no such directory) gives
/// nullptr and the reason in `error`, worded as a container runtime words it.
std::unique_ptr<apiserver::ExecProcess> start_exec_process(const ExecSpec& spec, std::string& error);

}  // namespace kpt::local
