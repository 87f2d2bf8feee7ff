#pragma once

#include "local/container_security.hpp"
#include "local/supervisor.hpp"
#include "util/expected.hpp"

#include <optional>
#include <string>
#include <vector>

namespace kpt::local {

/// A command to start under a supervisor (see run_supervisor).
struct SpawnRequest {
  std::vector<std::string> argv;  ///< argv[0] is looked up on the env's PATH
  std::vector<std::string> env;   ///< KEY=VALUE, the whole environment
  std::string workdir;
  ContainerSecurity security;
  NamespacePlan ns;  ///< its descriptors need to stay open for the call only
  int std_fds[3] = {-1, -1, -1};
  std::string tty_path;  ///< non-empty: a terminal for 0, 1 and 2
};

struct Spawned {
  int pid = 0;        ///< the supervisor: signal it, wait for it; it ends as the command did
  int inner_pid = 0;  ///< the pod's init, or the command itself
  /// Why the command did not start (exec, working directory, namespaces, user), worded as a
  /// container runtime words it; the supervisor then exits 127.
  std::optional<std::string> start_error;
};

/// Forks a supervisor for `request` and waits until its command has exec'd (or failed to).
Expected<Spawned> spawn_supervised(const SpawnRequest& request);

/// Why a supervisor could not start a command, from its report.
std::string describe_supervisor_failure(const SupervisorReport& report, const std::string& command,
                                        const std::string& workdir);

}  // namespace kpt::local
