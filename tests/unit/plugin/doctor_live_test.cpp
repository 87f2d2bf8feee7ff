// doctor's gathering, live schemas and server dry runs against a scripted ApiClient.
#include "plugin/context.hpp"
#include "plugin/doctor/doctor_gather.hpp"
#include "plugin/validate/live_schema.hpp"
#include "plugin/validate/live_validate.hpp"
#include "plugin/validate/server_dry_run.hpp"
#include "tests/unit/plugin/doctor_fake_client.hpp"
#include "yaml/manifest_reader.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <sstream>

namespace kpt::plugin {
namespace {

using nlohmann::json;
using testing::ScriptedClient;

json pytorchjob_schema(bool with_managed_by) {
  json run_policy = {{"type", "object"}, {"properties", {{"backoffLimit", {{"type", "integer"}}}}}};
  if (with_managed_by) run_policy["properties"]["managedBy"] = {{"type", "string"}};
  return {{"type", "object"},
          {"properties",
           {{"apiVersion", {{"type", "string"}}},
            {"kind", {{"type", "string"}}},
            {"metadata", {{"type", "object"}}},
            {"spec", {{"type", "object"}, {"properties", {{"runPolicy", run_policy}}}}}}}};
}

json crd(const std::string& rv, bool with_managed_by) {
  return {{"apiVersion", "apiextensions.k8s.io/v1"},
          {"kind", "CustomResourceDefinition"},
          {"metadata",
           {{"name", "pytorchjobs.kubeflow.org"},
            {"uid", "u-1"},
            {"resourceVersion", rv},
            {"annotations", {{"controller-gen.kubebuilder.io/version", "v0.12.0"}}}}},
          {"spec",
           {{"group", "kubeflow.org"},
            {"scope", "Namespaced"},
            {"names", {{"kind", "PyTorchJob"}, {"plural", "pytorchjobs"}, {"singular", "pytorchjob"}}},
            {"versions",
             {{{"name", "v1"},
               {"served", true},
               {"storage", true},
               {"schema", {{"openAPIV3Schema", pytorchjob_schema(with_managed_by)}}}}}}}}};
}

std::string openapi_doc() {
  json s = pytorchjob_schema(true);
  s["properties"]["metadata"] = {{"allOf", {{{"$ref", "#/components/schemas/io.k8s.ObjectMeta"}}}}};
  s["x-kubernetes-group-version-kind"] = {
      {{"group", "kubeflow.org"}, {"version", "v1"}, {"kind", "PyTorchJob"}}};
  return json{{"openapi", "3.0.0"}, {"components", {{"schemas", {{"org.kubeflow.v1.PyTorchJob", s}}}}}}
      .dump();
}

json deployment(const std::string& ns, const std::string& name, const std::string& image) {
  return {{"metadata", {{"namespace", ns}, {"name", name}}},
          {"spec", {{"template", {{"spec", {{"containers", {{{"name", name}, {"image", image}}}}}}}}}}};
}

class TempDir {
 public:
  TempDir() {
    m_path = std::filesystem::temp_directory_path() /
             ("kpt-doctor-" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) + "-" +
              ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(m_path);
    std::filesystem::create_directories(m_path);
  }
  ~TempDir() { std::filesystem::remove_all(m_path); }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  [[nodiscard]] const std::filesystem::path& path() const { return m_path; }

 private:
  std::filesystem::path m_path;
};

yaml::Document parse(const std::string& yaml) {
  auto text = std::make_shared<const std::string>(yaml);
  auto read = yaml::read_manifests("job.yaml", text, {});
  EXPECT_EQ(read.documents.size(), 1u);
  return read.documents.front();
}

TEST(DoctorGather, AForbiddenCheckSaysSoAndTheReportGoesOn) {
  ScriptedClient api;
  api.lists.emplace("deployments",
                    ScriptedClient::error(403, "deployments.apps is forbidden: user 'u' cannot list"));
  api.objects.emplace("customresourcedefinitions/pytorchjobs.kubeflow.org", crd("5", false));
  api.lists.emplace("customresourcedefinitions", ScriptedClient::error(403, "crds are forbidden"));
  api.allowed = false;
  auto r = gather_doctor_report(api, "https://k", "team");
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(r->operator_deployment.state, CheckState::forbidden);
  EXPECT_EQ(r->operator_deployment.message, "deployments.apps is forbidden: user 'u' cannot list");
  EXPECT_EQ(r->crd.state, CheckState::found);
  EXPECT_EQ(r->crd.served_versions, std::vector<std::string>{"v1"});
  EXPECT_EQ(r->webhook, CheckState::not_installed);
  EXPECT_EQ(r->crd_list, CheckState::forbidden);
  ASSERT_EQ(r->permissions.size(), 2u);
  EXPECT_EQ(r->permissions[0].resource, "pytorchjobs.kubeflow.org");
  EXPECT_FALSE(r->permissions[0].allowed);
  EXPECT_EQ(r->permissions[1].resource, "pods");
  EXPECT_EQ(r->verdict.kind, Verdict::Kind::unknown);  // the hand-made CRD matches no release
  EXPECT_EQ(api.calls,
            (std::vector<std::string>{
                "list deployments", "list deployments@kubeflow",
                "get customresourcedefinitions/pytorchjobs.kubeflow.org",
                "get validatingwebhookconfigurations/validator.training-operator.kubeflow.org",
                "list customresourcedefinitions",
                // the CRD list is forbidden: Trainer's CRD is asked for by name
                "get customresourcedefinitions/trainjobs.trainer.kubeflow.org",
                "post /apis/authorization.k8s.io/v1/selfsubjectaccessreviews pytorchjobs",
                "post /apis/authorization.k8s.io/v1/selfsubjectaccessreviews pods", "list pods", "list pods",
                // our controller: its Deployment (by label), then the jobs for stuck ones
                "list deployments", "list pytorchjobs"}));
  EXPECT_EQ(r->trainer.crd, CheckState::not_installed);
}

TEST(DoctorGather, TheImageSpeaksWhenTheCrdMayNotBeRead) {
  ScriptedClient api;
  api.lists.emplace(
      "deployments",
      kube::ListResult{
          {deployment("ops", "training-operator", "kubeflow/training-operator:v1-855e096")}, "1", ""});
  api.objects.emplace("customresourcedefinitions/pytorchjobs.kubeflow.org", ScriptedClient::error(403, "no"));
  auto r = gather_doctor_report(api, "https://k", "default");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->operator_deployment.ns, "ops");
  EXPECT_EQ(r->crd.state, CheckState::forbidden);
  EXPECT_EQ(r->verdict.kind, Verdict::Kind::image);
  EXPECT_EQ(r->verdict.release->to_string(), "v1.7.0");
}

TEST(DoctorGather, WhenDeploymentsMayNotBeListedEverywhereTheInstallNamespacesAreTried) {
  ScriptedClient api;
  api.lists.emplace("deployments", ScriptedClient::error(403, "deployments.apps is forbidden"));
  api.lists.emplace(
      "deployments@kubeflow",
      kube::ListResult{
          {deployment("kubeflow", "training-operator", "kubeflow/training-operator:v1-04f9f13")}, "1", ""});
  auto r = gather_doctor_report(api, "https://k", "default");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->operator_deployment.state, CheckState::found);
  EXPECT_EQ(r->operator_deployment.ns, "kubeflow");
  EXPECT_EQ(r->trainer_deployment.state, CheckState::forbidden);
  EXPECT_EQ(r->trainer_deployment.message, "deployments.apps is forbidden");
  EXPECT_EQ(r->verdict.release->to_string(), "v1.8.1");
}

TEST(DoctorGather, TrainerV2IsFoundByNameAndItsVersionReadFromItsConfigMapWhenTheTagSaysNothing) {
  ScriptedClient api;
  api.lists.emplace(
      "deployments",
      kube::ListResult{{deployment("kubeflow-system", "kubeflow-trainer-controller-manager",
                                   "ghcr.io/kubeflow/trainer/trainer-controller-manager:latest")},
                       "1",
                       ""});
  api.objects.emplace("configmaps/kubeflow-trainer-public",
                      json{{"data", {{"kubeflow_trainer_version", "v2.2.0"}}}});
  auto r = gather_doctor_report(api, "https://k", "default");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->operator_deployment.state, CheckState::not_installed);
  EXPECT_EQ(r->trainer_deployment.state, CheckState::found);
  EXPECT_EQ(r->trainer_deployment.ns, "kubeflow-system");
  EXPECT_EQ(r->trainer_version, "v2.2.0");
}

TEST(DoctorGather, OnlyAnUnreachableClusterIsAnError) {
  ScriptedClient api;
  api.lists.emplace("deployments",
                    ScriptedClient::error(0, "GET https://k/apis: Couldn't connect", ErrorCode::http));
  auto r = gather_doctor_report(api, "https://k", "default");
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().message, "GET https://k/apis: Couldn't connect");
  auto d = detect_release(api);
  ASSERT_FALSE(d);
}

TEST(LiveSchema, TheInstalledCrdIsCompiledOnceAndCachedByServerUidAndResourceVersion) {
  TempDir dir;
  auto first = schema_from_live_crd(crd("7", false), "https://k", dir.path());
  ASSERT_TRUE(first) << first.error().message;
  EXPECT_FALSE(first->cache_hit);
  EXPECT_NE(first->set.find("kubeflow.org/v1", "PyTorchJob"), nullptr);
  EXPECT_EQ(first->set.origin(), "the CRD 'pytorchjobs.kubeflow.org' in the cluster");
  auto second = schema_from_live_crd(crd("7", false), "https://k", dir.path());
  ASSERT_TRUE(second);
  EXPECT_TRUE(second->cache_hit);
  auto changed = schema_from_live_crd(crd("8", true), "https://k", dir.path());
  ASSERT_TRUE(changed);
  EXPECT_FALSE(changed->cache_hit);
  auto other_server = schema_from_live_crd(crd("7", false), "https://other", dir.path());
  ASSERT_TRUE(other_server);
  EXPECT_FALSE(other_server->cache_hit);
  EXPECT_EQ(live_crd_cache_key("https://k", crd("7", false)),
            "kubectl-pytorch live CRD\nserver https://k\nuid u-1\nresourceVersion 7\n");
}

TEST(LiveSchema, WhenCrdsMayNotBeReadTheOpenApiDocumentIsUsed) {
  TempDir dir;
  ScriptedClient api;
  api.raw.emplace("/openapi/v3/apis/kubeflow.org/v1", openapi_doc());
  ReleaseDetection d;
  d.crd_error = ScriptedClient::error(403, "customresourcedefinitions is forbidden");
  ClusterDefaults cluster;
  cluster.server = "https://k";
  cluster.detection = d;
  std::istringstream in;
  std::ostringstream out;
  std::ostringstream err;
  Context ctx{in, out, err, {}, false, false, {}, {}, {}, 0, 0, "auto"};
  auto live = cluster_schema(cluster, dir.path(), ctx);  // api not set: no CRD read is attempted
  EXPECT_FALSE(live.has_value());
  cluster.api = std::make_unique<ScriptedClient>(api);
  live = cluster_schema(cluster, dir.path(), ctx);
  ASSERT_TRUE(live.has_value()) << err.str();
  EXPECT_EQ(live->source, "the cluster's /openapi/v3/apis/kubeflow.org/v1");
  EXPECT_NE(live->set.find("kubeflow.org/v1", "PyTorchJob"), nullptr);
  EXPECT_FALSE(live->cache_hit);
  live = cluster_schema(cluster, dir.path(), ctx);
  ASSERT_TRUE(live.has_value());
  EXPECT_TRUE(live->cache_hit);
}

TEST(LiveSchema, AnOpenApiDocumentWithoutPyTorchJobOrAnErrorLeavesTheCarriedSchemas) {
  TempDir dir;
  ScriptedClient api;
  auto none = schema_from_openapi(api, dir.path());  // 404
  ASSERT_TRUE(none);
  EXPECT_FALSE(none->has_value());
  api.raw.emplace("/openapi/v3/apis/kubeflow.org/v1", R"({"components":{"schemas":{}}})");
  none = schema_from_openapi(api, dir.path());
  ASSERT_TRUE(none);
  EXPECT_FALSE(none->has_value());
  ScriptedClient denied;
  denied.raw.emplace("/openapi/v3/apis/kubeflow.org/v1", ScriptedClient::error(403, "forbidden"));
  auto failed = schema_from_openapi(denied, dir.path());
  ASSERT_FALSE(failed);
  EXPECT_EQ(failed.error().message, "reading /openapi/v3/apis/kubeflow.org/v1: forbidden");
}

TEST(ServerDryRun, StatusMessagesAreSplitIntoCausesWithTheirFields) {
  struct Case {
    std::string message;
    std::vector<std::pair<std::string, std::string>> causes;
  };
  const std::vector<Case> cases = {
      {R"(PyTorchJob in version "v1" cannot be handled as a PyTorchJob: strict decoding error: unknown field "spec.foo", unknown field "spec.runPolicy.bar")",
       {{"spec.foo", "unknown field 'spec.foo'"},
        {"spec.runPolicy.bar", "unknown field 'spec.runPolicy.bar'"}}},
      {R"(PyTorchJob.kubeflow.org "j" is invalid: [spec.pytorchReplicaSpecs[Worker].replicas: Invalid value: "string": must be integer, spec.runPolicy.schedulingPolicy.queue: Invalid value: "string": queue is immutable])",
       {{"spec.pytorchReplicaSpecs[Worker].replicas", "invalid value: \"string\": must be integer"},
        {"spec.runPolicy.schedulingPolicy.queue", "invalid value: \"string\": queue is immutable"}}},
      {R"(PyTorchJob.kubeflow.org "j2" is invalid: spec.pytorchReplicaSpecs.Master.replicas: expected integer, got string 'two')",
       {{"spec.pytorchReplicaSpecs.Master.replicas", "expected integer, got string 'two'"}}},
      {R"(namespaces "nosuch" not found)", {{"", R"(namespaces "nosuch" not found)"}}},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.message);
    std::vector<std::pair<std::string, std::string>> got;
    for (const auto& cause : causes_from_status_message(c.message))
      got.emplace_back(cause.field, cause.message);
    EXPECT_EQ(got, c.causes);
  }
}

TEST(ServerDryRun, AHostileServersLongMessageIsSplitWithoutRecursingPerCharacter) {
  // std::regex overflowed the stack on a field name of 200,000 characters.
  const std::string name = "spec." + std::string(300'000, 'a');
  const auto causes = causes_from_status_message("strict decoding error: unknown field \"" + name + "\", " +
                                                 name + "[" + std::string(50, '9') + "]: bad");
  ASSERT_EQ(causes.size(), 2u);
  EXPECT_EQ(causes[0].field, name);
  EXPECT_EQ(causes[1].field, name + "[" + std::string(50, '9') + "]");
  EXPECT_EQ(causes[1].message, "bad");
  const auto doc = parse("spec:\n  a: [1]\n");
  EXPECT_EQ(location_of_field(doc, "spec.a[" + std::string(50, '9') + "]").line, 2);
}

TEST(ServerDryRun, FieldPathsMapToTheirPositionOrTheDeepestPartThatExists) {
  const auto doc = parse(
      "apiVersion: kubeflow.org/v1\n"
      "kind: PyTorchJob\n"
      "spec:\n"
      "  pytorchReplicaSpecs:\n"
      "    Worker:\n"
      "      replicas: x\n"
      "      template:\n"
      "        spec:\n"
      "          containers:\n"
      "          - name: a\n"
      "          - name: b\n");
  struct Case {
    std::string field;
    std::uint32_t line;
    std::uint32_t col;
  };
  const std::vector<Case> cases = {
      {"spec.pytorchReplicaSpecs.Worker.replicas", 6, 7},
      {"spec.pytorchReplicaSpecs[Worker].replicas", 6, 7},
      {"spec.pytorchReplicaSpecs.Worker.template.spec.containers[1].name", 11, 13},
      {"spec.pytorchReplicaSpecs.Worker.template.spec.containers[5].name", 9, 11},
      {"spec.nosuch", 3, 1},
      {"", 1, 1},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.field);
    const auto loc = location_of_field(doc, c.field);
    EXPECT_EQ(loc.file, "job.yaml");
    EXPECT_EQ(loc.line, c.line);
    EXPECT_EQ(loc.col, c.col);
  }
}

TEST(ServerDryRun, NamedJobsAreAppliedWithDryRunAndStrictValidationAndTheVerdictBecomesFindings) {
  const auto doc = parse(
      "apiVersion: kubeflow.org/v1\n"
      "kind: PyTorchJob\n"
      "metadata:\n"
      "  name: j\n"
      "spec:\n"
      "  foo: 1\n");
  ScriptedClient api;
  api.write_error =
      ScriptedClient::error(422, R"(PyTorchJob.kubeflow.org "j" is invalid: spec.foo: unknown field 'foo')");
  api.write_warnings = {"spec.bar is deprecated"};
  const auto found = server_dry_run(api, kube::resources::pytorchjobs(), doc, "team");
  EXPECT_EQ(api.calls, std::vector<std::string>{"apply pytorchjobs team/j dryRun Strict"});
  EXPECT_TRUE(api.last_write.force);
  EXPECT_EQ(api.last_write.field_manager, "kubectl-pytorch");
  ASSERT_EQ(found.size(), 2u);
  EXPECT_EQ(found[0].severity, Severity::error);
  EXPECT_EQ(found[0].rule_id, "server.dry-run");
  EXPECT_EQ(found[0].field_path, "spec.foo");
  EXPECT_EQ(found[0].message, "the server rejects it: unknown field 'foo'");
  EXPECT_EQ(found[0].location.line, 6u);
  EXPECT_EQ(found[1].severity, Severity::warning);
  EXPECT_EQ(found[1].rule_id, "server.warning");
  EXPECT_EQ(found[1].message, "the server warns: spec.bar is deprecated");
  EXPECT_EQ(found[1].location.line, 1u);
}

TEST(ServerDryRun, JobsWithOnlyGenerateNameAreCreatedAndAnAcceptedJobHasNoFindings) {
  const auto doc = parse(
      "apiVersion: kubeflow.org/v1\n"
      "kind: PyTorchJob\n"
      "metadata:\n"
      "  generateName: j-\n"
      "  namespace: ml\n");
  ScriptedClient api;
  EXPECT_TRUE(server_dry_run(api, kube::resources::pytorchjobs(), doc, "team").empty());
  EXPECT_EQ(api.calls, std::vector<std::string>{"create pytorchjobs ml/j- dryRun Strict"});
}

}  // namespace
}  // namespace kpt::plugin
