// pods/log over HTTPS from a log file as the local node keeps it (local::LogStore): a 200 MB log
// is served from its end, so tails of it cost a block of memory, not the file. Six at once once
// took the process to 1.6 GB.
#include "apiserver/api_server.hpp"
#include "client.hpp"
#include "local/log_store.hpp"
#include "raw_client.hpp"
#include "tests/support/temp_dir.hpp"

#include <gtest/gtest.h>

#include <fcntl.h>
#include <unistd.h>

#include <future>
#include <iostream>
#include <string>
#include <vector>

namespace kpt::apiserver::testing {
namespace {

/// Serves every pod's log from one file, through the node's file streams.
class OneFileLogProvider final : public LogProvider {
 public:
  explicit OneFileLogProvider(std::string file) : m_file(std::move(file)) {}
  Expected<std::unique_ptr<LogStream>> open(const LogRequest& request,
                                            const nlohmann::json& /*pod*/) override {
    local::LogStore::StreamOptions options;
    options.tail_lines = request.tail_lines;
    options.limit_bytes = request.limit_bytes;
    options.since = request.since;
    return local::LogStore::open(m_file, options);
  }

 private:
  std::string m_file;
};

/// `mib` MiB of 1 KiB lines, then `last`, written with 1 MiB writes (a few hundred ms on a disk).
void write_log(const std::string& file, std::size_t mib, const std::string& last) {
  const int fd = ::open(file.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  ASSERT_GE(fd, 0);
  std::string block;
  while (block.size() < (1u << 20)) block += std::string(1023, 'x') + "\n";
  for (std::size_t i = 0; i < mib; ++i)
    ASSERT_EQ(::write(fd, block.data(), block.size()), ssize_t(block.size()));
  ASSERT_EQ(::write(fd, last.data(), last.size()), ssize_t(last.size()));
  ::close(fd);
}

TEST(ApiServerLogServing, TailsOfA200MegabyteLogLeaveMemoryFlat) {
  kpt::testing::TempDir dir("kpt-log-serving");
  const std::string file = dir.file("0.log");
  write_log(file, 200, "the last line\n");
  Harness h;
  h.server->set_log_provider(std::make_shared<OneFileLogProvider>(file));
  ASSERT_EQ(h.client->post("/api/v1/namespaces/default/pods", pod("big")).status, 201);
  const std::string log = "/api/v1/namespaces/default/pods/big/log";
  ASSERT_EQ(h.client->get(log + "?tailLines=1").raw, "the last line\n");  // threads and TLS warmed up
  const auto peak_before = peak_resident_kib();
  std::vector<std::future<std::string>> tails;
  for (int i = 0; i < 6; ++i) {
    tails.push_back(std::async(std::launch::async, [&h, &log, i] {
      Client c(*h.server, k_test_token);
      return c.get(log + (i % 2 == 0 ? "?tailLines=1" : "?tailLines=1&limitBytes=10")).raw;
    }));
  }
  for (int i = 0; i < 6; ++i) {
    SCOPED_TRACE(i);
    EXPECT_EQ(tails[static_cast<std::size_t>(i)].get(), i % 2 == 0 ? "the last line\n" : "the last l");
  }
  const auto growth_kib = peak_resident_kib() - peak_before;
  std::cout << "6 tails of a 200 MiB log at once: peak RSS +" << growth_kib << " KiB\n";
  // The whole process, the six TLS clients and their threads included; reading the log whole
  // would add 200 MB per request.
  if (!k_under_asan) {
    EXPECT_LT(growth_kib, 16u * 1024);
  }
  EXPECT_EQ(h.client->get(log + "?tailLines=2&limitBytes=5").raw, "xxxxx");
}

}  // namespace
}  // namespace kpt::apiserver::testing
