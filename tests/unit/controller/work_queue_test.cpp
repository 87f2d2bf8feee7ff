#include "controller/work_queue.hpp"

#include "controller/expectations.hpp"

#include <gtest/gtest.h>

namespace kpt::controller {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;

class WorkQueueTest : public ::testing::Test {
 protected:
  util::FakeClock clock{std::chrono::system_clock::time_point{}};
  WorkQueue queue{clock};
};

TEST_F(WorkQueueTest, AKeyAddedTwiceIsQueuedOnce) {
  queue.add("ns/a");
  queue.add("ns/a");
  queue.add("ns/b");
  EXPECT_EQ(queue.depth(), 2u);
  EXPECT_EQ(queue.try_get(), "ns/a");
  EXPECT_EQ(queue.try_get(), "ns/b");
  EXPECT_EQ(queue.try_get(), std::nullopt);
}

TEST_F(WorkQueueTest, AKeyIsNeverHandedOutTwiceAtOnceAndComesBackAfterDone) {
  queue.add("ns/a");
  ASSERT_EQ(queue.try_get(), "ns/a");
  queue.add("ns/a");  // changed while a worker processes it
  EXPECT_EQ(queue.try_get(), std::nullopt);
  queue.done("ns/a");
  EXPECT_EQ(queue.try_get(), "ns/a");
  queue.done("ns/a");
  EXPECT_EQ(queue.try_get(), std::nullopt);
}

TEST_F(WorkQueueTest, AddAfterWaitsForTheClock) {
  queue.add_after("ns/a", milliseconds{500});
  EXPECT_EQ(queue.try_get(), std::nullopt);
  clock.advance(milliseconds{499});
  EXPECT_EQ(queue.try_get(), std::nullopt);
  clock.advance(milliseconds{1});
  EXPECT_EQ(queue.try_get(), "ns/a");
}

TEST_F(WorkQueueTest, RetriesBackOffExponentiallyPerKeyUntilForgotten) {
  EXPECT_EQ(item_backoff(0), milliseconds{5});
  EXPECT_EQ(item_backoff(1), milliseconds{10});
  EXPECT_EQ(item_backoff(10), milliseconds{5120});
  EXPECT_EQ(item_backoff(30), seconds{1000});
  for (int i = 0; i < 3; ++i) queue.add_rate_limited("ns/a");
  EXPECT_EQ(queue.num_requeues("ns/a"), 3);
  queue.forget("ns/a");
  EXPECT_EQ(queue.num_requeues("ns/a"), 0);
}

TEST_F(WorkQueueTest, GlobalBucketLimitsBurstsAcrossKeys) {
  TokenBucket bucket(10.0, 2);
  const auto t0 = std::chrono::steady_clock::time_point{};
  EXPECT_EQ(bucket.reserve(t0), milliseconds{0});
  EXPECT_EQ(bucket.reserve(t0), milliseconds{0});
  EXPECT_EQ(bucket.reserve(t0), milliseconds{100});
  EXPECT_EQ(bucket.reserve(t0 + seconds{1}), milliseconds{0});
}

TEST_F(WorkQueueTest, ShutDownReleasesBlockedWorkers) {
  queue.shut_down();
  EXPECT_EQ(queue.get(), std::nullopt);
  queue.add("ns/a");
  EXPECT_EQ(queue.depth(), 0u);
}

TEST(Expectations, AreSatisfiedWhenObservedOrAfterTheirTtl) {
  util::FakeClock clock{std::chrono::system_clock::time_point{}};
  Expectations e(clock);
  EXPECT_TRUE(e.satisfied("ns/a"));
  e.expect("ns/a", 2, 1);
  EXPECT_FALSE(e.satisfied("ns/a"));
  e.observe_creation("ns/a");
  e.observe_creation("ns/a");
  EXPECT_FALSE(e.satisfied("ns/a"));
  e.observe_deletion("ns/a");
  EXPECT_TRUE(e.satisfied("ns/a"));
  e.expect("ns/b", 1, 0);
  clock.advance(std::chrono::minutes{5});
  EXPECT_TRUE(e.satisfied("ns/b"));
}

}  // namespace
}  // namespace kpt::controller
