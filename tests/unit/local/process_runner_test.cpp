#include "local/process_runner.hpp"

#include "local/job_network.hpp"
#include "tests/support/temp_dir.hpp"

#include <gtest/gtest.h>

#include <dirent.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <sstream>
#include <thread>

namespace kpt::local {
namespace {

// Real processes: the runner's job is fork/exec and supervision, so a fake would prove nothing.

const IsolationSupport& support() {
  static const IsolationSupport probed = probe_isolation();
  return probed;
}

/// The isolation modes the machine offers: always the node's own (no namespaces), and a PID
/// namespace per process where the kernel lets this user have one.
std::vector<bool> modes() {
  std::vector<bool> out = {false};
  if (support().namespaces) out.push_back(true);
  return out;
}

std::string read(const std::string& file) {
  std::ifstream in(file);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

/// How many processes have `arg` in their command line (a marker no other process uses).
int processes_with(const std::string& arg) {
  int n = 0;
  DIR* proc = ::opendir("/proc");
  while (const dirent* e = proc != nullptr ? ::readdir(proc) : nullptr) {
    if (e->d_name[0] < '1' || e->d_name[0] > '9') continue;
    std::string cmdline = read(std::string("/proc/") + e->d_name + "/cmdline");
    for (auto& c : cmdline)
      if (c == '\0') c = ' ';
    if (cmdline.find(arg) != std::string::npos) ++n;
  }
  if (proc != nullptr) ::closedir(proc);
  return n;
}

bool none_left(const std::string& arg) {
  for (int i = 0; i < 500; ++i) {  // bounded: at most 5 s
    if (processes_with(arg) == 0) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return false;
}

class ProcessRunnerTest : public ::testing::Test {
 protected:
  ProcessExit wait_for(ProcessRunner& runner, int pid) {
    for (int i = 0; i < 1000; ++i) {  // bounded: at most 10 s
      if (auto exit = runner.poll(pid)) return *exit;
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    ADD_FAILURE() << "process " << pid << " did not end";
    runner.kill(pid);
    return {};
  }
  ProcessSpec spec(std::vector<std::string> argv, bool pid_namespace) {
    ProcessSpec s;
    s.argv = std::move(argv);
    s.env = {"PATH=/usr/bin:/bin"};
    s.workdir = m_dir.path();
    s.log_path = m_dir.file("out.log");
    s.pid_namespace = pid_namespace;
    s.user_namespace = support().user_namespace;
    return s;
  }
  kpt::testing::TempDir m_dir{"kpt-runner"};
};

TEST_F(ProcessRunnerTest, RunsWithExactlyTheGivenEnvAndWorkdirAndLogsBothStreams) {
  auto runner = make_posix_runner();
  auto s = spec({"sh", "-c", "echo \"$GREETING from $(pwd)\"; echo oops >&2; exit 3"}, false);
  s.env.push_back("GREETING=hello");
  auto started = runner->start(s);
  ASSERT_TRUE(started) << started.error().message;
  const auto exit = wait_for(*runner, started->pid);
  EXPECT_EQ(exit.exit_code, 3);
  EXPECT_FALSE(exit.start_failed);
  EXPECT_EQ(read(m_dir.file("out.log")), "hello from " + m_dir.path() + "\noops\n");
}

TEST_F(ProcessRunnerTest, ReportsACommandThatIsNotThere) {
  for (const bool ns : modes()) {
    SCOPED_TRACE(ns ? "PID namespace" : "no namespace");
    auto runner = make_posix_runner();
    auto started = runner->start(spec({"no-such-command-kpt"}, ns));
    ASSERT_TRUE(started);
    const auto exit = wait_for(*runner, started->pid);
    EXPECT_TRUE(exit.start_failed);
    EXPECT_EQ(exit.exit_code, 128);
    EXPECT_EQ(exit.start_error, "exec: \"no-such-command-kpt\": executable file not found in $PATH");
  }
}

TEST_F(ProcessRunnerTest, ACommandGetsDefaultSignalsAnEmptyMaskAndOnlyItsThreeDescriptors) {
  // As the server does: SIGTERM and SIGINT blocked (for sigwait), SIGPIPE ignored, and a
  // descriptor without close-on-exec, all of which a command must not inherit.
  sigset_t block;
  sigset_t old_mask;
  sigemptyset(&block);
  sigaddset(&block, SIGTERM);
  sigaddset(&block, SIGINT);
  pthread_sigmask(SIG_BLOCK, &block, &old_mask);
  struct sigaction ignore {};
  struct sigaction old_pipe {};
  ignore.sa_handler = SIG_IGN;
  ::sigaction(SIGPIPE, &ignore, &old_pipe);
  const int leaked = ::open("/dev/null", O_RDONLY);
  for (const bool ns : modes()) {
    SCOPED_TRACE(ns ? "PID namespace" : "no namespace");
    auto runner = make_posix_runner();
    ::unlink(m_dir.file("out.log").c_str());
    auto started =
        runner->start(spec({"sh", "-c", "grep -E '^Sig(Blk|Ign)' /proc/self/status; ls /proc/self/fd"}, ns));
    ASSERT_TRUE(started) << started.error().message;
    EXPECT_EQ(wait_for(*runner, started->pid).exit_code, 0);
    // grep's own status, then ls's descriptors: 0, 1, 2, and the directory ls reads.
    EXPECT_EQ(read(m_dir.file("out.log")),
              "SigBlk:\t0000000000000000\nSigIgn:\t0000000000000000\n0\n1\n2\n3\n");
  }
  ::close(leaked);
  ::sigaction(SIGPIPE, &old_pipe, nullptr);
  pthread_sigmask(SIG_SETMASK, &old_mask, nullptr);
}

TEST_F(ProcessRunnerTest, SigtermReachesTheWholeProcessGroupAndTheExitIsTheSignal) {
  for (const bool ns : modes()) {
    SCOPED_TRACE(ns ? "PID namespace" : "no namespace");
    auto runner = make_posix_runner();
    auto started = runner->start(spec({"sh", "-c", "sleep 30.201 & wait"}, ns));
    ASSERT_TRUE(started);
    for (int i = 0; i < 300 && processes_with("30.201") == 0; ++i)
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    runner->signal(started->pid, SIGTERM);
    const auto exit = wait_for(*runner, started->pid);
    EXPECT_EQ(exit.signal, SIGTERM);
    EXPECT_EQ(exit.exit_code, 128 + SIGTERM);
    EXPECT_TRUE(none_left("30.201"));
  }
}

TEST_F(ProcessRunnerTest, NothingAContainerStartedOutlivesIt) {
  for (const bool ns : modes()) {
    SCOPED_TRACE(ns ? "PID namespace" : "no namespace");
    auto runner = make_posix_runner();
    // A child in a session of its own is out of the group, and outlives its parent.
    auto started = runner->start(spec({"sh", "-c", "setsid sleep 30.202 & sleep 0.2; exit 3"}, ns));
    ASSERT_TRUE(started);
    EXPECT_EQ(wait_for(*runner, started->pid).exit_code, 3);
    EXPECT_TRUE(none_left("30.202"));
    // Killed while it runs: the same.
    started = runner->start(spec({"sh", "-c", "setsid sleep 30.203 & wait"}, ns));
    ASSERT_TRUE(started);
    for (int i = 0; i < 300 && processes_with("30.203") == 0; ++i)
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    runner->kill(started->pid);
    EXPECT_EQ(wait_for(*runner, started->pid).signal, SIGKILL);
    EXPECT_TRUE(none_left("30.203"));
  }
}

TEST_F(ProcessRunnerTest, ASignalFromTheCommandToItsParentIsPassedOnNotTakenForTheNodes) {
  for (const bool ns : modes()) {
    SCOPED_TRACE(ns ? "PID namespace" : "no namespace");
    auto runner = make_posix_runner();
    ::unlink(m_dir.file("out.log").c_str());
    // The node ends a pod with SIGUSR1 to its supervisor; the pod's own SIGUSR1 to its parent
    // (the supervisor, or its init) comes back to the pod's group as a container's init passes it.
    auto started =
        // (the group's sleep may get it too: the shell's note on that goes to /dev/null)
        runner->start(
            spec({"sh", "-c",
                  "trap 'echo usr1; exit 4' USR1; kill -USR1 $PPID; exec 2>/dev/null; sleep 5; exit 1"},
                 ns));
    ASSERT_TRUE(started);
    EXPECT_EQ(wait_for(*runner, started->pid).exit_code, 4);
    EXPECT_EQ(read(m_dir.file("out.log")), "usr1\n");
  }
}

TEST_F(ProcessRunnerTest, NothingOutlivesTheNodeThatStartedIt) {
  for (const bool ns : modes()) {
    SCOPED_TRACE(ns ? "PID namespace" : "no namespace");
    const std::string marker = ns ? "30.204" : "30.205";
    const pid_t node = ::fork();
    if (node == 0) {
      auto runner = make_posix_runner();
      if (!runner->start(spec({"sh", "-c", "setsid sleep " + marker + " & exec sleep " + marker}, ns)))
        ::_exit(1);
      ::pause();
      ::_exit(0);
    }
    for (int i = 0; i < 300 && processes_with(marker) != 2; ++i)
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    EXPECT_EQ(processes_with(marker), 2);
    ::kill(node, SIGKILL);  // a crash: no chance to stop anything
    ::waitpid(node, nullptr, 0);
    EXPECT_TRUE(none_left(marker));
  }
}

TEST(JobNetwork, TwoJobsBindTheSamePortSideBySide) {
  if (!support().namespaces) {
    // Not allowed here: say why, as `local up` does.
    EXPECT_FALSE(support().unavailable.empty());
    return;
  }
  kpt::testing::TempDir dir("kpt-network");
  auto runner = make_posix_runner();
  std::vector<std::unique_ptr<JobNetwork>> networks;
  std::vector<int> pids;
  for (int i = 0; i < 2; ++i) {
    auto network = JobNetwork::create(support().user_namespace, {});
    ASSERT_TRUE(network) << network.error().message;
    ProcessSpec s;
    // Each holds the port until both do: they bind it at the same time.
    s.argv = {"/usr/bin/python3", "-c",
              "import os, socket, sys, time\n"
              "s = socket.socket(); s.bind(('127.0.0.1', 23456)); s.listen()\n"
              "c = socket.create_connection(('127.0.0.1', 23456))\n"
              "open(sys.argv[1] + '/bound' + sys.argv[2], 'w').close()\n"
              "for _ in range(500):\n"
              "    if all(os.path.exists(sys.argv[1] + '/bound' + i) for i in '01'): break\n"
              "    time.sleep(0.01)\n"
              "print('bound and reached')\n",
              dir.path(), std::to_string(i)};
    s.env = {"PATH=/usr/bin:/bin"};
    s.log_path = dir.file("job" + std::to_string(i) + ".log");
    s.network = network->get();
    s.pid_namespace = true;
    s.user_namespace = support().user_namespace;
    auto started = runner->start(s);
    ASSERT_TRUE(started) << started.error().message;
    pids.push_back(started->pid);
    networks.push_back(std::move(*network));
  }
  for (const int pid : pids) {
    std::optional<ProcessExit> exit;
    for (int i = 0; i < 1000 && !exit; ++i) {
      exit = runner->poll(pid);
      if (!exit) std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    ASSERT_TRUE(exit);
    EXPECT_EQ(exit->exit_code, 0);
  }
  EXPECT_EQ(read(dir.file("job0.log")), "bound and reached\n");
  EXPECT_EQ(read(dir.file("job1.log")), "bound and reached\n");
}

}  // namespace
}  // namespace kpt::local
