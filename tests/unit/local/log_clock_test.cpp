#include "local/log_clock.hpp"

#include <gtest/gtest.h>

namespace kpt::local {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;

const LogClock::Time k_t0 = LogClock::Time(seconds(1'800'000'000));

TEST(LogClock, ALineIsStampedWithTheFirstLookThatSawItsEnd) {
  LogClock clock;
  clock.sample("f", 6, k_t0);                       // "a\nbb\nc" as far as "a\nbb\n"
  clock.sample("f", 6, k_t0 + seconds(1));          // no growth: not kept
  clock.sample("f", 9, k_t0 + milliseconds(2500));  // "ccc\n"
  EXPECT_EQ(clock.time_of("f", 2, k_t0 + seconds(9)), k_t0);
  EXPECT_EQ(clock.time_of("f", 9, k_t0 + seconds(9)), k_t0 + milliseconds(2500));
  EXPECT_EQ(clock.time_of("f", 10, k_t0 + seconds(9)), k_t0 + seconds(9));  // not seen yet: now
  EXPECT_EQ(clock.time_of("g", 1, k_t0 + seconds(9)), k_t0 + seconds(9));
  EXPECT_EQ(clock.stamp("f", 2, "bb\nccc\nd", k_t0 + seconds(9)),
            "2027-01-15T08:00:00.000000000Z bb\n2027-01-15T08:00:02.500000000Z ccc\n"
            "2027-01-15T08:00:09.000000000Z d");
  clock.forget("f");
  EXPECT_EQ(clock.time_of("f", 2, k_t0 + seconds(9)), k_t0 + seconds(9));
}

}  // namespace
}  // namespace kpt::local
