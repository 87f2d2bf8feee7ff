#include "schema/trainer_fingerprint.hpp"

#include "schema/carried/carried_trainer_schema.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace kpt::schema {
namespace {

using model::trainjob::TrainerRelease;
using nlohmann::json;

json crd_with(const json& spec_properties) {
  return {{"spec",
           {{"versions",
             json::array({{{"name", "v1alpha1"},
                           {"schema",
                            {{"openAPIV3Schema",
                              {{"properties", {{"spec", {{"properties", spec_properties}}}}}}}}}}})}}}};
}

TEST(TrainerFingerprint, EachReleasesOverrideFieldNamesItsReleases) {
  struct Case {
    std::string name;
    json spec;
    std::vector<TrainerRelease> want;
  };
  const json patch_v22 = {{"items", {{"properties", {{"manager", {{"type", "string"}}}}}}}};
  const json patch_v23 = {
      {"items", {{"properties", {{"terminationGracePeriodSeconds", {{"type", "integer"}}}}}}}};
  const std::vector<Case> cases = {
      {"v2.0 podSpecOverrides", {{"podSpecOverrides", json::object()}}, {{2, 0, 0}, {2, 0, 1}}},
      {"v2.1 podTemplateOverrides", {{"podTemplateOverrides", json::object()}}, {{2, 1, 0}}},
      {"v2.2 runtimePatches", {{"runtimePatches", patch_v22}}, {{2, 2, 0}, {2, 2, 1}}},
      {"v2.3 terminationGracePeriodSeconds in the patches", {{"runtimePatches", patch_v23}}, {{2, 3, 0}}},
      {"v2.3 storageUri rule",
       {{"runtimePatches", patch_v22},
        {"initializer", {{"x-kubernetes-validations", {{{"message", "storageUri may be empty, or ..."}}}}}}},
       {{2, 3, 0}}},
      {"none of them", {{"trainer", json::object()}}, {}},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    EXPECT_EQ(trainer_releases_matching_crd(crd_with(c.spec)), c.want);
  }
  EXPECT_TRUE(trainer_releases_matching_crd(json::array()).empty());
  EXPECT_TRUE(trainer_releases_matching_crd(json{{"spec", {{"versions", 3}}}}).empty());
}

TEST(TrainerFingerprint, TheCarriedV23TrainJobCrdIsV23) {
  const std::string text(carried_trainer_crds_yaml());
  std::size_t found = 0;
  for (std::size_t at = text.find("---\n"); at != std::string::npos; at = text.find("---\n", at + 4)) {
    const auto end = text.find('\n', at + 4);
    const json crd = json::parse(text.substr(at + 4, end - at - 4));
    if (crd["metadata"]["name"] != "trainjobs.trainer.kubeflow.org") continue;
    ++found;
    EXPECT_EQ(trainer_releases_matching_crd(crd), (std::vector<TrainerRelease>{{2, 3, 0}}));
  }
  EXPECT_EQ(found, 1u);
}

}  // namespace
}  // namespace kpt::schema
