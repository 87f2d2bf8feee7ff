#include "tests/integration/controller/fixture.hpp"

#include <gtest/gtest.h>

namespace kpt::controller::integration {
namespace {

ControllerConfig elected(const std::string& identity) {
  auto c = config();
  c.leader_elect = true;
  c.lease.namespace_ = "default";
  c.lease.identity = identity;
  c.lease.lease_duration = std::chrono::seconds{3};
  c.lease.renew_deadline = std::chrono::seconds{2};
  c.lease.retry_period = std::chrono::seconds{1};
  return c;
}

class LeaderTakeover : public ControllerIntegration {
 protected:
  std::string holder() {
    auto lease = api->get(kube::resources::leases(), "default", "kubectl-pytorch-controller");
    return lease ? lease->at("spec").value("holderIdentity", std::string{}) : std::string{};
  }
};

TEST_F(LeaderTakeover, WhenTheLeaderDiesWithoutReleasingTheLeaseTheStandbyTakesOverAndFinishesTheJob) {
  auto client_a = client_for(*server);
  auto client_b = client_for(*server);
  auto config_a = elected("a");
  config_a.lease.release_on_stop = false;  // its stop looks like a crash: the lease stays held
  auto leader = std::make_unique<Running>(*client_a, config_a);
  ASSERT_TRUE(eventually([&] { return holder() == "a"; }));
  Running standby(*client_b, elected("b"));
  ASSERT_TRUE(api->create(kube::resources::pytorchjobs(), "default", job(0)));
  ASSERT_TRUE(eventually([&] { return count(kube::resources::pods()) == 3; }));
  EXPECT_EQ(holder(), "a");  // the standby has not written: the leader made all three pods

  leader.reset();  // dies: no renewals, no release
  const auto died = std::chrono::steady_clock::now();
  ASSERT_TRUE(api->create(kube::resources::pytorchjobs(), "default", job(1)));
  ASSERT_TRUE(eventually([&] { return holder() == "b"; }));
  const auto took = std::chrono::steady_clock::now() - died;
  // Within the lease duration of the last renewal, plus one retry period for the standby to look
  // again (and one more of slack for a loaded machine).
  EXPECT_LE(took, std::chrono::seconds{3 + 1 + 1}) << std::chrono::duration<double>(took).count() << " s";
  EXPECT_TRUE(eventually([&] { return all_succeeded(2); }));
  EXPECT_EQ(count(kube::resources::pods()), 6u);
  EXPECT_EQ(count(kube::resources::services()), 6u);
}

}  // namespace
}  // namespace kpt::controller::integration
