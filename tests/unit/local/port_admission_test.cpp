#include "local/port_admission.hpp"

#include "local/pod_run.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace kpt::local {
namespace {

using nlohmann::json;

json pod(const std::string& name, const json& labels, const json& ports) {
  return {
      {"metadata", {{"name", name}, {"namespace", "default"}, {"uid", name + "-uid"}, {"labels", labels}}},
      {"spec",
       {{"restartPolicy", "Never"},
        {"containers",
         json::array({{{"name", "c"}, {"command", json::array({"true"})}, {"ports", ports}}})}}}};
}

json port(int n, const std::string& protocol = "TCP") {
  return {{"containerPort", n}, {"protocol", protocol}};
}

TEST(PortUse, GroupsAJobsPodsByTheOperatorsJobLabel) {
  const auto master =
      port_use(pod("a-master-0", {{"training.kubeflow.org/job-name", "a"}}, json::array({port(23456)})));
  const auto worker =
      port_use(pod("a-worker-0", {{"training.kubeflow.org/job-name", "a"}}, json::array({port(23456)})));
  EXPECT_EQ(master.group, worker.group);
  EXPECT_EQ(master.pod, "default/a-master-0");
  EXPECT_EQ(master.ports, (std::set<int>{23456}));
  const auto node =
      port_use(pod("t-node-0-0-x", {{"jobset.sigs.k8s.io/jobset-name", "t"}}, json::array({port(29500)})));
  const auto other =
      port_use(pod("u-node-0-0-x", {{"jobset.sigs.k8s.io/jobset-name", "u"}}, json::array({port(29500)})));
  EXPECT_NE(node.group, other.group);
}

TEST(PortUse, FallsBackToTheControllerThenToThePodAlone) {
  json a = pod("rs-a", json::object(), json::array({port(80)}));
  json b = pod("rs-b", json::object(), json::array({port(80)}));
  for (json* p : {&a, &b})
    (*p)["metadata"]["ownerReferences"] = json::array({{{"uid", "rs-1"}, {"controller", true}}});
  EXPECT_EQ(port_use(a).group, port_use(b).group);
  EXPECT_NE(port_use(pod("x", json::object(), json::array())).group,
            port_use(pod("y", json::object(), json::array())).group);
}

TEST(PortUse, CountsTcpContainerAndHostPortsOnly) {
  json ports = json::array({port(1),
                            port(53, "UDP"),
                            {{"containerPort", 8080}, {"hostPort", 80}},
                            {{"containerPort", "x"}},
                            port(70000)});
  EXPECT_EQ(port_use(pod("p", json::object(), ports)).ports, (std::set<int>{1, 80, 8080}));
}

TEST(FindPortConflict, AnotherJobsPodOnTheSamePortConflictsTheSameJobsDoesNot) {
  const auto a0 =
      port_use(pod("a-master-0", {{"training.kubeflow.org/job-name", "a"}}, json::array({port(23456)})));
  const auto a1 =
      port_use(pod("a-worker-0", {{"training.kubeflow.org/job-name", "a"}}, json::array({port(23456)})));
  const auto b0 =
      port_use(pod("b-master-0", {{"training.kubeflow.org/job-name", "b"}}, json::array({port(23456)})));
  const auto c0 =
      port_use(pod("c-master-0", {{"training.kubeflow.org/job-name", "c"}}, json::array({port(23457)})));
  EXPECT_FALSE(find_port_conflict(a1, {a0}));
  EXPECT_FALSE(find_port_conflict(c0, {a0, a1}));
  const auto conflict = find_port_conflict(b0, {c0, a0});
  ASSERT_TRUE(conflict);
  EXPECT_EQ(conflict->port, 23456);
  EXPECT_EQ(conflict->holder, "default/a-master-0");
  EXPECT_EQ(
      unschedulable_message(*conflict),
      "0/1 nodes are available: 1 node(s) didn't have free ports for the requested pod ports. (local node: "
      "port 23456 is held by pod default/a-master-0 of another job; local pods share the host's network, so "
      "this pod starts when it ends)");
}

TEST(PodRun, AnUnschedulablePodStartsNothingAndReportsAsKubeSchedulerLeavesIt) {
  NodeEnvironment node;
  auto run = make_pod_run(pod("b-master-0", json::object(), json::array({port(23456)})), node, "t0");
  run.unschedulable = "0/1 nodes are available: ...";
  EXPECT_TRUE(due_starts(run, SteadyTime{}).empty());
  mark_conditions(run, "t0");
  const json status = pod_status(run, node);
  EXPECT_EQ(status, json::parse(R"({"phase": "Pending", "qosClass": "BestEffort", "conditions": [
    {"type": "PodScheduled", "status": "False", "reason": "Unschedulable",
     "message": "0/1 nodes are available: ...", "lastProbeTime": null, "lastTransitionTime": "t0"}]})"));
  run.unschedulable.clear();
  run.start_time = "t1";
  EXPECT_EQ(due_starts(run, SteadyTime{}).size(), 1u);
  mark_conditions(run, "t1");
  const json admitted = pod_status(run, node);
  EXPECT_EQ(admitted["conditions"][0]["type"], "PodScheduled");
  EXPECT_EQ(admitted["conditions"][0]["status"], "True");
  EXPECT_EQ(admitted["conditions"][0]["lastTransitionTime"], "t1");
  EXPECT_EQ(admitted["startTime"], "t1");
}

}  // namespace
}  // namespace kpt::local
