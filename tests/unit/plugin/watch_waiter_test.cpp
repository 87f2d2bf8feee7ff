// The follower's watch-based waiter against the fake client's real (blocking) watches. A wait
// that should end and does not hangs the test, which ctest's timeout then fails.
#include "plugin/follow/watch_waiter.hpp"

#include "tests/support/fake_api_client.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <future>
#include <thread>

namespace kpt::plugin {
namespace {

using nlohmann::json;
using std::chrono::hours;
using std::chrono::milliseconds;

json pod(const std::string& name) {
  return {{"metadata",
           {{"name", name}, {"namespace", "ml"}, {"labels", {{"jobset.sigs.k8s.io/jobset-name", "tj"}}}}}};
}

class WatchWaiterTest : public ::testing::Test {
 protected:
  testing::FakeApiClient api;
  std::atomic<bool> interrupted{false};
};

TEST_F(WatchWaiterTest, APodChangeEndsAWaitThatWouldLastAnHour) {
  WatchWaiter waiter(api, "ml",
                     follow_targets(kube::resources::trainjobs(), "tj", "jobset.sigs.k8s.io/jobset-name"),
                     &interrupted, hours(1));
  std::thread cluster([&] {
    std::this_thread::sleep_for(milliseconds(50));
    api.put(kube::resources::pods(), pod("tj-node-0-0"));
  });
  waiter.wait(hours(1));
  cluster.join();
  EXPECT_GE(waiter.wakeups(), 1);
  EXPECT_GE(api.count("watch", "pods"), 1);
  EXPECT_GE(api.count("watch", "trainjobs"), 1);
}

TEST_F(WatchWaiterTest, PodsOfOtherJobsDoNotCount) {
  WatchWaiter waiter(api, "ml",
                     follow_targets(kube::resources::trainjobs(), "tj", "jobset.sigs.k8s.io/jobset-name"),
                     &interrupted, milliseconds(200));
  json other = pod("other-node-0-0");
  other["metadata"]["labels"]["jobset.sigs.k8s.io/jobset-name"] = "other";
  api.put(kube::resources::pods(), other);
  waiter.wait(milliseconds(200));
  EXPECT_EQ(waiter.wakeups(), 0);
}

TEST_F(WatchWaiterTest, NotifyEndsAWait) {
  WatchWaiter waiter(api, "ml",
                     follow_targets(kube::resources::trainjobs(), "tj", "jobset.sigs.k8s.io/jobset-name"),
                     &interrupted, hours(1));
  std::thread tail([&] {
    std::this_thread::sleep_for(milliseconds(50));
    waiter.notify();
  });
  waiter.wait(hours(1));
  tail.join();
  EXPECT_EQ(waiter.wakeups(), 0);  // no watch event: the notify ended it
}

TEST_F(WatchWaiterTest, CtrlCEndsAWait) {
  WatchWaiter waiter(api, "ml",
                     follow_targets(kube::resources::trainjobs(), "tj", "jobset.sigs.k8s.io/jobset-name"),
                     &interrupted, hours(1));
  auto waited = std::async(std::launch::async, [&] { waiter.wait(hours(1)); });
  std::this_thread::sleep_for(milliseconds(50));
  interrupted.store(true);
  // Without the interrupt the wait lasts the hour: a generous bound tells the two apart and keeps
  // a regression from hanging the suite.
  ASSERT_EQ(waited.wait_for(std::chrono::minutes(1)), std::future_status::ready)
      << "Ctrl-C did not end the wait";
  EXPECT_EQ(waiter.wakeups(), 0);  // it woke for the interrupt, not for a change
}

TEST_F(WatchWaiterTest, WhileTheServerRefusesWatchesAWaitIsThePollInterval) {
  api.fail_next("watch", 403, "Forbidden", 1000000);
  WatchWaiter waiter(api, "ml",
                     follow_targets(kube::resources::trainjobs(), "tj", "jobset.sigs.k8s.io/jobset-name"),
                     &interrupted, hours(1));
  std::this_thread::sleep_for(milliseconds(50));              // the first refusals are in
  for (int i = 0; i < 3; ++i) waiter.wait(milliseconds(10));  // not the hour-long backstop
  EXPECT_EQ(waiter.wakeups(), 0);
}

}  // namespace
}  // namespace kpt::plugin
