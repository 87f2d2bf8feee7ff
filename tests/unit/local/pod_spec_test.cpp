#include "local/pod_spec.hpp"

#include "local/torch_probe.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace kpt::local {
namespace {

using nlohmann::json;

json pod_with(json container) {
  return json{{"metadata",
               {{"name", "job-worker-1"},
                {"namespace", "ml"},
                {"uid", "u-1"},
                {"labels", {{"training.kubeflow.org/replica-index", "1"}}}}},
              {"spec", {{"containers", json::array({container})}}}};
}

NodeEnvironment node() {
  NodeEnvironment n;
  n.home = "/home/me";
  n.workdir = "/work/job";
  n.nss_wrapper_library = "/usr/lib/libnss_wrapper.so";
  n.hosts_file = "/state/hosts";
  return n;
}

TEST(PlanLaunches, BuildsEnvInOrderWithFieldRefsAndNameResolutionLast) {
  const json c = {
      {"name", "pytorch"},
      {"command", json::array({"python3", "train.py"})},
      {"args", json::array({"--rank=$(RANK)"})},
      {"env",
       json::array(
           {{{"name", "RANK"}, {"value", "1"}},
            {{"name", "POD"}, {"valueFrom", {{"fieldRef", {{"fieldPath", "metadata.name"}}}}}},
            {{"name", "IDX"},
             {"valueFrom",
              {{"fieldRef", {{"fieldPath", "metadata.labels['training.kubeflow.org/replica-index']"}}}}}},
            {{"name", "RANK"}, {"value", "2"}}})}};
  auto launches = plan_launches(pod_with(c), node());
  ASSERT_TRUE(launches) << launches.error().message;
  ASSERT_EQ(launches->size(), 1u);
  const auto& l = launches->front();
  EXPECT_EQ(l.argv, (std::vector<std::string>{"python3", "train.py", "--rank=2"}));
  EXPECT_EQ(l.workdir, "/work/job");
  EXPECT_EQ(l.env,
            (std::vector<std::string>{"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
                                      "HOME=/home/me", "HOSTNAME=job-worker-1", "RANK=2", "POD=job-worker-1",
                                      "IDX=1", "LD_PRELOAD=/usr/lib/libnss_wrapper.so",
                                      "NSS_WRAPPER_HOSTS=/state/hosts", "NSS_WRAPPER_MAX_HOSTENTS=65536"}));
}

TEST(PlanLaunches, AJobSetPodIsItsHostnameAndATorchrunContainerGetsTheNodesDefaults) {
  json pod = pod_with({{"name", "node"},
                       {"command", json::array({"torchrun", "train.py"})},
                       {"env", json::array({{{"name", "PET_NNODES"}, {"value", "2"}},
                                            {{"name", "PET_TEE"}, {"value", "2"}}})}});
  pod["spec"]["hostname"] = "job-node-0-1";
  pod["spec"]["subdomain"] = "job";
  auto n = node();
  n.nss_wrapper_library.clear();
  n.torchrun_env = {"PET_REDIRECTS=1", "PET_TEE=1"};
  auto launches = plan_launches(pod, n);
  ASSERT_TRUE(launches) << launches.error().message;
  // The container's own PET_TEE wins over the node's default.
  EXPECT_EQ(launches->front().env,
            (std::vector<std::string>{"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
                                      "HOME=/home/me", "HOSTNAME=job-node-0-1", "PET_NNODES=2", "PET_TEE=2",
                                      "PET_REDIRECTS=1"}));
}

TEST(PlanLaunches, TheTorchrunDefaultsStayOutOfContainersWithoutPetNnodes) {
  auto n = node();
  n.nss_wrapper_library.clear();
  n.torchrun_env = {"PET_REDIRECTS=1", "PET_TEE=1"};
  auto launches = plan_launches(pod_with({{"name", "c"}, {"command", json::array({"sleep", "1"})}}), n);
  ASSERT_TRUE(launches) << launches.error().message;
  for (const auto& kv : launches->front().env) EXPECT_EQ(kv.rfind("PET_", 0), std::string::npos) << kv;
}

TEST(TorchrunWorkaroundEnv, OnlyTorchBefore2OnPython311OrLater) {
  const std::vector<std::string> needed{"PET_REDIRECTS=1", "PET_TEE=1"};
  EXPECT_EQ(torchrun_workaround_env("1.13.0a0", "3.11"), needed);
  EXPECT_EQ(torchrun_workaround_env("1.13.1", "3.12"), needed);
  EXPECT_TRUE(torchrun_workaround_env("1.13.1", "3.10").empty());
  EXPECT_TRUE(torchrun_workaround_env("2.0.0", "3.11").empty());
  EXPECT_TRUE(torchrun_workaround_env("2.7.1+cpu", "3.12").empty());
  EXPECT_TRUE(torchrun_workaround_env("", "3.11").empty());
  EXPECT_TRUE(torchrun_workaround_env("1.13.1", "").empty());
}

TEST(PlanLaunches, RefusesAContainerWithoutCommand) {
  auto launches = plan_launches(pod_with({{"name", "pytorch"}, {"image", "x"}}), node());
  ASSERT_FALSE(launches);
  EXPECT_EQ(launches.error().message,
            "container 'pytorch' has no command: the local node runs `command` + `args` and cannot run an "
            "image's entrypoint");
}

TEST(PlanLaunches, AMissingSecretKeepsThePodFromStartingWithTheKubeletsMessage) {
  const json c = {{"name", "pytorch"},
                  {"command", json::array({"true"})},
                  {"env", json::array({{{"name", "PASSWORD"},
                                        {"valueFrom", {{"secretKeyRef", {{"name", "s"}, {"key", "k"}}}}}}})}};
  auto launches = plan_launches(pod_with(c), node());
  ASSERT_FALSE(launches);
  EXPECT_EQ(launches.error().message, "secret \"s\" not found");
  EnvSources sources;
  sources.secrets["s"] = {{"data", {{"other", "eA=="}}}};
  launches = plan_launches(pod_with(c), node(), sources);
  ASSERT_FALSE(launches);
  EXPECT_EQ(launches.error().message, "couldn't find key k in Secret ml/s");
}

TEST(PlanLaunches, ResolvesKeyRefsAndEnvFromWithPrefixesAndOptionalSources) {
  const json c = {
      {"name", "pytorch"},
      {"command", json::array({"true"})},
      {"envFrom", json::array({{{"prefix", "CM_"}, {"configMapRef", {{"name", "settings"}}}},
                               {{"secretRef", {{"name", "absent"}, {"optional", true}}}}})},
      {"env", json::array(
                  {{{"name", "PASSWORD"}, {"valueFrom", {{"secretKeyRef", {{"name", "s"}, {"key", "k"}}}}}},
                   {{"name", "CM_mode"}, {"value", "overridden"}},
                   {{"name", "MAYBE"},
                    {"valueFrom",
                     {{"configMapKeyRef", {{"name", "settings"}, {"key", "nope"}, {"optional", true}}}}}}})}};
  EnvSources sources;
  sources.secrets["s"] = {{"data", {{"k", "czNjcmV0"}}}};
  sources.config_maps["settings"] = {{"data", {{"mode", "fast"}, {"level", "2"}}}};
  auto launches = plan_launches(pod_with(c), node(), sources);
  ASSERT_TRUE(launches) << launches.error().message;
  const auto& env = launches->front().env;
  const auto value = [&](const std::string& name) {
    for (const auto& e : env) {
      if (e.rfind(name + "=", 0) == 0) return e.substr(name.size() + 1);
    }
    return std::string("<unset>");
  };
  EXPECT_EQ(value("PASSWORD"), "s3cret");
  EXPECT_EQ(value("CM_mode"), "overridden");
  EXPECT_EQ(value("CM_level"), "2");
  EXPECT_EQ(value("MAYBE"), "<unset>");
}

TEST(PlanLaunches, RunsInTheAnnotatedWorkdirUnlessTheContainerNamesOne) {
  json p = pod_with({{"name", "pytorch"}, {"command", json::array({"true"})}});
  p["metadata"]["annotations"] = {{k_workdir_annotation, "/home/me/jobs/mnist"}};
  EXPECT_EQ(plan_launches(p, node())->front().workdir, "/home/me/jobs/mnist");
  p["spec"]["containers"][0]["workingDir"] = "/srv";
  EXPECT_EQ(plan_launches(p, node())->front().workdir, "/srv");
  p["spec"]["containers"][0]["workingDir"] = "data";
  EXPECT_EQ(plan_launches(p, node())->front().workdir, "/home/me/jobs/mnist/data");
}

TEST(ExpandReferences, FollowsKubernetesRules) {
  const std::map<std::string, std::string> vars{{"A", "1"}, {"B", "two"}};
  struct Case {
    const char* in;
    const char* out;
  };
  const Case cases[] = {{"$(A)", "1"},    {"x$(B)y", "xtwoy"}, {"$$(A)", "$(A)"},
                        {"$(C)", "$(C)"}, {"$(A", "$(A"},      {"cost $5", "cost $5"}};
  for (const auto& c : cases) {
    SCOPED_TRACE(c.in);
    EXPECT_EQ(expand_references(c.in, vars), c.out);
  }
}

}  // namespace
}  // namespace kpt::local
