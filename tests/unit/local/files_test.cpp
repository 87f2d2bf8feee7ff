#include "local/hosts_file.hpp"
#include "local/log_store.hpp"
#include "tests/support/temp_dir.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

namespace kpt::local {
namespace {

TEST(HostsFile, ListsEveryDnsSpellingOnBothLoopbacks) {
  HostsFile hosts("/unused");
  EXPECT_TRUE(hosts.add("job-worker-0", "ml"));
  EXPECT_FALSE(hosts.add("job-worker-0", "ml"));
  EXPECT_EQ(hosts.render(),
            "127.0.0.1 localhost\n::1 localhost\n"
            "127.0.0.1 job-worker-0\n::1 job-worker-0\n"
            "127.0.0.1 job-worker-0.ml\n::1 job-worker-0.ml\n"
            "127.0.0.1 job-worker-0.ml.svc\n::1 job-worker-0.ml.svc\n"
            "127.0.0.1 job-worker-0.ml.svc.cluster.local\n::1 job-worker-0.ml.svc.cluster.local\n");
}

TEST(HostsFile, ADeletedPodsNamesLeaveTheFile) {
  HostsFile hosts("/unused");
  hosts.add("svc", "ml");
  const std::string with_service = hosts.render();
  hosts.add("job-node-0-0-abcde", "ml");
  EXPECT_TRUE(hosts.remove("job-node-0-0-abcde", "ml"));
  EXPECT_FALSE(hosts.remove("job-node-0-0-abcde", "ml"));
  EXPECT_EQ(hosts.render(), with_service);
}

/// A log file in its own temporary folder (kept when the test fails).
class LogFile {
 public:
  explicit LogFile(const std::string& text) : m_dir(m_temp.path() + "/logs"), m_store(m_dir.string()) {
    EXPECT_TRUE(m_store.prepare("ns", "pod", "uid", "c", 0));
    m_path = m_store.path("ns", "pod", "uid", "c", 0);
    std::ofstream(m_path, std::ios::binary) << text;
  }
  [[nodiscard]] const std::string& path() const { return m_path; }
  [[nodiscard]] const std::filesystem::path& dir() const { return m_dir; }

 private:
  kpt::testing::TempDir m_temp{"kpt-logstore"};
  std::filesystem::path m_dir;
  LogStore m_store;
  std::string m_path;
};

/// Everything a stream over `file` gives before it ends.
std::string drain(const std::string& file, const LogStore::StreamOptions& options) {
  auto stream = LogStore::open(file, options);
  std::string out;
  for (int reads = 0; reads < 10000 && stream->read(out, std::chrono::milliseconds(0)); ++reads) {
  }
  return out;
}

TEST(LogStore, KeepsEachRunsLogInAPrivateFolder) {
  LogFile log("x");
  EXPECT_EQ(log.path(), log.dir().string() + "/ns_pod_uid/c/0.log");
  for (const auto& dir : {log.dir(), log.dir() / "ns_pod_uid", log.dir() / "ns_pod_uid" / "c"}) {
    SCOPED_TRACE(dir.string());
    EXPECT_EQ(std::filesystem::status(dir).permissions(), std::filesystem::perms::owner_all);
  }
}

TEST(LogStore, ServesTheLastLinesThenTheLimit) {
  struct Case {
    std::string name;
    std::string text;
    std::optional<std::int64_t> tail;
    std::optional<std::int64_t> limit;
    std::string want;
  };
  const std::vector<Case> cases = {
      {"all", "one\ntwo\nthree\n", {}, {}, "one\ntwo\nthree\n"},
      {"two lines", "one\ntwo\nthree\n", 2, {}, "two\nthree\n"},
      {"a last line without newline", "a\nb\nc", 1, {}, "c"},
      {"more lines than there are", "a\nb\n", 5, {}, "a\nb\n"},
      {"no lines", "a\nb\n", 0, {}, ""},
      {"tail then limit", "one\ntwo\nthree\n", 2, 3, "two"},
      {"limit alone", "one\ntwo\n", {}, 5, "one\nt"},
      {"empty lines count", "a\n\n\n", 2, {}, "\n\n"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    LogFile log(c.text);
    LogStore::StreamOptions options;
    options.tail_lines = c.tail;
    options.limit_bytes = c.limit;
    EXPECT_EQ(drain(log.path(), options), c.want);
  }
}

TEST(LogStore, FindsTheLastLinesAcrossBlocks) {
  // Lines longer than the 64 KiB block the tail is read backwards in.
  const std::string long_line(100 * 1024, 'x');
  LogFile log("first\n" + long_line + "\n" + long_line + "\nlast\n");
  LogStore::StreamOptions options;
  options.tail_lines = 2;
  EXPECT_EQ(drain(log.path(), options), long_line + "\nlast\n");
  options.tail_lines = 3;
  options.limit_bytes = 10;
  EXPECT_EQ(drain(log.path(), options), "xxxxxxxxxx");
}

TEST(LogStore, ServesAChunkAtATime) {
  LogFile log(std::string(300 * 1024, 'y'));
  auto stream = LogStore::open(log.path(), {});
  std::string chunk;
  ASSERT_TRUE(stream->read(chunk, std::chrono::milliseconds(0)));
  EXPECT_EQ(chunk.size(), 64u * 1024);
}

TEST(LogStore, AFileNotWrittenSinceTheCutOffServesNothingOfIt) {
  LogFile log("old\n");
  LogStore::StreamOptions options;
  options.since = std::chrono::system_clock::now() + std::chrono::hours(1);
  EXPECT_EQ(drain(log.path(), options), "");
  options.since = std::chrono::system_clock::now() - std::chrono::hours(1);
  EXPECT_EQ(drain(log.path(), options), "old\n");
}

TEST(LogStore, AFollowedLogWithALimitEndsAtTheLimit) {
  LogFile log("0123456789");
  LogStore::StreamOptions options;
  options.follow = true;
  options.limit_bytes = 4;
  options.still_written = [] { return true; };  // the run goes on: only the limit can end it
  auto stream = LogStore::open(log.path(), options);
  std::string out;
  EXPECT_FALSE(stream->read(out, std::chrono::milliseconds(0)));
  EXPECT_EQ(out, "0123");
}

TEST(LogStore, AFollowedLogEndsWhenItsRunHasEndedAndEveryByteIsSent) {
  LogFile log("a\n");
  bool running = true;
  LogStore::StreamOptions options;
  options.follow = true;
  options.still_written = [&] { return running; };
  auto stream = LogStore::open(log.path(), options);
  std::string out;
  EXPECT_TRUE(stream->read(out, std::chrono::milliseconds(0)));
  EXPECT_TRUE(stream->read(out, std::chrono::milliseconds(0)));  // nothing new yet, still running
  std::ofstream(log.path(), std::ios::app) << "b\n";
  running = false;
  EXPECT_TRUE(stream->read(out, std::chrono::milliseconds(0)));
  EXPECT_FALSE(stream->read(out, std::chrono::milliseconds(0)));
  EXPECT_EQ(out, "a\nb\n");
}

TEST(LogStore, ALogNotWrittenYetIsEmpty) {
  LogFile log("");
  EXPECT_EQ(drain(log.path() + ".none", {}), "");
}

}  // namespace
}  // namespace kpt::local
