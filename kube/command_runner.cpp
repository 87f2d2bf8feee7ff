#include "kube/command_runner.hpp"

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace kpt::kube {

namespace {

std::string find_on_path(const std::string& command, const std::map<std::string, std::string>& env) {
  if (command.find('/') != std::string::npos) return command;
  auto it = env.find("PATH");
  const std::string path = it == env.end() ? "/usr/local/bin:/usr/bin:/bin" : it->second;
  std::string dir;
  for (std::size_t i = 0; i <= path.size(); ++i) {
    if (i < path.size() && path[i] != ':') {
      dir.push_back(path[i]);
      continue;
    }
    std::string candidate = dir.empty() ? std::string(1, '.') : dir;
    candidate.push_back('/');
    candidate.append(command);
    if (::access(candidate.c_str(), X_OK) == 0) return candidate;
    dir.clear();
  }
  return {};
}

}  // namespace

Expected<CommandResult> RealCommandRunner::run(const std::string& command,
                                               const std::vector<std::string>& args,
                                               const std::map<std::string, std::string>& env,
                                               bool with_stdin) {
  const std::string program = find_on_path(command, env);
  if (program.empty() || ::access(program.c_str(), X_OK) != 0)
    return make_error(ErrorCode::not_found, "executable " + command + " not found");

  std::vector<std::string> env_strings;
  for (const auto& [k, v] : env) {
    std::string entry = k;
    entry += '=';
    entry += v;
    env_strings.push_back(std::move(entry));
  }
  std::vector<char*> envp;
  for (auto& s : env_strings) envp.push_back(s.data());
  envp.push_back(nullptr);
  std::vector<std::string> argv_strings{command};
  argv_strings.insert(argv_strings.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& s : argv_strings) argv.push_back(s.data());
  argv.push_back(nullptr);

  int out_pipe[2];
  if (::pipe2(out_pipe, O_CLOEXEC) != 0)
    return make_error(ErrorCode::io, std::string("pipe: ") + std::strerror(errno));
  const pid_t pid = ::fork();
  if (pid < 0) {
    ::close(out_pipe[0]);
    ::close(out_pipe[1]);
    return make_error(ErrorCode::io, std::string("fork: ") + std::strerror(errno));
  }
  if (pid == 0) {
    ::dup2(out_pipe[1], STDOUT_FILENO);
    if (!with_stdin) {
      const int devnull = ::open("/dev/null", O_RDONLY);
      if (devnull >= 0) ::dup2(devnull, STDIN_FILENO);
    }
    ::execve(program.c_str(), argv.data(), envp.data());
    ::_exit(127);
  }
  ::close(out_pipe[1]);
  CommandResult result;
  char buf[4096];
  for (;;) {
    const ssize_t n = ::read(out_pipe[0], buf, sizeof buf);
    if (n > 0) {
      result.out.append(buf, static_cast<std::size_t>(n));
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    break;
  }
  ::close(out_pipe[0]);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return result;
}

}  // namespace kpt::kube
