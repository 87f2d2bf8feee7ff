#include "controller/leader_election.hpp"

#include "tests/support/fake_api_client.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace kpt::controller {
namespace {

using std::chrono::seconds;

LeaseConfig config(const std::string& identity) {
  LeaseConfig c;
  c.namespace_ = "kube-system";
  c.identity = identity;
  return c;
}

TEST(LeaderElection, OnlyOneCandidateHoldsTheLeaseAndTheOtherTakesOverAfterItExpires) {
  testing::FakeApiClient api;
  util::FakeClock clock_a{std::chrono::system_clock::time_point{}};
  util::FakeClock clock_b{std::chrono::system_clock::time_point{}};
  LeaderElector a(api, clock_a, config("a"));
  LeaderElector b(api, clock_b, config("b"));
  EXPECT_TRUE(a.try_acquire_or_renew());
  EXPECT_FALSE(b.try_acquire_or_renew());
  clock_a.advance(seconds{2});
  clock_b.advance(seconds{2});
  EXPECT_TRUE(a.try_acquire_or_renew());  // renewed
  EXPECT_FALSE(b.try_acquire_or_renew());
  // a dies: b sees no renewal for a whole lease duration, measured on its own clock.
  clock_b.advance(seconds{14});
  EXPECT_FALSE(b.try_acquire_or_renew());
  clock_b.advance(seconds{1});
  EXPECT_TRUE(b.try_acquire_or_renew());
  const auto lease = api.object("leases", "kube-system", "kubectl-pytorch-controller");
  EXPECT_EQ(lease["spec"]["holderIdentity"], "b");
  EXPECT_EQ(lease["spec"]["leaseTransitions"], 1);
  EXPECT_EQ(lease["spec"]["leaseDurationSeconds"], 15);
  // a comes back: it must not take the lease from the live holder.
  EXPECT_FALSE(a.try_acquire_or_renew());
}

TEST(LeaderElection, AConflictingUpdateLosesTheRace) {
  testing::FakeApiClient api;
  util::FakeClock clock{std::chrono::system_clock::time_point{}};
  LeaderElector a(api, clock, config("a"));
  ASSERT_TRUE(a.try_acquire_or_renew());
  api.fail_next("update", 409, "Conflict");
  EXPECT_FALSE(a.try_acquire_or_renew());
}

TEST(LeaderElection, ReleaseLetsTheNextCandidateInAtOnce) {
  testing::FakeApiClient api;
  util::FakeClock clock{std::chrono::system_clock::time_point{}};
  LeaderElector a(api, clock, config("a"));
  LeaderElector b(api, clock, config("b"));
  ASSERT_TRUE(a.try_acquire_or_renew());
  a.release();
  EXPECT_TRUE(b.try_acquire_or_renew());
}

TEST(LeaderElection, ChecksTimingsAsClientGoDoes) {
  auto c = config("a");
  EXPECT_EQ(check_lease_config(c), "");
  c.renew_deadline = seconds{15};
  EXPECT_EQ(check_lease_config(c), "lease duration must be greater than renew deadline");
  c.renew_deadline = seconds{2};
  EXPECT_EQ(check_lease_config(c), "renew deadline must be greater than 1.2 x retry period");
}

}  // namespace
}  // namespace kpt::controller
