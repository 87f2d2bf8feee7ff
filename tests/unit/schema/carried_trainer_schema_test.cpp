#include "schema/carried/carried_trainer_schema.hpp"

#include "schema/structural_schema.hpp"
#include "yaml/manifest_reader.hpp"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

namespace kpt::schema {
namespace {

using model::trainjob::TrainerRelease;

constexpr const char* k_api = "trainer.kubeflow.org/v1alpha1";

// A TrainJob of our own on the default torch runtime; `{extra}` is replaced per case.
constexpr const char* k_trainjob = R"(apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata:
  name: mnist
spec:
  runtimeRef: {name: torch-distributed}
  trainer:
    numNodes: 2
    image: registry.example.com/mnist:1.0
    command: [torchrun, train.py]
    env: [{name: NCCL_DEBUG, value: INFO}]
    resourcesPerNode: {limits: {cpu: "4", memory: 8Gi, nvidia.com/gpu: 1}}
{extra})";

yaml::Document parse_one(const std::string& yaml) {
  auto result = yaml::read_manifests("trainjob.yaml", std::make_shared<const std::string>(yaml));
  EXPECT_TRUE(result.findings.empty()) << result.findings.front().message;
  EXPECT_EQ(result.documents.size(), 1u);
  return result.documents.front();
}

std::string trainjob_with(const std::string& extra) {
  std::string text = k_trainjob;
  text.replace(text.find("{extra}"), 7, extra);
  return text;
}

/// "field: message" of each error the release's TrainJob schema finds.
std::vector<std::string> errors_of(TrainerRelease release, const std::string& yaml) {
  const StructuralSchema* schema = carried_trainer_schema(release).find(k_api, "TrainJob");
  EXPECT_NE(schema, nullptr);
  if (schema == nullptr) return {};
  std::vector<std::string> out;
  for (const auto& d : validate_structure(parse_one(yaml), *schema, StructuralOptions{})) {
    if (d.severity == Severity::error) out.push_back(d.field_path + ": " + d.message);
  }
  return out;
}

TEST(CarriedTrainerSchema, EveryReleaseServesTheThreeKindsAndNamesItsRelease) {
  for (const TrainerRelease release : model::trainjob::k_trainer_releases) {
    SCOPED_TRACE(release.to_string());
    const SchemaSet& set = carried_trainer_schema(release);
    for (const char* kind : {"TrainJob", "TrainingRuntime", "ClusterTrainingRuntime"}) {
      EXPECT_TRUE(is_trainer_kind(kind));
      EXPECT_EQ(set.api_versions(kind), std::vector<std::string>{k_api}) << kind;
    }
    EXPECT_EQ(set.find(k_api, "PyTorchJob"), nullptr);
    EXPECT_EQ(&set, &carried_trainer_schema(release));
  }
  EXPECT_FALSE(is_trainer_kind("PyTorchJob"));
  EXPECT_EQ(carried_trainer_schema({2, 3, 0}).origin(), "carried Trainer v2.3.0");
  // Patch releases that changed no API type share their predecessor's schemas.
  EXPECT_EQ(&carried_trainer_schema({2, 0, 1}), &carried_trainer_schema({2, 0, 0}));
  EXPECT_EQ(&carried_trainer_schema({2, 2, 1}), &carried_trainer_schema({2, 2, 0}));
  EXPECT_NE(&carried_trainer_schema({2, 1, 0}), &carried_trainer_schema({2, 0, 0}));
}

TEST(CarriedTrainerSchema, AcceptsTheSameTrainJobInEveryRelease) {
  for (const TrainerRelease release : model::trainjob::k_trainer_releases) {
    SCOPED_TRACE(release.to_string());
    EXPECT_EQ(errors_of(release, trainjob_with("")), std::vector<std::string>{});
  }
}

TEST(CarriedTrainerSchema, EachReleaseHasItsOwnOverrideField) {
  const std::string v20 = "  podSpecOverrides: [{targetJobs: [{name: node}], serviceAccountName: sa}]\n";
  const std::string v21 =
      "  podTemplateOverrides: [{targetJobs: [{name: node}], spec: {serviceAccountName: sa}}]\n";
  const std::string v22 = "  runtimePatches: [{manager: example.io/team}]\n";
  EXPECT_EQ(errors_of({2, 0, 0}, trainjob_with(v20)), std::vector<std::string>{});
  EXPECT_EQ(errors_of({2, 1, 0}, trainjob_with(v21)), std::vector<std::string>{});
  EXPECT_EQ(errors_of({2, 2, 0}, trainjob_with(v22)), std::vector<std::string>{});
  EXPECT_EQ(errors_of({2, 3, 0}, trainjob_with(v22)), std::vector<std::string>{});
  EXPECT_EQ(errors_of({2, 3, 0}, trainjob_with(v20)),
            std::vector<std::string>{"spec.podSpecOverrides: unknown field 'podSpecOverrides'"});
  EXPECT_EQ(errors_of({2, 0, 0}, trainjob_with(v22)),
            std::vector<std::string>{"spec.runtimePatches: unknown field 'runtimePatches'"});
}

TEST(CarriedTrainerSchema, NumProcPerNodeIsIntOrStringUntilV22) {
  std::string text = trainjob_with("");
  text.replace(text.find("    numNodes: 2\n"), 0, "    numProcPerNode: auto\n");
  EXPECT_EQ(errors_of({2, 1, 0}, text), std::vector<std::string>{});
  const auto v22 = errors_of({2, 2, 0}, text);
  ASSERT_EQ(v22.size(), 1u);
  EXPECT_EQ(v22[0].rfind("spec.trainer.numProcPerNode: ", 0), 0u) << v22[0];
}

}  // namespace
}  // namespace kpt::schema
