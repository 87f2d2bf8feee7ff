#include "model/trainjob/convert_policy.hpp"

#include <gtest/gtest.h>

namespace kpt::model::trainjob {
namespace {

constexpr TrainerRelease k_v20{2, 0, 0};
constexpr TrainerRelease k_v21{2, 1, 0};
constexpr TrainerRelease k_v22{2, 2, 0};
constexpr TrainerRelease k_v23{2, 3, 0};

TEST(PodFieldCarrier, FollowsEachReleasesOverrideType) {
  struct Case {
    const char* key;
    TrainerRelease release;
    Carrier want;
  };
  const Case cases[] = {
      {"nodeSelector", k_v20, Carrier::trainjob_override},
      {"schedulingGates", k_v20, Carrier::trainjob_override},
      {"affinity", k_v20, Carrier::runtime},
      {"affinity", k_v21, Carrier::trainjob_override},
      {"imagePullSecrets", k_v21, Carrier::trainjob_override},
      {"securityContext", k_v21, Carrier::runtime},
      {"securityContext", k_v22, Carrier::trainjob_override},
      {"terminationGracePeriodSeconds", {2, 2, 1}, Carrier::runtime},
      {"terminationGracePeriodSeconds", k_v23, Carrier::trainjob_override},
      {"initContainers", k_v23, Carrier::runtime},
      {"hostNetwork", k_v23, Carrier::runtime},
      {"priorityClassName", k_v23, Carrier::runtime},
      {"hostname", k_v23, Carrier::not_carried},
      {"subdomain", k_v20, Carrier::not_carried},
      {"restartPolicy", k_v23, Carrier::not_carried},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(std::string(c.key) + " " + c.release.to_string());
    EXPECT_EQ(pod_field_carrier(c.key, c.release), c.want);
  }
}

TEST(ContainerFieldCarrier, TrainerFieldsOverridableMountsAndTheRestInARuntime) {
  struct Case {
    const char* key;
    TrainerRelease release;
    Carrier want;
  };
  const Case cases[] = {
      {"image", k_v20, Carrier::trainer},           {"command", k_v23, Carrier::trainer},
      {"resources", k_v23, Carrier::trainer},       {"volumeMounts", k_v20, Carrier::trainjob_override},
      {"securityContext", k_v21, Carrier::runtime}, {"securityContext", k_v22, Carrier::trainjob_override},
      {"ports", k_v23, Carrier::runtime},           {"workingDir", k_v23, Carrier::runtime},
      {"envFrom", k_v23, Carrier::runtime},         {"name", k_v23, Carrier::not_carried},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(std::string(c.key) + " " + c.release.to_string());
    EXPECT_EQ(container_field_carrier(c.key, c.release), c.want);
  }
}

TEST(OverrideName, NamesTheReleasesOverrideField) {
  EXPECT_EQ(override_name(k_v20), "spec.podSpecOverrides");
  EXPECT_EQ(override_name({2, 0, 1}), "spec.podSpecOverrides");
  EXPECT_EQ(override_name(k_v21), "spec.podTemplateOverrides");
  EXPECT_EQ(override_name(k_v22), "a runtime patch");
  EXPECT_FALSE(pod_metadata_overridable({2, 0, 1}));
  EXPECT_TRUE(pod_metadata_overridable(k_v21));
}

TEST(RestartPlan, BackoffLimitRestartsTheGroupAndNeverFailsAtTheFirstPod) {
  struct Case {
    const char* name;
    const char* policy;
    std::optional<std::int64_t> backoff;
    std::optional<std::string> pod;
    std::optional<std::int64_t> job_backoff, max_restarts;
  };
  const Case cases[] = {
      {"the default needs nothing", "", std::nullopt, std::nullopt, std::nullopt, std::nullopt},
      {"OnFailure is JobSet's default", "OnFailure", std::nullopt, std::nullopt, std::nullopt, std::nullopt},
      {"Always is no Job's policy", "Always", std::nullopt, std::nullopt, std::nullopt, std::nullopt},
      {"ExitCode has no plan", "ExitCode", std::nullopt, std::nullopt, std::nullopt, std::nullopt},
      {"Never fails the Job at its first pod", "Never", std::nullopt, "Never", 0, std::nullopt},
      {"backoffLimit restarts the group", "OnFailure", 3, std::nullopt, 0, 3},
      {"backoffLimit 0 still fails at once", "", 0, std::nullopt, 0, 0},
      {"Never with backoffLimit", "Never", 2, "Never", 0, 2},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    const RestartPlan plan = restart_plan(c.policy, c.backoff);
    EXPECT_EQ(plan.pod_restart_policy, c.pod);
    EXPECT_EQ(plan.job_backoff_limit, c.job_backoff);
    EXPECT_EQ(plan.max_restarts, c.max_restarts);
    EXPECT_EQ(plan.needs_runtime(), c.pod || c.job_backoff || c.max_restarts);
  }
}

TEST(JobSetTtl, OnlyAReleaseThatLeavesAFinishedTrainJobAloneGetsOne) {
  struct Case {
    const char* name;
    const char* clean;
    std::optional<std::int64_t> ttl;
    TrainerRelease release;
    std::optional<std::int64_t> want;
  };
  const Case cases[] = {
      {"All deletes at once", "All", 600, k_v20, 0},
      {"the TTL alone", "", 600, {2, 0, 1}, 600},
      {"Running keeps the TTL", "Running", 60, k_v20, 60},
      {"nothing asked", "None", std::nullopt, k_v20, std::nullopt},
      {"v2.1 re-creates any finished JobSet", "All", std::nullopt, k_v21, std::nullopt},
      {"v2.2 re-creates a failed one", "", 600, k_v22, std::nullopt},
      {"v2.3 too", "All", 600, k_v23, std::nullopt},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    EXPECT_EQ(jobset_ttl(c.clean, c.ttl, c.release), c.want);
  }
}

}  // namespace
}  // namespace kpt::model::trainjob
