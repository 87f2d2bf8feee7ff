#include "local/exec_process.hpp"

#include "local/supervised_spawn.hpp"

#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

namespace kpt::local {

namespace {

void set_nonblocking(int fd) {
  if (fd >= 0) ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) | O_NONBLOCK);
}

void close_fd(int& fd) {
  if (fd >= 0) ::close(fd);
  fd = -1;
}

class PosixExecProcess final : public apiserver::ExecProcess {
 public:
  PosixExecProcess(pid_t pid, int in, int out, int err, bool tty)
      : m_pid(pid), m_stdin(in), m_stdout(out), m_stderr(err), m_tty(tty) {
    set_nonblocking(m_stdin);
    set_nonblocking(m_stdout);
    set_nonblocking(m_stderr);
  }
  ~PosixExecProcess() override {
    kill();
    if (m_tty) m_stdin = -1;  // the terminal is closed once, as stdout
    close_fd(m_stdin);
    close_fd(m_stdout);
    close_fd(m_stderr);
  }
  PosixExecProcess(const PosixExecProcess&) = delete;
  PosixExecProcess& operator=(const PosixExecProcess&) = delete;

  [[nodiscard]] int stdin_fd() const override { return m_stdin; }
  [[nodiscard]] int stdout_fd() const override { return m_stdout; }
  [[nodiscard]] int stderr_fd() const override { return m_stderr; }

  long write_stdin(const char* data, std::size_t size) override {
    if (m_stdin < 0) {
      errno = EBADF;
      return -1;
    }
    // A command that closed its stdin makes the write raise SIGPIPE: keep it pending on this
    // thread only, and take it back, so the server never dies of it.
    sigset_t pipe_set;
    sigset_t old_set;
    sigemptyset(&pipe_set);
    sigaddset(&pipe_set, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &pipe_set, &old_set);
    const ssize_t n = ::write(m_stdin, data, size);
    const int saved = errno;
    if (n < 0 && saved == EPIPE) {
      const timespec none{0, 0};
      while (sigtimedwait(&pipe_set, nullptr, &none) > 0) {
      }
    }
    pthread_sigmask(SIG_SETMASK, &old_set, nullptr);
    errno = saved;
    return n;
  }

  void close_stdin() override {
    if (m_tty) {
      // A terminal has one descriptor for both ways: end-of-file is the EOF character.
      if (m_stdin >= 0) (void)!::write(m_stdin, "\x04", 1);
      m_stdin = -1;
      return;
    }
    close_fd(m_stdin);
  }

  void close_output(int fd) override {
    if (fd == m_stdout) {
      if (m_tty) m_stdin = -1;
      close_fd(m_stdout);
    } else if (fd == m_stderr) {
      close_fd(m_stderr);
    }
  }

  void resize(unsigned cols, unsigned rows) override {
    if (!m_tty || m_stdout < 0) return;
    winsize size{};
    size.ws_col = static_cast<unsigned short>(cols > 0xFFFF ? 0xFFFF : cols);
    size.ws_row = static_cast<unsigned short>(rows > 0xFFFF ? 0xFFFF : rows);
    ::ioctl(m_stdout, TIOCSWINSZ, &size);
  }

  std::optional<apiserver::ExecExit> poll_exit() override {
    if (m_exit) return m_exit;
    int status = 0;
    const pid_t r = ::waitpid(m_pid, &status, WNOHANG);
    if (r == 0) return std::nullopt;
    record(r < 0 ? -1 : status);
    return m_exit;
  }

  void kill() override {
    if (m_exit) return;
    ::kill(m_pid, k_kill_all_signal);  // the supervisor ends the command and what it started
    int status = 0;
    pid_t r;
    do {
      r = ::waitpid(m_pid, &status, 0);
    } while (r < 0 && errno == EINTR);
    record(r < 0 ? -1 : status);
  }

 private:
  void record(int status) {
    apiserver::ExecExit exit;
    if (status < 0) {
      exit.exit_code = 1;  // reaped elsewhere: report an end rather than wait forever
    } else if (WIFEXITED(status)) {
      exit.exit_code = WEXITSTATUS(status);
    } else if (WIFSIGNALED(status)) {
      exit.exit_code = 128 + WTERMSIG(status);
    }
    m_exit = exit;
  }

  pid_t m_pid;
  int m_stdin;
  int m_stdout;
  int m_stderr;
  bool m_tty;
  std::optional<apiserver::ExecExit> m_exit;
};

/// The descriptors the child gets, made before fork (after it, only async-signal-safe calls).
struct ChildFds {
  int in[2] = {-1, -1};
  int out[2] = {-1, -1};
  int err[2] = {-1, -1};
  int pty_master = -1;
  std::string pty_slave;

  void close_all() {
    for (int* p : {in, out, err}) {
      close_fd(p[0]);
      close_fd(p[1]);
    }
    close_fd(pty_master);
  }
};

bool open_pipes(const ExecSpec& spec, ChildFds& fds) {
  if (spec.tty) {
    fds.pty_master = ::posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
    if (fds.pty_master < 0 || ::grantpt(fds.pty_master) != 0 || ::unlockpt(fds.pty_master) != 0) return false;
    char name[128];
    if (::ptsname_r(fds.pty_master, name, sizeof name) != 0) return false;
    fds.pty_slave = name;
    return true;
  }
  if (spec.with_stdin && ::pipe2(fds.in, O_CLOEXEC) != 0) return false;
  return ::pipe2(fds.out, O_CLOEXEC) == 0 && ::pipe2(fds.err, O_CLOEXEC) == 0;
}

}  // namespace

std::unique_ptr<apiserver::ExecProcess> start_exec_process(const ExecSpec& spec, std::string& error,
                                                           int* pid_out) {
  if (spec.argv.empty()) {
    error = "no command to run";
    return nullptr;
  }
  ChildFds fds;
  if (!open_pipes(spec, fds)) {
    error = std::string("setting up the command's streams: ") + std::strerror(errno);
    fds.close_all();
    return nullptr;
  }
  SpawnRequest request;
  request.argv = spec.argv;
  request.env = spec.env;
  request.workdir = spec.workdir;
  request.security = spec.security;
  request.ns = spec.ns;
  if (spec.tty) {
    request.tty_path = fds.pty_slave;
  } else {
    request.std_fds[0] = spec.with_stdin ? fds.in[0] : -1;
    request.std_fds[1] = fds.out[1];
    request.std_fds[2] = fds.err[1];
  }
  auto spawned = spawn_supervised(request);
  if (!spawned || spawned->start_error) {
    error = spawned ? *spawned->start_error : spawned.error().message;
    if (spawned) {
      int status = 0;
      while (::waitpid(spawned->pid, &status, 0) < 0 && errno == EINTR) {
      }
    }
    fds.close_all();
    return nullptr;
  }
  const pid_t pid = spawned->pid;
  if (pid_out != nullptr) *pid_out = pid;
  if (spec.tty) {
    const int master = fds.pty_master;
    fds.pty_master = -1;
    return std::make_unique<PosixExecProcess>(pid, master, master, -1, true);
  }
  close_fd(fds.in[0]);
  close_fd(fds.out[1]);
  close_fd(fds.err[1]);
  return std::make_unique<PosixExecProcess>(pid, fds.in[1], fds.out[0], fds.err[0], false);
}

}  // namespace kpt::local
