#include "tests/integration/controller/fixture.hpp"

#include <gtest/gtest.h>

namespace kpt::controller::integration {
namespace {

TEST_F(ControllerIntegration, EveryJobSucceedsWithOneServiceAndPodPerReplicaUnderInjectedFaults) {
  constexpr int k_jobs = 10;
  for (int i = 0; i < k_jobs; ++i)
    ASSERT_TRUE(api->create(kube::resources::pytorchjobs(), "default", job(i)));
  inject_faults(*server);
  auto controller_client = client_for(*server);
  {
    Running c(*controller_client, config());
    EXPECT_TRUE(eventually([&] { return all_succeeded(k_jobs); }));
  }
  server->set_fault_plan({});
  EXPECT_GT(server->faults_injected(), 0u);
  EXPECT_EQ(count(kube::resources::pods()), 3u * k_jobs);
  EXPECT_EQ(count(kube::resources::services()), 3u * k_jobs);
}

TEST_F(ControllerIntegration, AControllerStoppedHalfWayConvergesWhenStartedAgain) {
  constexpr int k_jobs = 10;
  for (int i = 0; i < k_jobs; ++i)
    ASSERT_TRUE(api->create(kube::resources::pytorchjobs(), "default", job(i)));
  auto controller_client = client_for(*server);
  {
    Running first(*controller_client, config());
    EXPECT_TRUE(eventually([&] { return count(kube::resources::pods()) >= 5; }));
  }
  Running second(*controller_client, config());
  EXPECT_TRUE(eventually([&] { return all_succeeded(k_jobs); }));
  EXPECT_EQ(count(kube::resources::pods()), 3u * k_jobs);
  EXPECT_EQ(count(kube::resources::services()), 3u * k_jobs);
}

}  // namespace
}  // namespace kpt::controller::integration
