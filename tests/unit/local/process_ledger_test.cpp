#include "local/process_ledger.hpp"

#include "tests/support/temp_dir.hpp"
#include "util/file_io.hpp"

#include <gtest/gtest.h>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>

namespace kpt::local {
namespace {

TEST(ParseProcStat, ReadsTheFieldsAfterANameThatHoldsSpacesAndParentheses) {
  const auto stat = parse_proc_stat(
      "4242 (python3 (x) y) S 17 4242 4000 0 -1 4194560 100 0 0 0 5 3 0 0 20 0 3 0 987654 10000 200 "
      "18446744073709551615\n");
  ASSERT_TRUE(stat);
  EXPECT_EQ(stat->pid, 4242);
  EXPECT_EQ(stat->ppid, 17);
  EXPECT_EQ(stat->session, 4000);
  EXPECT_EQ(stat->start_ticks, 987654u);
  EXPECT_FALSE(parse_proc_stat("4242 (cut short) S 1 2"));
  EXPECT_FALSE(parse_proc_stat("no parentheses"));
}

std::string contents(const std::string& path) {
  auto text = util::read_file(path);
  return text ? *text : "(unreadable)";
}

pid_t start_sleep() {
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::setsid();
    ::execlp("sleep", "sleep", "30", static_cast<char*>(nullptr));
    ::_exit(127);
  }
  return pid;
}

bool ended(pid_t pid) {
  for (int i = 0; i < 500; ++i) {  // bounded: at most 5 s
    if (::waitpid(pid, nullptr, WNOHANG) == pid) return true;
    ::usleep(10'000);
  }
  return false;
}

TEST(ProcessLedger, ANewNodeEndsWhatTheLastOneRecordedAndNothingElse) {
  kpt::testing::TempDir dir("kpt-ledger");
  const std::string file = dir.file("node.pids");
  const pid_t recorded = start_sleep();
  const pid_t reused = start_sleep();  // stands for a pid another process took since
  ASSERT_GT(recorded, 0);
  ASSERT_GT(reused, 0);
  ::usleep(50'000);
  {
    ProcessLedger ledger(file);
    ledger.add(recorded);
    ledger.add(reused);
  }
  // The second entry's start time no longer matches: that pid now names another process.
  auto text = util::read_file(file);
  ASSERT_TRUE(text);
  const std::string marker = std::to_string(reused) + " ";
  const auto at = text->find(marker);
  ASSERT_NE(at, std::string::npos);
  text->replace(at + marker.size(), text->find('\n', at) - at - marker.size(), "1");
  std::ofstream(file) << *text;

  EXPECT_EQ(ProcessLedger::end_leftovers(file), 1);
  EXPECT_TRUE(ended(recorded));
  EXPECT_EQ(::waitpid(reused, nullptr, WNOHANG), 0);  // still running
  EXPECT_EQ(contents(file), "");
  ::kill(reused, SIGKILL);
  EXPECT_TRUE(ended(reused));
}

TEST(ProcessLedger, RemovedProcessesAreNotRecorded) {
  kpt::testing::TempDir dir("kpt-ledger");
  ProcessLedger ledger(dir.file("node.pids"));
  ledger.add(::getpid());
  ledger.remove(::getpid());
  EXPECT_EQ(contents(dir.file("node.pids")), "");
}

}  // namespace
}  // namespace kpt::local
