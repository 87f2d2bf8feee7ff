#include "model/pytorchjob/desired_state.hpp"

#include "tests/unit/model/pytorchjob/env_fixtures.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace kpt::model::pytorchjob {
namespace {

using nlohmann::json;
using testing::make_job;

ReplicaPodPlan plan_for(const json& job, const EnvStyle& style, const std::string& pod) {
  const auto plan = plan_replica_pods(job, style);
  EXPECT_TRUE(plan.has_value());
  for (const auto& p : *plan) {
    if (p.name == pod) return p;
  }
  ADD_FAILURE() << "no pod " << pod;
  return {};
}

TEST(DesiredPod, WorkerOfAV194MasterJobMatchesTheOperatorsPod) {
  json job = make_job("mnist", 1, 1);
  auto& worker = job["spec"]["pytorchReplicaSpecs"]["Worker"];
  worker["restartPolicy"] = "ExitCode";
  worker["template"]["metadata"] = {{"labels", {{"team", "a"}, {"training.kubeflow.org/job-name", "spoof"}}}};
  worker["template"]["spec"]["containers"][0]["env"] = json::array({{{"name", "A"}, {"value", "1"}}});
  worker["template"]["spec"]["containers"].push_back({{"name", "sidecar"}, {"image", "s"}});
  const EnvStyle style{StyleKind::operator_release, Release{1, 9, 4}};
  const json pod = desired_pod(job, plan_for(job, style, "mnist-worker-0"), style);
  const json want = json::parse(R"({
    "apiVersion": "v1", "kind": "Pod",
    "metadata": {
      "name": "mnist-worker-0", "namespace": "team-a",
      "labels": {"team": "a", "training.kubeflow.org/job-name": "mnist",
                 "training.kubeflow.org/operator-name": "pytorchjob-controller",
                 "training.kubeflow.org/replica-index": "0", "training.kubeflow.org/replica-type": "worker"},
      "ownerReferences": [{"apiVersion": "kubeflow.org/v1", "kind": "PyTorchJob", "name": "mnist", "uid": "uid-1",
                           "controller": true, "blockOwnerDeletion": true}]
    },
    "spec": {
      "restartPolicy": "Never",
      "containers": [
        {"name": "pytorch", "image": "busybox",
         "ports": [{"name": "pytorchjob-port", "containerPort": 23456}],
         "env": [{"name": "A", "value": "1"},
                 {"name": "PYTHONUNBUFFERED", "value": "1"}, {"name": "MASTER_PORT", "value": "23456"},
                 {"name": "PET_MASTER_PORT", "value": "23456"}, {"name": "MASTER_ADDR", "value": "mnist-master-0"},
                 {"name": "PET_MASTER_ADDR", "value": "mnist-master-0"}, {"name": "WORLD_SIZE", "value": "2"},
                 {"name": "RANK", "value": "1"}, {"name": "PET_NODE_RANK", "value": "1"},
                 {"name": "PET_NPROC_PER_NODE", "value": "auto"}, {"name": "PET_NNODES", "value": "2"}]},
        {"name": "sidecar", "image": "s",
         "env": [{"name": "PYTHONUNBUFFERED", "value": "1"}, {"name": "MASTER_PORT", "value": "23456"},
                 {"name": "PET_MASTER_PORT", "value": "23456"}, {"name": "MASTER_ADDR", "value": "mnist-master-0"},
                 {"name": "PET_MASTER_ADDR", "value": "mnist-master-0"}, {"name": "WORLD_SIZE", "value": "2"},
                 {"name": "RANK", "value": "1"}, {"name": "PET_NODE_RANK", "value": "1"},
                 {"name": "PET_NPROC_PER_NODE", "value": "auto"}, {"name": "PET_NNODES", "value": "2"}]}
      ],
      "initContainers": [
        {"name": "init-pytorch", "image": "alpine:3.10", "imagePullPolicy": "IfNotPresent",
         "command": ["sh", "-c", "err=1;for i in $(seq 100); do if nslookup mnist-master-0; then err=0 && break; fi;echo waiting for master; sleep 2; done; exit $err"],
         "resources": {"limits": {"cpu": "100m", "memory": "20Mi"}, "requests": {"cpu": "50m", "memory": "10Mi"}}}
      ]
    }
  })");
  EXPECT_EQ(pod, want) << pod.dump(2);
}

TEST(DesiredPod, InitContainerAndDefaultPortFollowTheRelease) {
  struct Case {
    std::string name;
    std::string style;
    json job;
    std::string pod;
    bool init;
    bool port;
  };
  const std::vector<Case> cases = {
      {"v1.3 worker: no init container, no default port", "v1.3.0", make_job("m", 1, 1), "m-worker-0", false,
       false},
      {"v1.3 master: default port", "v1.3.0", make_job("m", 1, 1), "m-master-0", false, true},
      {"v1.4 worker: init container", "v1.4.0", make_job("m", 1, 1), "m-worker-0", true, true},
      {"v1.9.4 master: no init container", "v1.9.4", make_job("m", 1, 1), "m-master-0", false, true},
      {"v1.9.4 worker-only job: no init container", "v1.9.4", make_job("w", 0, 2), "w-worker-1", false, true},
      {"worker-only style: no init container", "worker-only", make_job("m", 1, 1), "m-worker-0", false, true},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    const auto style = *parse_style(c.style);
    const json pod = desired_pod(c.job, plan_for(c.job, style, c.pod), style);
    EXPECT_EQ(pod["spec"].contains("initContainers"), c.init);
    EXPECT_EQ(pod["spec"]["containers"][0].contains("ports"), c.port);
    EXPECT_EQ(pod["spec"]["restartPolicy"], "OnFailure");
  }
  const auto v14 = *parse_style("v1.4.0");
  const json job = make_job("m", 1, 1);
  EXPECT_EQ(
      desired_pod(job, plan_for(job, v14, "m-worker-0"), v14)["spec"]["initContainers"][0]["command"][2],
      "until nslookup m-master-0; do echo waiting for master; sleep 2; done;");
}

TEST(DesiredService, IsHeadlessSelectsTheReplicaAndCarriesThePytorchPorts) {
  json job = make_job("w", 0, 2);
  job["spec"]["pytorchReplicaSpecs"]["Worker"]["template"]["spec"]["containers"][0]["ports"] =
      json::array({{{"name", "metrics"}, {"containerPort", 9090}}});
  const EnvStyle style{};
  const json svc = desired_service(job, plan_for(job, style, "w-worker-1"), style);
  const json want = json::parse(R"({
    "apiVersion": "v1", "kind": "Service",
    "metadata": {
      "name": "w-worker-1", "namespace": "team-a",
      "labels": {"app.kubernetes.io/name": "w", "training.kubeflow.org/job-name": "w",
                 "training.kubeflow.org/operator-name": "pytorchjob-controller",
                 "training.kubeflow.org/replica-index": "1", "training.kubeflow.org/replica-type": "worker"},
      "ownerReferences": [{"apiVersion": "kubeflow.org/v1", "kind": "PyTorchJob", "name": "w", "uid": "uid-1",
                           "controller": true, "blockOwnerDeletion": true}]
    },
    "spec": {
      "clusterIP": "None",
      "selector": {"app.kubernetes.io/name": "w", "training.kubeflow.org/job-name": "w",
                   "training.kubeflow.org/operator-name": "pytorchjob-controller",
                   "training.kubeflow.org/replica-index": "1", "training.kubeflow.org/replica-type": "worker"},
      "ports": [{"name": "metrics", "port": 9090}, {"name": "pytorchjob-port", "port": 23456}]
    }
  })");
  EXPECT_EQ(svc, want) << svc.dump(2);
  const auto v13 = *parse_style("v1.3.0");
  const json mj = make_job("m", 1, 1);
  EXPECT_FALSE(desired_service(mj, plan_for(mj, v13, "m-worker-0"), v13)["spec"].contains("ports"));
}

}  // namespace
}  // namespace kpt::model::pytorchjob
