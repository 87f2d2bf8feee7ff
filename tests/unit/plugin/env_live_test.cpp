#include "plugin/env/env_live.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace kpt::plugin {
namespace {

using model::pytorchjob::EnvVar;
using model::pytorchjob::ReplicaPodPlan;

ReplicaPodPlan plan(const std::string& name, std::vector<EnvVar> env, std::vector<EnvVar> user = {}) {
  ReplicaPodPlan p;
  p.name = name;
  p.replica_type = "Worker";
  p.env = std::move(env);
  p.user_env = std::move(user);
  return p;
}

TEST(EnvLive, ComparesEachExpectedPodWithTheLiveOneAndNamesEveryDifference) {
  struct Case {
    std::string name;
    std::vector<ReplicaPodPlan> expected;
    std::vector<LivePod> live;
    std::vector<std::string> lines;
    bool differs;
  };
  const std::vector<Case> cases = {
      {"identical env matches",
       {plan("j-worker-0", {{"RANK", "0"}, {"WORLD_SIZE", "2"}})},
       {{"j-worker-0", {{"RANK", "0"}, {"WORLD_SIZE", "2"}}}},
       {"pod j-worker-0: env matches"},
       false},
      {"the user's env counts and the last entry of a name wins",
       {plan("j-worker-0", {{"RANK", "0"}}, {{"FOO", "a"}, {"RANK", "9"}})},
       {{"j-worker-0", {{"FOO", "a"}, {"RANK", "7"}, {"RANK", "0"}}}},
       {"pod j-worker-0: env matches"},
       false},
      {"missing, different and extra vars each get a line",
       {plan("j-worker-0", {{"MASTER_ADDR", "j-worker-0"}, {"RANK", "0"}})},
       {{"j-worker-0", {{"RANK", "1"}, {"SECRET", "(valueFrom)"}}}},
       {"pod j-worker-0: missing 'MASTER_ADDR' (expected 'j-worker-0')",
        "pod j-worker-0: 'RANK' is '1', expected '0'", "pod j-worker-0: extra 'SECRET' = '(valueFrom)'"},
       true},
      {"a missing pod and an unexpected pod are differences",
       {plan("j-worker-0", {}), plan("j-worker-1", {})},
       {{"j-worker-0", {}}, {"j-worker-5", {}}},
       {"pod j-worker-0: env matches", "pod j-worker-1: not found in the cluster",
        "pod j-worker-5: not expected by the style"},
       true},
      {"the progress protocol's env (the controller's TrainJobStatus gate) is never extra",
       {plan("j-worker-0", {{"RANK", "0"}})},
       {{"j-worker-0",
         {{"RANK", "0"},
          {"KUBEFLOW_TRAINER_SERVER_URL", "https://h:1/x"},
          {"KUBEFLOW_TRAINER_SERVER_CA_CERT", "/var/run/secrets/kubeflow/trainer/ca.crt"},
          {"KUBEFLOW_TRAINER_SERVER_TOKEN", "/var/run/secrets/kubeflow/trainer/token"}}}},
       {"pod j-worker-0: env matches"},
       false},
      {"no pods expected and none live", {}, {}, {}, false},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    const auto result = compare_live_env(c.expected, c.live);
    EXPECT_EQ(result.lines, c.lines);
    EXPECT_EQ(result.differs, c.differs);
  }
}

TEST(EnvLive, ReadsThePytorchContainersEnvWithValueFromMarked) {
  const auto pod = nlohmann::json::parse(R"({
    "metadata": {"name": "j-worker-0"},
    "spec": {"containers": [
      {"name": "sidecar", "env": [{"name": "NOISE", "value": "x"}]},
      {"name": "pytorch", "env": [
        {"name": "RANK", "value": "0"},
        {"name": "TOKEN", "valueFrom": {"secretKeyRef": {"name": "s", "key": "k"}}},
        {"name": "EMPTY"}]}]}
  })");
  const auto live = live_pod_from_json(pod);
  EXPECT_EQ(live.name, "j-worker-0");
  const std::vector<EnvVar> want = {{"RANK", "0"}, {"TOKEN", "(valueFrom)"}, {"EMPTY", ""}};
  EXPECT_EQ(live.env, want);
}

TEST(EnvLive, APodWithoutContainersHasNoEnv) {
  const auto live = live_pod_from_json(nlohmann::json::parse(R"({"metadata": {"name": "p"}, "spec": {}})"));
  EXPECT_EQ(live.name, "p");
  EXPECT_TRUE(live.env.empty());
}

}  // namespace
}  // namespace kpt::plugin
