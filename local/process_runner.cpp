#include "local/process_runner.hpp"

#include "local/job_network.hpp"
#include "local/supervised_spawn.hpp"
#include "local/supervisor.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <map>

namespace kpt::local {

namespace {

class PosixRunner final : public ProcessRunner {
 public:
  Expected<StartedProcess> start(const ProcessSpec& spec) override {
    const int log_fd = ::open(spec.log_path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
    if (log_fd < 0) {
      return make_error(ErrorCode::io, "opening log '" + spec.log_path + "': " + std::strerror(errno));
    }
    SpawnRequest request;
    request.argv = spec.argv;
    request.env = spec.env;
    request.workdir = spec.workdir;
    request.security = spec.security;
    request.std_fds[1] = log_fd;
    request.std_fds[2] = log_fd;
    if (spec.network != nullptr) {
      request.ns.user_fd = spec.network->user_fd();
      request.ns.net_fd = spec.network->net_fd();
    } else {
      request.ns.new_user = spec.pid_namespace && spec.user_namespace;
    }
    request.ns.new_pid = spec.pid_namespace;
    auto spawned = spawn_supervised(request);
    ::close(log_fd);
    if (!spawned) return spawned.error();
    if (spawned->start_error) {
      ProcessExit exit;
      exit.exit_code = 128;
      exit.start_failed = true;
      exit.start_error = *spawned->start_error;
      m_failed_starts[spawned->pid] = exit;
    }
    return StartedProcess{spawned->pid, spawned->inner_pid};
  }

  std::optional<ProcessExit> poll(int pid) override {
    int status = 0;
    const pid_t r = ::waitpid(pid, &status, WNOHANG);
    if (r == 0) return std::nullopt;
    if (r < 0) {
      // Already reaped (or not ours): report it as ended so callers never wait forever.
      ProcessExit gone;
      gone.exit_code = 1;
      return gone;
    }
    if (auto failed = m_failed_starts.find(pid); failed != m_failed_starts.end()) {
      ProcessExit exit = failed->second;
      m_failed_starts.erase(failed);
      return exit;
    }
    ProcessExit exit;
    if (WIFEXITED(status)) {
      exit.exit_code = WEXITSTATUS(status);
    } else if (WIFSIGNALED(status)) {
      exit.signal = WTERMSIG(status);
      exit.exit_code = 128 + exit.signal;
    }
    return exit;
  }

  void signal(int pid, int sig) override {
    if (pid > 0) ::kill(pid, sig);
  }

  void kill(int pid) override {
    if (pid > 0) ::kill(pid, k_kill_all_signal);
  }

 private:
  std::map<int, ProcessExit> m_failed_starts;
};

}  // namespace

std::vector<char*> exec_array(const std::vector<std::string>& strings) {
  std::vector<char*> out;
  out.reserve(strings.size() + 1);
  for (const auto& s : strings) out.push_back(const_cast<char*>(s.c_str()));
  out.push_back(nullptr);
  return out;
}

std::string describe_start_error(const std::string& command, const std::string& workdir, int err) {
  if (err == ENOENT && command.find('/') == std::string::npos) {
    return "exec: \"" + command + "\": executable file not found in $PATH";
  }
  if (err == ENOENT && !workdir.empty() && ::access(workdir.c_str(), F_OK) != 0) {
    return "chdir to working directory '" + workdir + "': " + std::strerror(err);
  }
  return "exec: \"" + command + "\": " + std::strerror(err);
}

std::unique_ptr<ProcessRunner> make_posix_runner() { return std::make_unique<PosixRunner>(); }

}  // namespace kpt::local
