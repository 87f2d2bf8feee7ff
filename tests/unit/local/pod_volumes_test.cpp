#include "local/pod_volumes.hpp"

#include "model/trainjob/status_protocol.hpp"

#include <gtest/gtest.h>

namespace kpt::local {
namespace {

using nlohmann::json;

json trainer_pod() {
  json spec = {{"containers", json::array({{{"name", "node"}, {"command", {"python3"}}}})}};
  model::trainjob::inject_status_client(spec, {model::trainjob::StatusTarget::Kind::trainjob, "ml", "mnist"},
                                        "https://localhost:4443");
  return {{"metadata", {{"name", "mnist-node-0-0"}, {"namespace", "ml"}, {"uid", "u1"}}}, {"spec", spec}};
}

TEST(PodVolumes, TheTrainerVolumeIsATokenAndTheCaKey) {
  ProjectedFile token;
  token.volume = "kubeflow-trainer-token";
  token.path = "token";
  token.audience = "trainer.kubeflow.org/v1alpha1/namespaces/ml/trainjobs/mnist/status";
  ProjectedFile ca;
  ca.volume = "kubeflow-trainer-token";
  ca.path = "ca.crt";
  ca.source = ProjectedFile::Source::config_map;
  ca.object = "mnist-tls-config";
  ca.key = "ca.crt";
  EXPECT_EQ(projected_files(trainer_pod()), (std::vector<ProjectedFile>{token, ca}));
}

TEST(PodVolumes, UnsafeItemPathsAndOtherVolumesAreLeftOut) {
  const json pod = json::parse(R"({"spec":{"volumes":[
    {"name":"a","projected":{"sources":[{"serviceAccountToken":{"path":"../t"}},
                                        {"secret":{"name":"s","items":[{"key":"k","path":"/abs"},{"key":"k2","path":"ok"}]}},
                                        {"downwardAPI":{"items":[]}}]}},
    {"name":"b","emptyDir":{}}]}})");
  const auto files = projected_files(pod);
  ASSERT_EQ(files.size(), 1u);
  EXPECT_EQ(files[0].path, "ok");
  EXPECT_EQ(files[0].source, ProjectedFile::Source::secret);
}

TEST(PodVolumes, EnvPathsUnderAMountPointIntoThePodsFolder) {
  const json pod = trainer_pod();
  std::vector<ContainerLaunch> launches(1);
  launches[0].name = "node";
  launches[0].env = {"KUBEFLOW_TRAINER_SERVER_TOKEN=/var/run/secrets/kubeflow/trainer/token",
                     "KUBEFLOW_TRAINER_SERVER_CA_CERT=/var/run/secrets/kubeflow/trainer/ca.crt",
                     "DIR=/var/run/secrets/kubeflow/trainer", "OTHER=/var/run/secrets/kubeflow/trainerx",
                     "KUBEFLOW_TRAINER_SERVER_URL=https://localhost:4443/x"};
  remap_mounted_paths(launches, pod, {"kubeflow-trainer-token"}, "/state/volumes/u1");
  EXPECT_EQ(launches[0].env,
            (std::vector<std::string>{
                "KUBEFLOW_TRAINER_SERVER_TOKEN=/state/volumes/u1/kubeflow-trainer-token/token",
                "KUBEFLOW_TRAINER_SERVER_CA_CERT=/state/volumes/u1/kubeflow-trainer-token/ca.crt",
                "DIR=/state/volumes/u1/kubeflow-trainer-token", "OTHER=/var/run/secrets/kubeflow/trainerx",
                "KUBEFLOW_TRAINER_SERVER_URL=https://localhost:4443/x"}));
  std::vector<ContainerLaunch> unmounted = launches;
  unmounted[0].env = {"T=/var/run/secrets/kubeflow/trainer/token"};
  remap_mounted_paths(unmounted, pod, {}, "/state/volumes/u1");
  EXPECT_EQ(unmounted[0].env, std::vector<std::string>{"T=/var/run/secrets/kubeflow/trainer/token"});
}

}  // namespace
}  // namespace kpt::local
