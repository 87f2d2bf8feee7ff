#pragma once

#include "util/expected.hpp"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace kpt::local {

/// What to start: one container's process, in its own process group.
struct ProcessSpec {
  std::vector<std::string> argv;  ///< command + args; argv[0] is looked up on the env's PATH
  std::vector<std::string> env;   ///< KEY=VALUE, the whole environment (nothing inherited)
  std::string workdir;
  std::string log_path;  ///< stdout and stderr are appended here
};

/// How a process ended.
struct ProcessExit {
  int exit_code = 0;  ///< 128+signal when killed, as a container runtime reports it
  int signal = 0;
  bool start_failed = false;  ///< exec itself failed (command not found, not executable)
  std::string start_error;    ///< e.g. "exec: \"nosuch\": executable file not found in $PATH"
};

/// Starts and watches processes. The real one forks; tests use a fake that records calls.
class ProcessRunner {
 public:
  virtual ~ProcessRunner() = default;
  /// Starts the process; returns its pid, which is also its process-group id.
  virtual Expected<int> start(const ProcessSpec& spec) = 0;
  /// Non-blocking: the exit of `pid` once it has ended (reaped), else nothing.
  virtual std::optional<ProcessExit> poll(int pid) = 0;
  /// Sends `sig` to the whole process group of `pid`.
  virtual void signal_group(int pid, int sig) = 0;
};

std::unique_ptr<ProcessRunner> make_posix_runner();

/// `strings` as the NULL-terminated array execve() takes (pointing into `strings`).
std::vector<char*> exec_array(const std::vector<std::string>& strings);

/// Why exec of `command` in `workdir` failed with `err`, worded as a container runtime does
/// (`exec: "nosuch": executable file not found in $PATH`).
std::string describe_start_error(const std::string& command, const std::string& workdir, int err);

}  // namespace kpt::local
