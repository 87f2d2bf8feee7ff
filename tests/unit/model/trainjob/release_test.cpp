#include "model/trainjob/release.hpp"

#include <gtest/gtest.h>

namespace kpt::model::trainjob {
namespace {

TEST(TrainerRelease, ParsesKnownReleasesInEverySpelling) {
  EXPECT_EQ(parse_trainer_release("v2.3.0"), (TrainerRelease{2, 3, 0}));
  EXPECT_EQ(parse_trainer_release("2.0.1"), (TrainerRelease{2, 0, 1}));
  EXPECT_EQ(parse_trainer_release("trainer@v2.2.1"), (TrainerRelease{2, 2, 1}));
}

TEST(TrainerRelease, RejectsUnknownAndMalformedReleases) {
  for (const char* text :
       {"v2.4.0", "v1.9.4", "v2.3", "v2.3.0.1", "v2.3.x", "", "v", "2..0", "v2.3.0 ", "v-2.3.0"}) {
    SCOPED_TRACE(text);
    EXPECT_EQ(parse_trainer_release(text), std::nullopt);
  }
}

TEST(TrainerRelease, FormatsComparesAndKnowsTheNewest) {
  EXPECT_EQ((TrainerRelease{2, 2, 1}).to_string(), "v2.2.1");
  EXPECT_LT((TrainerRelease{2, 0, 1}), (TrainerRelease{2, 1, 0}));
  EXPECT_TRUE((TrainerRelease{2, 2, 1}).at_least(2, 1));
  EXPECT_FALSE((TrainerRelease{2, 2, 0}).at_least(2, 1));
  EXPECT_EQ(k_newest_trainer_release, k_trainer_releases.back());
  EXPECT_EQ(known_trainer_releases_list(), "v2.0.0, v2.0.1, v2.1.0, v2.2.0, v2.2.1, v2.3.0");
}

TEST(TrainerRelease, FeatureTableFollowsEachTag) {
  struct Case {
    TrainerRelease release;
    OverrideApi overrides;
    ResourcesMode resources;
    NprocRule nproc;
    bool int_or_string, env_injection, snapshot, deadline, managed_by_skip, either_suspended;
    const char* image;
    const char* jobset;
  };
  const Case cases[] = {
      {{2, 0, 0},
       OverrideApi::pod_spec_overrides,
       ResourcesMode::replace,
       NprocRule::trainjob_limits_first,
       true,
       false,
       false,
       false,
       false,
       false,
       "pytorch/pytorch:2.7.1-cuda12.8-cudnn9-runtime",
       "v0.8.2"},
      {{2, 0, 1},
       OverrideApi::pod_spec_overrides,
       ResourcesMode::replace,
       NprocRule::trainjob_limits_first,
       true,
       false,
       false,
       false,
       false,
       false,
       "pytorch/pytorch:2.7.1-cuda12.8-cudnn9-runtime",
       "v0.8.2"},
      {{2, 1, 0},
       OverrideApi::pod_template_overrides,
       ResourcesMode::replace,
       NprocRule::trainjob_or_runtime_requests_first,
       true,
       false,
       false,
       false,
       false,
       false,
       "pytorch/pytorch:2.7.1-cuda12.8-cudnn9-runtime",
       "v0.10.1"},
      {{2, 2, 0},
       OverrideApi::runtime_patches,
       ResourcesMode::replace,
       NprocRule::trainjob_or_runtime_requests_first,
       false,
       false,
       false,
       true,
       false,
       false,
       "pytorch/pytorch:2.10.0-cuda12.8-cudnn9-runtime",
       "v0.11.1"},
      {{2, 2, 1},
       OverrideApi::runtime_patches,
       ResourcesMode::replace,
       NprocRule::trainjob_or_runtime_requests_first,
       false,
       false,
       false,
       true,
       false,
       true,
       "pytorch/pytorch:2.10.0-cuda12.8-cudnn9-runtime",
       "v0.11.1"},
      {{2, 3, 0},
       OverrideApi::runtime_patches,
       ResourcesMode::merge,
       NprocRule::trainjob_or_runtime_requests_first,
       false,
       true,
       true,
       true,
       true,
       true,
       "pytorch/pytorch:2.13.0-cuda13.0-cudnn9-runtime",
       "v0.12.0"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.release.to_string());
    const ReleaseFeatures& f = features_of(c.release);
    EXPECT_EQ(f.overrides, c.overrides);
    EXPECT_EQ(f.resources, c.resources);
    EXPECT_EQ(f.nproc, c.nproc);
    EXPECT_EQ(f.num_proc_int_or_string, c.int_or_string);
    EXPECT_EQ(f.accepts_cpu_num_proc, c.int_or_string);
    EXPECT_EQ(f.runtime_num_proc_per_node, c.int_or_string);
    EXPECT_EQ(f.spec_labels_annotations, c.int_or_string);
    EXPECT_EQ(f.env_injection, c.env_injection);
    EXPECT_EQ(f.runtime_snapshot, c.snapshot);
    EXPECT_EQ(f.active_deadline, c.deadline);
    EXPECT_EQ(f.immutable_cel_rules, c.deadline);
    EXPECT_EQ(f.jax_xgboost, c.deadline);
    EXPECT_EQ(f.skips_external_managed_by, c.managed_by_skip);
    EXPECT_EQ(f.torchtune_arg_checks, c.managed_by_skip);
    EXPECT_EQ(f.storage_uri_cel, c.managed_by_skip);
    EXPECT_EQ(f.patches_when_either_suspended, c.either_suspended);
    EXPECT_EQ(f.name_cel_rules, c.release.at_least(1));
    EXPECT_EQ(f.jobs_status, c.release.at_least(1));
    EXPECT_EQ(f.stops_when_finished, !c.release.at_least(1));
    EXPECT_EQ(f.rebuilds_when_finished, c.release.minor == 1);
    EXPECT_EQ(f.runtime_finalizers, !c.release.at_least(3));
    EXPECT_STREQ(f.pytorch_image, c.image);
    EXPECT_STREQ(f.jobset_version, c.jobset);
  }
  EXPECT_EQ(features_of({2, 2, 0}).patch_scope, PatchScope::per_replicated_job);
  EXPECT_EQ(features_of({2, 3, 0}).patch_scope, PatchScope::whole_jobset_spec);
  EXPECT_EQ(features_of({2, 0, 0}).torchtune, TorchtuneRecipes::full_only);
  EXPECT_EQ(features_of({2, 2, 1}).torchtune, TorchtuneRecipes::lora_substring);
  EXPECT_EQ(features_of({2, 3, 0}).torchtune, TorchtuneRecipes::lora_boolean_values);
}

}  // namespace
}  // namespace kpt::model::trainjob
