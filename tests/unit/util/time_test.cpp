#include "util/time.hpp"

#include <gtest/gtest.h>

namespace kpt::util {
namespace {

TEST(Rfc3339Time, FormatsAndParsesRfc3339RoundTrip) {
  const auto t = util::parse_time("2026-11-29T18:45:07Z");
  ASSERT_TRUE(t.has_value());
  EXPECT_EQ(util::format_time(*t), "2026-11-29T18:45:07Z");
}

TEST(Rfc3339Time, AppliesOffsetsAndIgnoresFractions) {
  EXPECT_EQ(util::format_time(*util::parse_time("2026-11-29T20:45:07.123456+02:00")), "2026-11-29T18:45:07Z");
  EXPECT_EQ(util::format_time(*util::parse_time("2026-11-29T18:00:00-01:30")), "2026-11-29T19:30:00Z");
}

TEST(Rfc3339Time, RefusesMalformedTimes) {
  for (const char* bad : {"", "2026-11-29", "2026-11-29T18:45:07", "2026-13-01T00:00:00Z",
                          "2026-11-29T18:45:07Zx", "2026-11-29 18:45:07Z"}) {
    SCOPED_TRACE(bad);
    EXPECT_FALSE(util::parse_time(bad).has_value());
  }
}

}  // namespace
}  // namespace kpt::util

namespace kpt::util {
namespace {

TEST(FormatAge, AsKubectlGetPrintsIt) {
  using std::chrono::seconds;
  EXPECT_EQ(format_age(seconds(-5)), "0s");
  EXPECT_EQ(format_age(seconds(45)), "45s");
  EXPECT_EQ(format_age(seconds(119)), "119s");
  EXPECT_EQ(format_age(seconds(330)), "5m30s");
  EXPECT_EQ(format_age(seconds(360)), "6m");
  EXPECT_EQ(format_age(seconds(3 * 3600)), "3h");
  EXPECT_EQ(format_age(seconds(3 * 3600 + 120)), "3h2m");
  EXPECT_EQ(format_age(seconds(30 * 3600)), "30h");
  EXPECT_EQ(format_age(seconds(52 * 3600)), "2d4h");
  EXPECT_EQ(format_age(seconds(400 * 86400)), "400d");
  EXPECT_EQ(format_age(seconds(3 * 365 * 86400 + 86400)), "3y1d");
}

}  // namespace
}  // namespace kpt::util
