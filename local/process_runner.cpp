#include "local/process_runner.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <map>

extern char** environ;

namespace kpt::local {

namespace {

class PosixRunner final : public ProcessRunner {
 public:
  Expected<int> start(const ProcessSpec& spec) override {
    if (spec.argv.empty()) return make_error(ErrorCode::usage, "no command to run");
    // Everything the child needs is prepared before fork: after it only async-signal-safe calls.
    std::vector<char*> argv = exec_array(spec.argv);
    std::vector<char*> envp = exec_array(spec.env);

    const int log_fd = ::open(spec.log_path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
    if (log_fd < 0) {
      return make_error(ErrorCode::io, "opening log '" + spec.log_path + "': " + std::strerror(errno));
    }
    // A CLOEXEC pipe tells the parent whether exec succeeded: it is closed by a successful
    // exec and carries errno when exec fails.
    int status_pipe[2];
    if (::pipe2(status_pipe, O_CLOEXEC) != 0) {
      ::close(log_fd);
      return make_error(ErrorCode::io, std::string("pipe: ") + std::strerror(errno));
    }
    const pid_t pid = ::fork();
    if (pid < 0) {
      ::close(log_fd);
      ::close(status_pipe[0]);
      ::close(status_pipe[1]);
      return make_error(ErrorCode::io, std::string("fork: ") + std::strerror(errno));
    }
    if (pid == 0) {
      ::setpgid(0, 0);
      ::signal(SIGPIPE, SIG_DFL);  // the server ignores it; a container's shell pipelines must not
      ::dup2(log_fd, STDOUT_FILENO);
      ::dup2(log_fd, STDERR_FILENO);
      const int devnull = ::open("/dev/null", O_RDONLY);
      if (devnull >= 0) ::dup2(devnull, STDIN_FILENO);
      if (!spec.workdir.empty() && ::chdir(spec.workdir.c_str()) != 0) {
        const int err = errno;
        (void)!::write(status_pipe[1], &err, sizeof err);
        ::_exit(127);
      }
      environ = envp.data();  // execvp looks argv[0] up on the child's own PATH
      ::execvp(argv[0], argv.data());
      const int err = errno;
      (void)!::write(status_pipe[1], &err, sizeof err);
      ::_exit(127);
    }
    ::setpgid(pid, pid);  // also from the parent, so signals work even before the child ran
    ::close(log_fd);
    ::close(status_pipe[1]);
    int child_errno = 0;
    ssize_t n;
    do {
      n = ::read(status_pipe[0], &child_errno, sizeof child_errno);
    } while (n < 0 && errno == EINTR);
    ::close(status_pipe[0]);
    if (n == sizeof child_errno) {
      ProcessExit exit;
      exit.exit_code = 128;
      exit.start_failed = true;
      exit.start_error = describe_start_error(spec.argv.front(), spec.workdir, child_errno);
      m_failed_starts[pid] = exit;
    }
    return static_cast<int>(pid);
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

  void signal_group(int pid, int sig) override {
    if (pid > 0) ::kill(-pid, sig);
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
