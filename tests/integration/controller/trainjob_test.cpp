// TrainJobs through the real informers, queue and RestClient, as PyTorchJobs are in
// controller_test.cpp: injected 500s and 429s, cut watches, compacted history (410 Gone on a
// resumed watch), and a controller stopped half-way. Every TrainJob must end Complete with
// exactly its JobSet's pods, one headless Service and one runtime snapshot ConfigMap.
#include "schema/carried/carried_trainer_schema.hpp"
#include "tests/integration/controller/fixture.hpp"
#include "yaml/manifest_reader.hpp"

#include <gtest/gtest.h>

namespace kpt::controller::integration {
namespace {

constexpr int k_nodes = 2;
constexpr const char* k_jobset_label = "jobset.sigs.k8s.io/jobset-name";

nlohmann::json trainjob(int i) {
  return {{"apiVersion", "trainer.kubeflow.org/v1alpha1"},
          {"kind", "TrainJob"},
          {"metadata", {{"name", "tj" + std::to_string(i)}, {"namespace", "default"}}},
          {"spec",
           {{"runtimeRef", {{"name", "torch-distributed"}}},
            {"trainer", {{"numNodes", k_nodes}, {"command", {"torchrun", "train.py"}}}}}}};
}

class TrainJobIntegration : public ControllerIntegration {
 protected:
  void SetUp() override {
    ControllerIntegration::SetUp();
    auto text = std::make_shared<const std::string>(schema::carried_trainer_crds_yaml());
    const auto read = yaml::read_manifests("trainer-crds.yaml", text);
    ASSERT_TRUE(read.findings.empty());
    for (const auto& doc : read.documents) {
      auto created = api->create(kube::resources::crds(), "", yaml::to_json(doc.root));
      ASSERT_TRUE(created.has_value()) << created.error().message;
    }
    ASSERT_TRUE(
        eventually([&] { return api->list(kube::resources::trainjobs(), "default", {}).has_value(); }));
  }

  /// Plays the kubelet for the JobSet pods: they run, and succeed once every node of their
  /// TrainJob exists (torchrun's rendezvous needs all nodes).
  void trainer_kubelet_pass() {
    auto pods = api->list(kube::resources::pods(), "default", {});
    if (!pods) return;
    std::map<std::string, int> per_job;
    for (const auto& pod : pods->items) ++per_job[pod["metadata"]["labels"].value(k_jobset_label, "")];
    for (auto pod : pods->items) {
      const auto phase = pod.value("status", nlohmann::json::object()).value("phase", "");
      const bool complete = per_job[pod["metadata"]["labels"].value(k_jobset_label, "")] == k_nodes;
      if (phase == "Succeeded" || (phase == "Running" && !complete)) continue;
      pod["status"] = {{"phase", phase.empty() || phase == "Pending" ? "Running" : "Succeeded"}};
      (void)api->update_status(kube::resources::pods(), "default", pod);
    }
  }

  bool all_complete(int jobs) {
    trainer_kubelet_pass();
    auto listed = api->list(kube::resources::trainjobs(), "default", {});
    if (!listed || static_cast<int>(listed->items.size()) != jobs) return false;
    for (const auto& j : listed->items) {
      bool complete = false;
      for (const auto& c :
           j.value("status", nlohmann::json::object()).value("conditions", nlohmann::json::array()))
        complete = complete || (c.value("type", "") == "Complete" && c.value("status", "") == "True");
      if (!complete) return false;
    }
    return true;
  }

  /// One of each child per TrainJob, and the pods that a JobSet of k_nodes makes, no more.
  void expect_children(int jobs) {
    auto pods = api->list(kube::resources::pods(), "default", {});
    ASSERT_TRUE(pods.has_value());
    std::map<std::string, int> per_job;
    for (const auto& pod : pods->items) ++per_job[pod["metadata"]["labels"].value(k_jobset_label, "")];
    EXPECT_EQ(per_job.size(), static_cast<std::size_t>(jobs));
    for (const auto& [name, n] : per_job) EXPECT_EQ(n, k_nodes) << name;
    EXPECT_EQ(count(kube::resources::services()), static_cast<std::size_t>(jobs));
    EXPECT_EQ(count(kube::resources::configmaps()), static_cast<std::size_t>(jobs));
  }
};

TEST_F(TrainJobIntegration, EveryTrainJobCompletesWithItsJobSetsChildrenUnderInjectedFaults) {
  constexpr int k_jobs = 8;
  for (int i = 0; i < k_jobs; ++i)
    ASSERT_TRUE(api->create(kube::resources::trainjobs(), "default", trainjob(i)));
  inject_faults(*server);
  auto controller_client = client_for(*server);
  {
    Running c(*controller_client, config());
    EXPECT_TRUE(eventually([&] { return all_complete(k_jobs); }));
  }
  server->set_fault_plan({});
  EXPECT_GT(server->faults_injected(), 0u);
  expect_children(k_jobs);
}

TEST_F(TrainJobIntegration, AControllerStoppedHalfWayConvergesWhenStartedAgain) {
  constexpr int k_jobs = 8;
  for (int i = 0; i < k_jobs; ++i)
    ASSERT_TRUE(api->create(kube::resources::trainjobs(), "default", trainjob(i)));
  auto controller_client = client_for(*server);
  {
    Running first(*controller_client, config());
    EXPECT_TRUE(eventually([&] { return count(kube::resources::pods()) >= 5; }));
  }
  Running second(*controller_client, config());
  EXPECT_TRUE(eventually([&] { return all_complete(k_jobs); }));
  expect_children(k_jobs);
}

}  // namespace
}  // namespace kpt::controller::integration
