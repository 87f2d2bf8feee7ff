#include "apiserver/access_log.hpp"

#include "tests/support/temp_dir.hpp"

#include <gtest/gtest.h>

#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace kpt::apiserver {
namespace {

TEST(EscapeLogText, KeepsOneRequestOnOneLine) {
  struct Case {
    std::string in;
    std::string out;
  };
  for (const auto& c : std::vector<Case>{
           {"/api/v1/pods", "/api/v1/pods"},
           {"/x\nGET /forged 200", "/x\\x0aGET /forged 200"},
           {"/a\r\tb", "/a\\x0d\\x09b"},
           {"/back\\slash", "/back\\\\slash"},
           {"/\x1b[31mred", "/\\x1b[31mred"},
           {"/caf\xc3\xa9", "/caf\\xc3\\xa9"},
           {std::string("/nul\0x", 6), "/nul\\x00x"},
       }) {
    SCOPED_TRACE(c.out);
    EXPECT_EQ(escape_log_text(c.in), c.out);
  }
}

TEST(AccessLog, WritesEveryAuthenticatedRequestEscaped) {
  util::FakeClock clock(std::chrono::system_clock::time_point{});
  std::vector<std::string> lines;
  AccessLog log([&](const std::string& l) { lines.push_back(l); }, clock, {1, 1});
  for (int i = 0; i < 5; ++i) log.record("GET", "/api/v1/pods\n", 200, true);
  ASSERT_EQ(lines.size(), 5u);
  EXPECT_EQ(lines[0], "GET /api/v1/pods\\x0a 200");
}

TEST(AccessLog, LimitsLinesAboutRequestsWithoutTheTokenAndSaysHowManyItLeftOut) {
  util::FakeClock clock(std::chrono::system_clock::time_point{});
  std::vector<std::string> lines;
  AccessLog log([&](const std::string& l) { lines.push_back(l); }, clock, {2, 3});
  for (int i = 0; i < 1000; ++i) log.record("GET", "/api", 401, false);
  EXPECT_EQ(lines.size(), 3u);  // the burst
  EXPECT_EQ(log.unreported(), 997u);
  clock.advance(std::chrono::milliseconds(500));  // one line's worth at 2 a second
  log.record("GET", "/api", 401, false);
  log.record("GET", "/api", 401, false);
  ASSERT_EQ(lines.size(), 5u);
  EXPECT_EQ(lines[3], "(997 requests without the token not logged: rate limit)");
  EXPECT_EQ(lines[4], "GET /api 401");
  EXPECT_EQ(log.unreported(), 1u);
  log.record("GET", "/api/v1/pods", 200, true);  // always written, and reports what was left out
  ASSERT_EQ(lines.size(), 7u);
  EXPECT_EQ(lines[5], "(1 requests without the token not logged: rate limit)");
}

TEST(RotatingFile, IsPrivateAndRotatesPastItsSize) {
  kpt::testing::TempDir dir("kpt-access");
  const std::string path = dir.file("access.log");
  {
    RotatingFile file(path, 100);
    for (int i = 0; i < 30; ++i) file.write_line("GET /api/v1/namespaces " + std::to_string(i));
  }
  struct stat st {};
  ASSERT_EQ(::stat(path.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  ASSERT_EQ(::stat((path + ".1").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  EXPECT_LT(std::filesystem::file_size(path), 130u);
  EXPECT_LT(std::filesystem::file_size(path + ".1"), 130u);
  std::ifstream current(path);
  std::stringstream text;
  text << current.rdbuf();
  EXPECT_NE(text.str().find("GET /api/v1/namespaces 29\n"), std::string::npos);
}

TEST(RotatingFile, MakesAnOlderReadableFilePrivate) {
  kpt::testing::TempDir dir("kpt-access");
  const std::string path = dir.file("access.log");
  std::ofstream(path) << "old\n";
  ::chmod(path.c_str(), 0644);
  { RotatingFile file(path, 1000); }
  struct stat st {};
  ASSERT_EQ(::stat(path.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
}

}  // namespace
}  // namespace kpt::apiserver
