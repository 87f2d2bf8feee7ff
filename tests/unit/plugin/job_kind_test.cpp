#include "plugin/follow/job_kind.hpp"

#include "plugin/run/job_builder.hpp"
#include "tests/support/fake_api_client.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace kpt::plugin {
namespace {

using nlohmann::json;

json named(const char* kind, const std::string& name) {
  return {{"kind", kind}, {"metadata", {{"name", name}, {"namespace", "ml"}}}};
}

TEST(JobKind, AManifestsKindPicksItsResource) {
  EXPECT_EQ(kind_of(named("PyTorchJob", "a")), &pytorchjob_kind());
  EXPECT_EQ(kind_of(named("TrainJob", "a")), &trainjob_kind());
  EXPECT_EQ(kind_of(named("TrainingRuntime", "a")), nullptr);
  EXPECT_EQ(kind_of(json::array()), nullptr);
  EXPECT_EQ(resource_name(trainjob_kind(), "a"), "trainjob.trainer.kubeflow.org/a");
  EXPECT_EQ(trainjob_kind().resource().resource, "trainjobs");
}

TEST(JobKind, FinishedByTheKindsOwnConditions) {
  json tj = named("TrainJob", "a");
  tj["status"]["conditions"] = json::array({{{"type", "Complete"}, {"status", "True"}}});
  EXPECT_TRUE(is_finished(trainjob_kind(), tj));
  EXPECT_FALSE(is_finished(pytorchjob_kind(), tj));  // a PyTorchJob ends Succeeded, not Complete
  tj["status"]["conditions"][0]["status"] = "False";
  EXPECT_FALSE(is_finished(trainjob_kind(), tj));
}

class FindJob : public ::testing::Test {
 protected:
  testing::FakeApiClient api;
};

TEST_F(FindJob, ABareNameFindsEitherKind) {
  api.put(kube::resources::trainjobs(), named("TrainJob", "tj"));
  api.put(kube::resources::pytorchjobs(), named("PyTorchJob", "pj"));
  auto tj = find_job(api, "ml", "tj");
  ASSERT_TRUE(tj) << tj.error().message;
  EXPECT_EQ(tj->kind, &trainjob_kind());
  auto pj = find_job(api, "ml", "pj");
  ASSERT_TRUE(pj) << pj.error().message;
  EXPECT_EQ(pj->kind, &pytorchjob_kind());
}

TEST_F(FindJob, BothKindsOfOneNameMustBeToldApart) {
  api.put(kube::resources::trainjobs(), named("TrainJob", "mnist"));
  api.put(kube::resources::pytorchjobs(), named("PyTorchJob", "mnist"));
  auto both = find_job(api, "ml", "mnist");
  ASSERT_FALSE(both);
  EXPECT_EQ(both.error().message,
            "both a pytorchjob and a trainjob are named 'mnist': say pytorchjob/mnist or trainjob/mnist");
  for (const char* ref :
       {"trainjob/mnist", "trainjobs/mnist", "TrainJob/mnist", "trainjobs.trainer.kubeflow.org/mnist"}) {
    auto one = find_job(api, "ml", ref);
    ASSERT_TRUE(one) << ref;
    EXPECT_EQ(one->kind, &trainjob_kind()) << ref;
  }
  auto pj = find_job(api, "ml", "pytorchjob.kubeflow.org/mnist");
  ASSERT_TRUE(pj);
  EXPECT_EQ(pj->kind, &pytorchjob_kind());
}

TEST_F(FindJob, NeitherKindIsNotFoundAndAnUnknownKindIsUsage) {
  auto none = find_job(api, "ml", "gone");
  ASSERT_FALSE(none);
  EXPECT_TRUE(kube::is_not_found(none.error()));
  EXPECT_EQ(none.error().message, "no pytorchjob or trainjob named 'gone' in namespace 'ml'");
  auto bad = find_job(api, "ml", "deployment/x");
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().code, ErrorCode::usage);
  EXPECT_EQ(bad.error().message,
            "unknown kind 'deployment' in 'deployment/x' (use pytorchjob/NAME or trainjob/NAME)");
}

TEST_F(FindJob, AServerErrorIsNotTakenForAbsence) {
  api.put(kube::resources::trainjobs(), named("TrainJob", "tj"));
  api.fail_next("get", 500, "InternalError");
  auto got = find_job(api, "ml", "tj");
  ASSERT_FALSE(got);
  EXPECT_EQ(got.error().http_status, 500);
}

TEST(BuildTrainJob, NodesImageCommandAndProcessesOnTheRuntime) {
  JobRequest r;
  r.name = "t";
  r.ns = "ml";
  r.image = "img";
  r.workers = 2;
  r.runtime = "torch-distributed";
  r.nproc_per_node = "4";
  r.command = {"torchrun", "train.py"};
  auto job = build_trainjob(r);
  ASSERT_TRUE(job) << job.error().message;
  EXPECT_EQ(*job, json::parse(R"({"apiVersion":"trainer.kubeflow.org/v1alpha1","kind":"TrainJob",
    "metadata":{"name":"t","namespace":"ml"},
    "spec":{"runtimeRef":{"kind":"ClusterTrainingRuntime","name":"torch-distributed"},
            "trainer":{"command":["torchrun","train.py"],"image":"img","numNodes":2,"numProcPerNode":4}}})"));
  r.nproc_per_node = "auto";
  auto bad = build_trainjob(r);
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().message, "--nproc-per-node must be a positive integer for a TrainJob (got 'auto')");
  r.nproc_per_node.clear();
  r.workers = 0;
  EXPECT_EQ(build_trainjob(r).error().message, "--nodes must be at least 1");
}

}  // namespace
}  // namespace kpt::plugin
