#include "local/running_workloads.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace kpt::local {
namespace {

using nlohmann::json;

json pod(const std::string& name, const std::string& phase, json labels = json::object(), bool taken = true,
         int grace = -1) {
  json p = {{"metadata", {{"name", name}, {"namespace", "default"}, {"labels", labels}}},
            {"spec", json::object()},
            {"status", {{"phase", phase}}}};
  if (taken) p["spec"]["nodeName"] = "kubectl-pytorch-local";
  if (grace >= 0) p["spec"]["terminationGracePeriodSeconds"] = grace;
  return p;
}

TEST(RunningWorkloads, NamesTheJobsThePodsBelongToAndTheLongestGrace) {
  const json job = {{"training.kubeflow.org/job-name", "mnist"}};
  const json jobset = {{"jobset.sigs.k8s.io/jobset-name", "tj"}};
  json owned = pod("web-1", "Running");
  owned["metadata"]["ownerReferences"] = {{{"kind", "ReplicaSet"}, {"name", "web"}, {"controller", true}}};
  const auto got = running_workloads(
      {pod("mnist-worker-0", "Running", job, true, 60), pod("mnist-worker-1", "Pending", job),
       pod("tj-node-0-0", "Running", jobset, true, 5), pod("done", "Succeeded"),
       pod("waiting", "Pending", json::object(), false), pod("bare", "Running"), owned});
  EXPECT_EQ(got.lines,
            (std::vector<std::string>{"pod default/bare", "pytorchjob default/mnist (2 pods)",
                                      "replicaset default/web (1 pod)", "trainjob default/tj (1 pod)"}));
  EXPECT_EQ(got.longest_grace_seconds, 60);
  EXPECT_TRUE(running_workloads({pod("done", "Failed")}).lines.empty());
}

}  // namespace
}  // namespace kpt::local
