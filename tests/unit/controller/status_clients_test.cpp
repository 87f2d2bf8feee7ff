#include "controller/status_clients.hpp"

#include "controller/expectations.hpp"
#include "controller/object_cache.hpp"
#include "controller/reconciler.hpp"
#include "controller/trainjob_reconciler.hpp"
#include "tests/support/fake_api_client.hpp"
#include "tests/unit/controller/informer_replay.hpp"

#include <gtest/gtest.h>

namespace kpt::controller {
namespace {

using kpt::testing::FakeApiClient;
using nlohmann::json;

const StatusClientConfig k_clients{"https://localhost:4443", "CA PEM"};

std::map<std::string, std::string> env_of(const json& container) {
  std::map<std::string, std::string> out;
  for (const auto& e : container.value("env", json::array())) out[e["name"]] = e.value("value", "");
  return out;
}

class StatusClientsTest : public ::testing::Test {
 protected:
  StatusClientsTest() : clock(std::chrono::sys_days{std::chrono::year{2026} / 11 / 29}) {}

  FakeApiClient api;
  util::FakeClock clock;
  JobCache jobs;
  ChildCache pods{ChildCache::Kind::pods};
  ChildCache services{ChildCache::Kind::services};
  JobCache trainjobs;
  ChildCache tj_pods{ChildCache::Kind::trainjob_pods};
  ChildCache tj_services{ChildCache::Kind::trainjob_services};
  ChildCache jobsets{ChildCache::Kind::trainjob_jobsets};
  Expectations expectations{clock};
};

TEST_F(StatusClientsTest, ATrainJobsNodesGetTheProtocolAndTheJobItsCaConfigMap) {
  TrainJobReconciler reconciler{api, clock,
                                TrainJobOptions{.emit_events = false, .status_clients = k_clients},
                                TrainJobCaches{trainjobs, tj_pods, tj_services, jobsets, expectations}};
  api.put(kube::resources::trainjobs(),
          {{"apiVersion", "trainer.kubeflow.org/v1alpha1"},
           {"kind", "TrainJob"},
           {"metadata", {{"name", "mnist"}, {"namespace", "ns"}}},
           {"spec", {{"runtimeRef", {{"name", "torch-distributed"}}}, {"trainer", {{"numNodes", 2}}}}}});
  replay_informers(api, tj_pods, tj_services, trainjobs, expectations, "trainjobs", "mnist");
  ASSERT_FALSE(reconciler.reconcile("ns/mnist").error.has_value());
  const auto names = api.names("pods", "ns");
  ASSERT_EQ(names.size(), 2u);
  for (const auto& name : names) {
    const json pod = api.object("pods", "ns", name);
    const auto env = env_of(pod["spec"]["containers"][0]);
    EXPECT_EQ(
        env.at("KUBEFLOW_TRAINER_SERVER_URL"),
        "https://localhost:4443/apis/trainer.kubeflow.org/v1alpha1/namespaces/ns/trainjobs/mnist/status");
    EXPECT_EQ(env.at("KUBEFLOW_TRAINER_SERVER_TOKEN"), "/var/run/secrets/kubeflow/trainer/token");
    EXPECT_EQ(pod["spec"]["volumes"].back()["name"], "kubeflow-trainer-token");
  }
  const json cm = api.object("configmaps", "ns", "mnist-tls-config");
  EXPECT_EQ(cm["data"]["ca.crt"], "CA PEM");
  EXPECT_EQ(cm["metadata"]["ownerReferences"][0]["kind"], "TrainJob");
  int applies = 0;
  for (const auto& c : api.calls()) {
    if (c.verb == "patch" && c.resource == "configmaps") {
      ++applies;
      EXPECT_EQ(c.field_manager, "trainer");
    }
  }
  EXPECT_EQ(applies, 1);

  // The trainer's report survives the controller's own status writes.
  api.merge(
      "trainjobs", "ns", "mnist",
      {{"status",
        {{"trainerStatus", {{"progressPercentage", 42}, {"lastUpdatedTime", "2026-11-29T00:00:00Z"}}}}}});
  for (const auto& name : names) {
    api.merge("pods", "ns", name,
              {{"status",
                {{"phase", "Succeeded"}, {"containerStatuses", {{{"name", "node"}, {"restartCount", 0}}}}}}});
  }
  replay_informers(api, tj_pods, tj_services, trainjobs, expectations, "trainjobs", "mnist");
  ASSERT_FALSE(reconciler.reconcile("ns/mnist").error.has_value());
  const json status = api.object("trainjobs", "ns", "mnist")["status"];
  EXPECT_EQ(status["conditions"].back()["type"], "Complete");
  EXPECT_EQ(status["trainerStatus"]["progressPercentage"], 42);
}

TEST_F(StatusClientsTest, APyTorchJobsPodsGetItTooWithOurRoute) {
  ReconcilerOptions options;
  options.status_clients = k_clients;
  Reconciler reconciler{api, clock, options, ReconcilerCaches{jobs, pods, services, expectations}};
  api.put(
      kube::resources::pytorchjobs(),
      json::parse(
          R"({"apiVersion":"kubeflow.org/v1","kind":"PyTorchJob","metadata":{"name":"mnist","namespace":"ns"},
            "spec":{"pytorchReplicaSpecs":{"Worker":{"replicas":2,"template":{"spec":{"containers":[
              {"name":"pytorch","image":"x"}]}}}}}})"));
  replay_informers(api, pods, services, jobs, expectations, "pytorchjobs", "mnist");
  ASSERT_FALSE(reconciler.reconcile("ns/mnist").error.has_value());
  const auto names = api.names("pods", "ns");
  ASSERT_EQ(names.size(), 2u);
  for (const auto& name : names) {
    const auto env = env_of(api.object("pods", "ns", name)["spec"]["containers"][0]);
    EXPECT_EQ(env.at("KUBEFLOW_TRAINER_SERVER_URL"),
              "https://localhost:4443/apis/kubeflow.org/v1/namespaces/ns/pytorchjobs/mnist/status");
  }
  EXPECT_EQ(api.object("configmaps", "ns", "mnist-tls-config")["metadata"]["ownerReferences"][0]["kind"],
            "PyTorchJob");
}

TEST_F(StatusClientsTest, WithoutTheGateNothingIsInjected) {
  StatusClients none(api, std::nullopt, "trainer");
  json spec = {{"containers", json::array({{{"name", "node"}}})}};
  none.inject(spec, {model::trainjob::StatusTarget::Kind::trainjob, "ns", "mnist"});
  EXPECT_FALSE(spec["containers"][0].contains("env"));
  EXPECT_FALSE(none.enabled());
  ASSERT_TRUE(none.ensure_ca(json{{"metadata", {{"uid", "u"}}}},
                             {model::trainjob::StatusTarget::Kind::trainjob, "ns", "mnist"},
                             "trainer.kubeflow.org/v1alpha1", "TrainJob"));
  EXPECT_EQ(api.count("patch"), 0);
}

}  // namespace
}  // namespace kpt::controller
