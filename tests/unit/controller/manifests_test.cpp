#include "controller/manifests.hpp"

#include "plugin/plugin.hpp"
#include "schema/structural_schema.hpp"
#include "yaml/manifest_reader.hpp"
#include "yaml/node_json.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <fstream>
#include <map>
#include <memory>
#include <sstream>

namespace kpt::controller {
namespace {

std::string read_file(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string run_plugin(const std::vector<std::string>& argv, int& code) {
  std::istringstream in;
  std::ostringstream out, err;
  code = plugin::run(argv, {}, in, out, err);
  return out.str();
}

TEST(ControllerManifests, TheDeployFileIsExactlyWhatTheCommandPrints) {
  int code = -1;
  const auto printed = run_plugin({"kubectl-pytorch", "controller", "manifests"}, code);
  EXPECT_EQ(code, 0);
  EXPECT_EQ(printed, read_file(std::string(KPT_SOURCE_DIR) + "/deploy/kubectl-pytorch-controller.yaml"))
      << "regenerate with: kubectl-pytorch controller manifests > deploy/kubectl-pytorch-controller.yaml";
}

TEST(ControllerManifests, NamespaceAndImageCanBeChosen) {
  int code = -1;
  const auto printed =
      run_plugin({"kubectl-pytorch", "controller", "manifests", "-n", "ml", "--image", "reg/kpt:dev"}, code);
  EXPECT_EQ(code, 0);
  EXPECT_NE(printed.find("  namespace: ml\n"), std::string::npos);
  EXPECT_NE(printed.find("image: reg/kpt:dev\n"), std::string::npos);
  EXPECT_EQ(printed.find("kubectl-pytorch:v"), std::string::npos);
}

std::vector<yaml::Document> documents(const std::string& text) {
  auto r = yaml::read_manifests("manifests.yaml", std::make_shared<const std::string>(text));
  EXPECT_TRUE(r.findings.empty());
  return std::move(r.documents);
}

TEST(ControllerManifests, RbacHasNoWildcardsAndCoversWhatTheControllerDoes) {
  std::map<std::string, std::string> grants;  // "group/resource" -> verbs
  for (const auto& doc : documents(controller_manifests({}))) {
    const auto j = yaml::to_json(doc.root);
    if (j.value("kind", "") != "ClusterRole" && j.value("kind", "") != "Role") continue;
    for (const auto& rule : j["rules"]) {
      for (const auto& field : {"apiGroups", "resources", "verbs"}) {
        for (const auto& v : rule[field]) EXPECT_NE(v.get<std::string>(), "*") << field;
      }
      for (const auto& res : rule["resources"]) {
        std::string verbs;
        for (const auto& v : rule["verbs"]) verbs += v.get<std::string>() + ",";
        grants[rule["apiGroups"][0].get<std::string>() + "/" + res.get<std::string>()] += verbs;
      }
    }
  }
  EXPECT_EQ(grants["kubeflow.org/pytorchjobs/status"], "get,update,");
  EXPECT_EQ(grants["/pods"], "get,list,watch,create,delete,");
  EXPECT_EQ(grants["coordination.k8s.io/leases"], "get,create,update,");
}

TEST(ControllerManifests, TheCrdIsStructuralAndAcceptsAJobAndRejectsAnUnknownField) {
  const auto crd_docs = documents(crd_manifest());
  ASSERT_EQ(crd_docs.size(), 1u);
  auto set = schema::SchemaSet::from_crd(crd_docs[0]);
  ASSERT_TRUE(set.has_value()) << set.error().message;
  const auto* s = set->find("kubeflow.org/v1", "PyTorchJob");
  ASSERT_NE(s, nullptr);
  const auto jobs = documents(R"(apiVersion: kubeflow.org/v1
kind: PyTorchJob
metadata:
  name: mnist
spec:
  runPolicy: {cleanPodPolicy: All, backoffLimit: 3}
  nprocPerNode: "2"
  pytorchReplicaSpecs:
    Worker:
      replicas: 2
      restartPolicy: OnFailure
      template:
        metadata: {labels: {a: b}}
        spec:
          containers: [{name: pytorch, image: img}]
---
apiVersion: kubeflow.org/v1
kind: PyTorchJob
metadata:
  name: bad
spec:
  pytorchReplicaSpecs: {}
  replicas: 2
)");
  ASSERT_EQ(jobs.size(), 2u);
  EXPECT_TRUE(schema::validate_structure(jobs[0], *s, {}).empty());
  const auto findings = schema::validate_structure(jobs[1], *s, {});
  ASSERT_EQ(findings.size(), 1u);
  EXPECT_EQ(findings[0].field_path, "spec.replicas");
}

}  // namespace
}  // namespace kpt::controller
