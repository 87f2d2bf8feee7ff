#include "local/container_security.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace kpt::local {
namespace {

using nlohmann::json;

json pod_with(json pod_sc, json container) {
  json spec = {{"containers", json::array({container})}};
  if (!pod_sc.is_null()) spec["securityContext"] = std::move(pod_sc);
  return {{"metadata", {{"name", "p"}, {"namespace", "team"}, {"uid", "u-1"}}}, {"spec", spec}};
}

json container_with(json sc) {
  json c = {{"name", "main"}, {"command", {"true"}}};
  if (!sc.is_null()) c["securityContext"] = std::move(sc);
  return c;
}

NodeUser root_node() {
  return {0, 0, [](unsigned uid) { return std::optional<unsigned>(uid == 1000 ? 100 : 7); }};
}
NodeUser user_node() { return {1000, 1000, {}}; }

Expected<ContainerSecurity> plan(const json& pod_sc, const json& sc, const NodeUser& node) {
  const json c = container_with(sc);
  return plan_container_security(pod_with(pod_sc, c), c, node);
}

TEST(ContainerSecurity, RunAsNonRootNeverRunsAsRoot) {
  struct Case {
    const char* name;
    json pod_sc;
    json sc;
    NodeUser node;
    std::optional<std::string> error;
  };
  const std::vector<Case> cases = {
      {"a root node without runAsUser",
       nullptr,
       {{"runAsNonRoot", true}},
       root_node(),
       "container has runAsNonRoot and image will run as root (pod: \"p_team(u-1)\", container: main)"},
      {"the pod's runAsNonRoot",
       {{"runAsNonRoot", true}},
       nullptr,
       root_node(),
       "container has runAsNonRoot and image will run as root (pod: \"p_team(u-1)\", container: main)"},
      {"runAsUser 0",
       {{"runAsNonRoot", true}},
       {{"runAsUser", 0}},
       user_node(),
       "container's runAsUser breaks non-root policy (pod: \"p_team(u-1)\", container: main)"},
      {"the container's false wins over the pod's true",
       {{"runAsNonRoot", true}},
       {{"runAsNonRoot", false}},
       root_node(),
       std::nullopt},
      {"a root node with a runAsUser",
       nullptr,
       {{"runAsNonRoot", true}, {"runAsUser", 1000}},
       root_node(),
       std::nullopt},
      {"a node that is not root", nullptr, {{"runAsNonRoot", true}}, user_node(), std::nullopt},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    auto got = plan(c.pod_sc, c.sc, c.node);
    if (c.error) {
      ASSERT_FALSE(got);
      EXPECT_EQ(got.error().message, *c.error);
    } else {
      EXPECT_TRUE(got) << got.error().message;
    }
  }
}

TEST(ContainerSecurity, ARootNodeSwitchesToTheUserGroupsAndDropsCapabilities) {
  auto got = plan({{"supplementalGroups", {5, 6}}, {"fsGroup", 2000}},
                  {{"runAsUser", 1000},
                   {"allowPrivilegeEscalation", false},
                   {"capabilities", {{"drop", {"NET_RAW", "CAP_SYS_ADMIN"}}}}},
                  root_node());
  ASSERT_TRUE(got) << got.error().message;
  EXPECT_TRUE(got->set_identity);
  EXPECT_EQ(got->uid, 1000u);
  EXPECT_EQ(got->gid, 100u);  // the user's primary group, as the host's passwd has it
  EXPECT_EQ(got->groups, (std::vector<unsigned>{5, 6, 2000}));
  EXPECT_TRUE(got->no_new_privs);
  EXPECT_EQ(got->drop_capabilities, (std::vector<int>{13, 21}));
  EXPECT_TRUE(got->not_enforced.empty());
  auto all = plan(nullptr, {{"runAsGroup", 3}, {"capabilities", {{"drop", {"ALL"}}}}}, root_node());
  ASSERT_TRUE(all);
  EXPECT_EQ(all->uid, 0u);
  EXPECT_EQ(all->gid, 3u);
  EXPECT_EQ(all->drop_capabilities.size(), 41u);
}

TEST(ContainerSecurity, WhatANodeCannotHonourIsSaid) {
  const json sc = {{"runAsUser", 0},
                   {"privileged", true},
                   {"readOnlyRootFilesystem", true},
                   {"capabilities", {{"add", {"NET_ADMIN"}}, {"drop", {"ALL"}}}}};
  json c = container_with(sc);
  c["resources"] = {{"limits", {{"cpu", "2"}, {"memory", "1Gi"}, {"nvidia.com/gpu", 1}}}};
  auto got = plan_container_security(pod_with(nullptr, c), c, user_node());
  ASSERT_TRUE(got) << got.error().message;
  EXPECT_FALSE(got->set_identity);
  EXPECT_TRUE(got->drop_capabilities.empty());  // processes of a node that is not root have none
  ASSERT_TRUE(got->memory_limit);
  EXPECT_EQ(*got->memory_limit, 1073741824u);
  EXPECT_EQ(
      got->not_enforced,
      (std::vector<std::string>{
          "securityContext.runAsUser 0 is not honoured: the local node runs every process as uid 1000 (only "
          "a node that runs as root can switch users)",
          "securityContext.privileged is not honoured: processes run with the local node's own privileges",
          "securityContext.capabilities.add [NET_ADMIN] is not granted: processes have the local node's own "
          "capabilities",
          "securityContext.readOnlyRootFilesystem is not enforced: there is no image filesystem, processes "
          "see the host's files with the node user's rights",
          "resources.limits.cpu 2 is not enforced: the local node has no cgroup for its pods",
          "resources.limits.nvidia.com/gpu 1 is not enforced: the local node has no cgroup for its pods and "
          "shares every device of the host"}));
}

TEST(PodNotEnforced, NamesEveryVolumeAndWhereItWouldBeMounted) {
  json pod = pod_with(nullptr, container_with(nullptr));
  pod["spec"]["containers"][0]["volumeMounts"] = {{{"name", "data"}, {"mountPath", "/data"}},
                                                  {{"name", "shm"}, {"mountPath", "/dev/shm"}}};
  pod["spec"]["volumes"] = {{{"name", "data"}, {"hostPath", {{"path", "/mnt/d"}}}},
                            {{"name", "shm"}, {"emptyDir", {{"medium", "Memory"}}}}};
  EXPECT_EQ(
      pod_not_enforced(pod),
      (std::vector<std::string>{
          "volume 'data' (hostPath '/mnt/d') is not mounted at '/data': local pods see the host's "
          "filesystem at its own paths",
          "volume 'shm' (emptyDir) is not mounted at '/dev/shm': local pods see the host's filesystem at "
          "its own paths"}));
}

TEST(CapabilityNumber, KnowsKubernetesAndLinuxSpellings) {
  EXPECT_EQ(capability_number("CHOWN"), 0);
  EXPECT_EQ(capability_number("CAP_NET_ADMIN"), 12);
  EXPECT_EQ(capability_number("CHECKPOINT_RESTORE"), 40);
  EXPECT_EQ(capability_number("NET_MAGIC"), std::nullopt);
}

}  // namespace
}  // namespace kpt::local
