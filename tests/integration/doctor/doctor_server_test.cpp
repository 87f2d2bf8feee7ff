// doctor and live validate against the embedded API server: the fixtures of testdata/doctor are
// created through our REST client, then detected and compiled as a user's cluster would be.
#include "apiserver/api_server.hpp"
#include "kube/rest_client.hpp"
#include "plugin/doctor/doctor_gather.hpp"
#include "plugin/validate/live_schema.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>

namespace kpt::plugin {
namespace {

using nlohmann::json;

kube::ResourceRef ref_of(const json& obj) {
  const std::string kind = obj.value("kind", "");
  if (kind == "Namespace") return kube::resources::namespaces();
  if (kind == "Deployment") return kube::resources::deployments();
  if (kind == "CustomResourceDefinition") return kube::resources::crds();
  return {"admissionregistration.k8s.io", "v1", "validatingwebhookconfigurations",
          "ValidatingWebhookConfiguration", false};
}

class DoctorServer : public ::testing::Test {
 protected:
  void SetUp() override {
    apiserver::ServerOptions options;
    options.tls = false;
    m_server = std::make_unique<apiserver::ApiServer>(options);
    auto port = m_server->start();
    ASSERT_TRUE(port) << port.error().message;
    kube::ConnectionFlags flags;
    flags.server = m_server->url();
    auto client = kube::make_client(flags, {{"HOME", "/nonexistent"}});
    ASSERT_TRUE(client) << client.error().message;
    m_api = std::move(*client);
    m_cache =
        std::filesystem::temp_directory_path() /
        ("kpt-doctor-it-" + std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
    std::filesystem::remove_all(m_cache);
  }
  void TearDown() override {
    if (m_server) m_server->stop();
    std::filesystem::remove_all(m_cache);
  }

  void install(const std::string& name) {
    std::ifstream in(std::string(KPT_SOURCE_DIR) + "/testdata/doctor/" + name + ".json");
    ASSERT_TRUE(in) << name;
    const json list = json::parse(in);
    for (const auto& item : list["items"]) {
      const auto ref = ref_of(item);
      auto made = m_api->create(ref, ref.namespaced ? item["metadata"].value("namespace", "") : "", item);
      ASSERT_TRUE(made) << made.error().message;
    }
  }

  std::unique_ptr<apiserver::ApiServer> m_server;
  std::unique_ptr<kube::ApiClient> m_api;
  std::filesystem::path m_cache;
};

TEST_F(DoctorServer, TheInstallsOfEachReleaseAreDetectedThroughTheRestClient) {
  install("v1.8.1");
  auto report = gather_doctor_report(*m_api, m_server->url(), "default");
  ASSERT_TRUE(report) << report.error().message;
  EXPECT_EQ(report->operator_deployment.ns, "kubeflow");
  EXPECT_EQ(report->crd.controller_gen, "v0.14.0");
  EXPECT_EQ(report->webhook, CheckState::found);
  EXPECT_EQ(report->verdict.kind, Verdict::Kind::agree);
  EXPECT_EQ(report->verdict.release->to_string(), "v1.8.1");
  ASSERT_EQ(report->permissions.size(), 2u);
  EXPECT_TRUE(report->permissions[0].allowed);
  auto detection = detect_release(*m_api);
  ASSERT_TRUE(detection);
  ASSERT_TRUE(detection->crd.has_value());
  EXPECT_EQ(detection->verdict.release->to_string(), "v1.8.1");
}

TEST_F(DoctorServer, TheOpenApiDocumentOfTheServerCompilesIntoThePyTorchJobSchema) {
  install("tight-crd");
  auto live = schema_from_openapi(*m_api, m_cache);
  ASSERT_TRUE(live) << live.error().message;
  ASSERT_TRUE(live->has_value());
  EXPECT_NE((*live)->set.find("kubeflow.org/v1", "PyTorchJob"), nullptr);
  EXPECT_FALSE((*live)->cache_hit);
  auto again = schema_from_openapi(*m_api, m_cache);
  ASSERT_TRUE(again && again->has_value());
  EXPECT_TRUE((*again)->cache_hit);
}

TEST_F(DoctorServer, WithoutTheCrdTheServerPublishesNoPyTorchJobSchema) {
  auto live = schema_from_openapi(*m_api, m_cache);
  ASSERT_TRUE(live) << live.error().message;
  EXPECT_FALSE(live->has_value());
}

}  // namespace
}  // namespace kpt::plugin
