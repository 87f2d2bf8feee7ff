#pragma once

#include "util/expected.hpp"

#include <map>
#include <string>
#include <vector>

namespace kpt::kube {

struct CommandResult {
  int exit_code = 0;
  std::string out;  ///< captured standard output (may hold secrets: never log it)
};

/// Runs a program to completion (an exec credential plugin); local::ProcessRunner is the other kind,
/// supervising a container's processes. Standard error goes to ours (exec plugins talk to the user there).
class CommandRunner {
 public:
  virtual ~CommandRunner() = default;
  /// `command` is looked up on env["PATH"] unless it contains '/'. A missing program is
  /// ErrorCode::not_found. `env` is the child's complete environment.
  virtual Expected<CommandResult> run(const std::string& command, const std::vector<std::string>& args,
                                      const std::map<std::string, std::string>& env, bool with_stdin) = 0;
};

/// fork/exec implementation.
class RealCommandRunner final : public CommandRunner {
 public:
  Expected<CommandResult> run(const std::string& command, const std::vector<std::string>& args,
                              const std::map<std::string, std::string>& env, bool with_stdin) override;
};

}  // namespace kpt::kube
