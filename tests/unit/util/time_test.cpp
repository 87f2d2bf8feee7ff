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
