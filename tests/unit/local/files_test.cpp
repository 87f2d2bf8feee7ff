#include "local/hosts_file.hpp"
#include "local/log_store.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

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

TEST(LogStore, TailKeepsTheLastLines) {
  EXPECT_EQ(LogStore::tail("a\nb\nc\n", 2), "b\nc\n");
  EXPECT_EQ(LogStore::tail("a\nb\nc", 1), "c");
  EXPECT_EQ(LogStore::tail("a\nb\n", 5), "a\nb\n");
  EXPECT_EQ(LogStore::tail("a\nb\n", 0), "");
}

TEST(LogStore, ReadsWithTailAndLimit) {
  const auto dir = std::filesystem::temp_directory_path() / ("kpt-logstore-" + std::to_string(::getpid()));
  LogStore store(dir.string());
  ASSERT_TRUE(store.prepare("ns", "pod", "uid", "c", 0));
  const auto file = store.path("ns", "pod", "uid", "c", 0);
  EXPECT_EQ(file, dir.string() + "/ns_pod_uid/c/0.log");
  std::ofstream(file) << "one\ntwo\nthree\n";
  LogStore::ReadOptions opts;
  opts.tail_lines = 2;
  EXPECT_EQ(*LogStore::read(file, opts), "two\nthree\n");
  opts.limit_bytes = 3;
  EXPECT_EQ(*LogStore::read(file, opts), "two");
  auto missing = LogStore::read(file + ".nope", {});
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().message, "no log at '" + file + ".nope'");
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace kpt::local
