#include "local/process_runner.hpp"

#include <gtest/gtest.h>

#include <signal.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

namespace kpt::local {
namespace {

// Real processes: the runner's job is fork/exec, so a fake would prove nothing here.
class ProcessRunnerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    m_dir = std::filesystem::temp_directory_path() /
            ("kpt-runner-" + std::to_string(::getpid()) + "-" +
             ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::create_directories(m_dir);
  }
  void TearDown() override { std::filesystem::remove_all(m_dir); }

  ProcessExit wait_for(ProcessRunner& runner, int pid) {
    for (int i = 0; i < 1000; ++i) {  // bounded: at most 10 s
      if (auto exit = runner.poll(pid)) return *exit;
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    ADD_FAILURE() << "process " << pid << " did not end";
    runner.signal_group(pid, SIGKILL);
    return {};
  }
  std::string read(const std::string& file) {
    std::ifstream in(file);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
  }
  std::filesystem::path m_dir;
};

TEST_F(ProcessRunnerTest, RunsWithExactlyTheGivenEnvAndWorkdirAndLogsBothStreams) {
  auto runner = make_posix_runner();
  const std::string log = (m_dir / "out.log").string();
  auto pid = runner->start({{"sh", "-c", "echo \"$GREETING from $(pwd)\"; echo oops >&2; exit 3"},
                            {"PATH=/usr/bin:/bin", "GREETING=hello"},
                            m_dir.string(),
                            log});
  ASSERT_TRUE(pid) << pid.error().message;
  const auto exit = wait_for(*runner, *pid);
  EXPECT_EQ(exit.exit_code, 3);
  EXPECT_FALSE(exit.start_failed);
  EXPECT_EQ(read(log), "hello from " + m_dir.string() + "\noops\n");
}

TEST_F(ProcessRunnerTest, ReportsACommandThatIsNotThere) {
  auto runner = make_posix_runner();
  auto pid = runner->start(
      {{"no-such-command-kpt"}, {"PATH=/usr/bin:/bin"}, m_dir.string(), (m_dir / "out.log").string()});
  ASSERT_TRUE(pid);
  const auto exit = wait_for(*runner, *pid);
  EXPECT_TRUE(exit.start_failed);
  EXPECT_EQ(exit.exit_code, 128);
  EXPECT_EQ(exit.start_error, "exec: \"no-such-command-kpt\": executable file not found in $PATH");
}

TEST_F(ProcessRunnerTest, SignalsTheWholeProcessGroup) {
  auto runner = make_posix_runner();
  // The shell starts a child; TERM to the group must end both.
  auto pid = runner->start({{"sh", "-c", "sleep 30 & wait"},
                            {"PATH=/usr/bin:/bin"},
                            m_dir.string(),
                            (m_dir / "out.log").string()});
  ASSERT_TRUE(pid);
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  runner->signal_group(*pid, SIGTERM);
  const auto exit = wait_for(*runner, *pid);
  EXPECT_EQ(exit.signal, SIGTERM);
  EXPECT_EQ(exit.exit_code, 128 + SIGTERM);
  // No member of the group is left (the orphaned sleep may take a moment to be reaped).
  bool group_gone = false;
  for (int i = 0; i < 200 && !group_gone; ++i) {
    group_gone = ::kill(-*pid, 0) != 0;
    if (!group_gone) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  EXPECT_TRUE(group_gone);
}

}  // namespace
}  // namespace kpt::local
