#include "model/trainjob/status_protocol.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace kpt::model::trainjob {
namespace {

using nlohmann::json;

const StatusTarget k_job{StatusTarget::Kind::trainjob, "default", "test-job"};

TEST(StatusProtocol, PathAndAudienceAreTrainersForATrainJobAndOursForAPyTorchJob) {
  EXPECT_EQ(status_path(k_job),
            "/apis/trainer.kubeflow.org/v1alpha1/namespaces/default/trainjobs/test-job/status");
  EXPECT_EQ(status_audience(k_job),
            "trainer.kubeflow.org/v1alpha1/namespaces/default/trainjobs/test-job/status");
  const StatusTarget py{StatusTarget::Kind::pytorchjob, "ml", "mnist"};
  EXPECT_EQ(status_path(py), "/apis/kubeflow.org/v1/namespaces/ml/pytorchjobs/mnist/status");
  EXPECT_EQ(status_audience(py), "kubeflow.org/v1/namespaces/ml/pytorchjobs/mnist/status");
}

TEST(StatusProtocol, OnlyAPostToOneOfTheTwoRoutesHasATarget) {
  struct Case {
    const char* name;
    const char* method;
    const char* path;
    std::optional<StatusTarget> want;
  };
  const Case cases[] = {
      {"trainjob", "POST", "/apis/trainer.kubeflow.org/v1alpha1/namespaces/default/trainjobs/test-job/status",
       k_job},
      {"pytorchjob", "POST", "/apis/kubeflow.org/v1/namespaces/ml/pytorchjobs/mnist/status",
       StatusTarget{StatusTarget::Kind::pytorchjob, "ml", "mnist"}},
      {"GET is the catch-all", "GET",
       "/apis/trainer.kubeflow.org/v1alpha1/namespaces/default/trainjobs/test-job/status", std::nullopt},
      {"PUT too", "PUT", "/apis/trainer.kubeflow.org/v1alpha1/namespaces/default/trainjobs/test-job/status",
       std::nullopt},
      {"no status", "POST", "/apis/trainer.kubeflow.org/v1alpha1/namespaces/default/trainjobs/test-job",
       std::nullopt},
      {"extra segment", "POST", "/apis/trainer.kubeflow.org/v1alpha1/namespaces/default/trainjobs/a/b/status",
       std::nullopt},
      {"empty name", "POST", "/apis/trainer.kubeflow.org/v1alpha1/namespaces/default/trainjobs//status",
       std::nullopt},
      {"other plural", "POST", "/apis/trainer.kubeflow.org/v1alpha1/namespaces/default/jobsets/a/status",
       std::nullopt},
      {"root", "POST", "/", std::nullopt},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    EXPECT_EQ(route_status_request(c.method, c.path), c.want);
  }
}

json pod_spec() {
  return {{"initContainers", json::array({{{"name", "init"}, {"image", "busybox"}}})},
          {"containers",
           json::array({{{"name", "node"},
                         {"image", "pytorch"},
                         {"env", json::array({{{"name", "KUBEFLOW_TRAINER_SERVER_URL"}, {"value", "mine"}},
                                              {{"name", "A"}, {"value", "1"}}})}},
                        {{"name", "sidecar"}, {"image", "x"}}})}};
}

TEST(StatusProtocol, InjectionIsTrainersEnvMountAndProjectedVolumeInEveryRegularContainer) {
  json spec = pod_spec();
  inject_status_client(spec, k_job, "https://kubeflow-trainer-controller-manager.kubeflow-system.svc:10443");
  const json env = {
      {{"name", "KUBEFLOW_TRAINER_SERVER_URL"},
       {"value",
        "https://kubeflow-trainer-controller-manager.kubeflow-system.svc:10443/apis/trainer.kubeflow.org/"
        "v1alpha1/"
        "namespaces/default/trainjobs/test-job/status"}},
      {{"name", "A"}, {"value", "1"}},
      {{"name", "KUBEFLOW_TRAINER_SERVER_CA_CERT"}, {"value", "/var/run/secrets/kubeflow/trainer/ca.crt"}},
      {{"name", "KUBEFLOW_TRAINER_SERVER_TOKEN"}, {"value", "/var/run/secrets/kubeflow/trainer/token"}}};
  EXPECT_EQ(spec["containers"][0]["env"], env);
  const json mount = {{"name", "kubeflow-trainer-token"},
                      {"mountPath", "/var/run/secrets/kubeflow/trainer"},
                      {"readOnly", true}};
  EXPECT_EQ(spec["containers"][0]["volumeMounts"], json::array({mount}));
  EXPECT_EQ(spec["containers"][1]["volumeMounts"], json::array({mount}));
  EXPECT_EQ(spec["containers"][1]["env"].size(), 3u);
  EXPECT_FALSE(spec["initContainers"][0].contains("env"));
  EXPECT_FALSE(spec["initContainers"][0].contains("volumeMounts"));
  const json volume = json::parse(R"({"name":"kubeflow-trainer-token","projected":{"sources":[
      {"serviceAccountToken":{"audience":"trainer.kubeflow.org/v1alpha1/namespaces/default/trainjobs/test-job/status",
                              "expirationSeconds":3600,"path":"token"}},
      {"configMap":{"name":"test-job-tls-config","items":[{"key":"ca.crt","path":"ca.crt"}]}}]}})");
  EXPECT_EQ(spec["volumes"], json::array({volume}));
  // Injecting twice changes nothing (an upsert, as Trainer's).
  json again = spec;
  inject_status_client(again, k_job, "https://kubeflow-trainer-controller-manager.kubeflow-system.svc:10443");
  EXPECT_EQ(again, spec);
}

TEST(StatusProtocol, AJobSetGetsItInTheFirstTrainerAncestorJobOnly) {
  const auto job = [](const char* name, const char* ancestor) {
    json j = {{"name", name}, {"template", {{"spec", {{"template", {{"spec", pod_spec()}}}}}}}};
    if (ancestor != nullptr)
      j["template"]["metadata"]["labels"]["trainer.kubeflow.org/trainjob-ancestor-step"] = ancestor;
    return j;
  };
  json jobset = {{"spec",
                  {{"replicatedJobs", json::array({job("dataset-initializer", "dataset-initializer"),
                                                   job("launcher", "trainer"), job("node", nullptr)})}}}};
  ASSERT_TRUE(inject_status_client_into_jobset(jobset, k_job, "https://h:1"));
  const auto& jobs = jobset["spec"]["replicatedJobs"];
  EXPECT_FALSE(jobs[0]["template"]["spec"]["template"]["spec"].contains("volumes"));
  EXPECT_TRUE(jobs[1]["template"]["spec"]["template"]["spec"].contains("volumes"));
  EXPECT_FALSE(jobs[2]["template"]["spec"]["template"]["spec"].contains("volumes"));
  json none = {{"spec", {{"replicatedJobs", json::array({job("node", nullptr)})}}}};
  EXPECT_FALSE(inject_status_client_into_jobset(none, k_job, "https://h:1"));
}

TEST(StatusProtocol, TheCaConfigMapIsControlledByTheJob) {
  const json cm = tls_config_map(k_job, "trainer.kubeflow.org/v1alpha1", "TrainJob", "uid-1", "PEM");
  EXPECT_EQ(cm, json::parse(R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"test-job-tls-config",
      "namespace":"default","ownerReferences":[{"apiVersion":"trainer.kubeflow.org/v1alpha1","kind":"TrainJob",
      "name":"test-job","uid":"uid-1","controller":true,"blockOwnerDeletion":true}]},"data":{"ca.crt":"PEM"}})"));
}

}  // namespace
}  // namespace kpt::model::trainjob
