#include "model/pytorchjob/gang.hpp"

#include "tests/integration/controller/fixture.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

namespace kpt::controller::integration {
namespace {

const kube::ResourceRef k_volcano{"scheduling.volcano.sh", "v1beta1", "podgroups", "PodGroup", true};
const kube::ResourceRef k_plugins{"scheduling.x-k8s.io", "v1alpha1", "podgroups", "PodGroup", true};

class GangScheduling : public ControllerIntegration {
 protected:
  void install(const std::string& file, const kube::ResourceRef& ref) {
    std::ifstream in(std::string(KPT_SOURCE_DIR) + "/testdata/controller/" + file);
    std::stringstream text;
    text << in.rdbuf();
    auto crd = yaml::yaml_to_json(file, text.str());
    ASSERT_TRUE(crd.has_value()) << crd.error().message;
    auto created = api->create(kube::resources::crds(), "", *crd);
    ASSERT_TRUE(created.has_value()) << created.error().message;
    ASSERT_TRUE(eventually([&] { return api->list(ref, "default", {}).has_value(); }));
  }
  nlohmann::json pod(const std::string& name) {
    auto got = api->get(kube::resources::pods(), "default", name);
    return got ? *got : nlohmann::json();
  }
  std::vector<nlohmann::json> events(const std::string& reason) {
    std::vector<nlohmann::json> out;
    if (auto listed = api->list(kube::resources::events(), "default", {})) {
      for (const auto& e : listed->items) {
        if (e.value("reason", "") == reason) out.push_back(e);
      }
    }
    return out;
  }
};

TEST_F(GangScheduling, WithVolcanoPodsWaitForThePodGroupToBeAdmittedJoinItAndItGoesWhenTheJobEnds) {
  install("podgroup-crd-volcano.yaml", k_volcano);
  auto c = config();
  c.reconciler.gang = model::pytorchjob::parse_gang_scheduler("volcano");
  auto client = client_for(*server);
  Running controller(*client, c);
  auto j = job(0);
  j["spec"]["runPolicy"] = {{"schedulingPolicy", {{"queue", "research"}}}};
  ASSERT_TRUE(api->create(kube::resources::pytorchjobs(), "default", j));
  // Volcano has not admitted the group: Services, but no pods yet (as the operator's
  // DelayPodCreationDueToPodGroup).
  ASSERT_TRUE(eventually([&] { return count(kube::resources::services()) == 3; }));
  auto pg = api->get(k_volcano, "default", "job0");
  ASSERT_TRUE(pg.has_value());
  EXPECT_EQ(count(kube::resources::pods()), 0u);
  (*pg)["status"] = {{"phase", "Inqueue"}};  // plays Volcano's enqueue action
  ASSERT_TRUE(api->update_status(k_volcano, "default", *pg).has_value());
  ASSERT_TRUE(eventually([&] { return count(kube::resources::pods()) == 3; }));
  EXPECT_EQ(pg->at("spec").at("minMember"), 3);
  EXPECT_EQ(pg->at("spec").at("queue"), "research");
  EXPECT_EQ(pg->at("metadata").at("ownerReferences").at(0).at("name"), "job0");
  const auto worker = pod("job0-worker-1");
  EXPECT_EQ(worker["spec"]["schedulerName"], "volcano");
  EXPECT_EQ(worker["metadata"]["annotations"]["scheduling.k8s.io/group-name"], "job0");
  EXPECT_EQ(worker["metadata"]["annotations"]["volcano.sh/task-spec"], "worker");
  EXPECT_EQ(pod("job0-master-0")["metadata"]["annotations"]["volcano.sh/task-spec"], "master");

  EXPECT_TRUE(eventually([&] { return all_succeeded(1); }));
  EXPECT_TRUE(eventually([&] { return !api->get(k_volcano, "default", "job0").has_value(); }));
}

TEST_F(GangScheduling, SchedulerPluginsPodsCarryThePodGroupLabelAndTheFlagsSchedulerName) {
  install("podgroup-crd-x-k8s.yaml", k_plugins);
  auto c = config();
  c.reconciler.gang = model::pytorchjob::parse_gang_scheduler("scheduler-plugins-scheduler");
  auto client = client_for(*server);
  Running controller(*client, c);
  auto j = job(0);
  j["spec"]["runPolicy"] = {{"schedulingPolicy", {{"minAvailable", 2}, {"scheduleTimeoutSeconds", 30}}}};
  ASSERT_TRUE(api->create(kube::resources::pytorchjobs(), "default", j));
  ASSERT_TRUE(eventually([&] { return count(kube::resources::pods()) == 3; }));
  const auto pg = api->get(k_plugins, "default", "job0");
  ASSERT_TRUE(pg.has_value());
  EXPECT_EQ(pg->at("spec"), nlohmann::json::parse(R"({"minMember": 2, "scheduleTimeoutSeconds": 30})"));
  const auto master = pod("job0-master-0");
  EXPECT_EQ(master["spec"]["schedulerName"], "scheduler-plugins-scheduler");
  EXPECT_EQ(master["metadata"]["labels"]["scheduling.x-k8s.io/pod-group"], "job0");
}

TEST_F(GangScheduling, WithoutTheCrdTheJobRunsUngroupedAndSaysSoOnce) {
  auto client = client_for(*server);
  Running controller(*client, config());
  auto j = job(0);
  j["spec"]["runPolicy"] = {{"schedulingPolicy", {{"minAvailable", 3}}}};
  ASSERT_TRUE(api->create(kube::resources::pytorchjobs(), "default", j));
  EXPECT_TRUE(eventually([&] { return all_succeeded(1); }));
  EXPECT_FALSE(pod("job0-worker-0")["spec"].contains("schedulerName"));
  const auto got = api->get(kube::resources::pytorchjobs(), "default", "job0");
  ASSERT_TRUE(got.has_value());
  std::string created_message;
  for (const auto& cond : got->at("status").at("conditions")) {
    if (cond.value("type", "") == "Created") created_message = cond.value("message", "");
  }
  EXPECT_EQ(created_message,
            "PyTorchJob job0 is created. Gang scheduling was asked for but the CRD "
            "'podgroups.scheduling.volcano.sh' is missing; the pods are scheduled without a PodGroup.");
  const auto warnings = events("GangSchedulingUnavailable");
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_EQ(warnings[0].value("message", ""),
            "Gang scheduling was asked for but the CRD 'podgroups.scheduling.volcano.sh' is missing");
  EXPECT_EQ(warnings[0].value("type", ""), "Warning");
}

}  // namespace
}  // namespace kpt::controller::integration
