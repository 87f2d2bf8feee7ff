#include "plugin/doctor/doctor_controller.hpp"

#include "plugin/doctor/doctor_gather.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <functional>

namespace kpt::plugin {
namespace {

using namespace std::chrono_literals;

// 2026-12-06T06:00:00Z
const std::chrono::system_clock::time_point k_now =
    std::chrono::sys_days{std::chrono::year{2026} / 12 / 6} + 6h;

ControllerHealthInfo healthy() {
  ControllerHealthInfo c{CheckState::found,
                         "",
                         "kubectl-pytorch/kubectl-pytorch-controller",
                         2,
                         2,
                         CheckState::found,
                         "",
                         "kubectl-pytorch/kubectl-pytorch-controller",
                         "pod-a",
                         3,
                         true,
                         CheckState::found,
                         "",
                         {}};
  return c;
}

TEST(DoctorController, EachProblemOnCallMustActOnIsOneLine) {
  struct Case {
    const char* name;
    std::function<void(ControllerHealthInfo&)> change;
    std::vector<std::string> problems;
  };
  const std::vector<Case> cases = {
      {"healthy", [](ControllerHealthInfo&) {}, {}},
      {"0/2 ready",
       [](ControllerHealthInfo& c) { c.ready = 0; },
       {"the controller Deployment 'kubectl-pytorch/kubectl-pytorch-controller' has 0/2 ready replicas"}},
      {"scaled to 0",
       [](ControllerHealthInfo& c) { c.desired = c.ready = 0; },
       {"the controller Deployment 'kubectl-pytorch/kubectl-pytorch-controller' has 0/0 ready replicas"}},
      {"lease not renewed",
       [](ControllerHealthInfo& c) {
         c.lease_live = false;
         c.renewed_seconds_ago = 120;
       },
       {"the controller's Lease 'kubectl-pytorch/kubectl-pytorch-controller' was last renewed 120s ago by "
        "'pod-a': no controller leads"}},
      {"no lease",
       [](ControllerHealthInfo& c) { c.lease = CheckState::not_installed; },
       {"the controller's Lease 'kubectl-pytorch/kubectl-pytorch-controller' does not exist: no controller "
        "ever "
        "led"}},
      {"no controller installed: nothing to say of it",
       [](ControllerHealthInfo& c) {
         c.deployment = CheckState::not_installed;
         c.lease_key.clear();
         c.lease = CheckState::not_installed;
       },
       {}},
      {"stuck job",
       [](ControllerHealthInfo& c) {
         c.stuck = {{"ns/a", "Pending", 7}};
       },
       {"PyTorchJob 'ns/a' is Pending for 7 minutes: no controller takes it"}},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    auto info = healthy();
    c.change(info);
    EXPECT_EQ(controller_problems(info), c.problems);
  }
}

TEST(DoctorController, JobsAreStuckAfterFiveMinutesWithoutAConditionOrFifteenCreatedOrRestarting) {
  using nlohmann::json;
  const auto job = [](const char* name, const char* created, json conditions) {
    json j = {{"metadata", {{"name", name}, {"namespace", "ns"}, {"creationTimestamp", created}}}};
    if (!conditions.empty()) j["status"]["conditions"] = conditions;
    return j;
  };
  const auto cond = [](const char* type, const char* at) {
    return json::array({{{"type", type}, {"status", "True"}, {"lastTransitionTime", at}}});
  };
  const std::vector<json> jobs = {
      job("fresh", "2026-12-06T05:58:00Z", json::array()),
      job("pending", "2026-12-06T05:50:00Z", json::array()),
      job("created-long", "2026-12-06T05:00:00Z", cond("Created", "2026-12-06T05:40:00Z")),
      job("created-short", "2026-12-06T05:00:00Z", cond("Created", "2026-12-06T05:50:00Z")),
      job("running", "2026-12-06T01:00:00Z", cond("Running", "2026-12-06T01:00:00Z")),
      job("restarting", "2026-12-06T01:00:00Z", cond("Restarting", "2026-12-06T05:30:00.123456Z")),
  };
  const auto stuck = stuck_jobs(jobs, k_now);
  ASSERT_EQ(stuck.size(), 3u);
  EXPECT_EQ(stuck[0].key, "ns/created-long");
  EXPECT_EQ(stuck[0].minutes, 20);
  EXPECT_EQ(stuck[1].key, "ns/pending");
  EXPECT_EQ(stuck[1].phase, "Pending");
  EXPECT_EQ(stuck[2].key, "ns/restarting");
  EXPECT_EQ(stuck[2].minutes, 30);
}

}  // namespace
}  // namespace kpt::plugin
