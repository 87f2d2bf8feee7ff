#include "controller/manifests.hpp"

#include "plugin/plugin.hpp"
#include "schema/carried/carried_crds.hpp"
#include "schema/structural_schema.hpp"
#include "yaml/manifest_reader.hpp"
#include "yaml/node_json.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
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

TEST(ControllerManifests, TheTrainerDeployFileIsExactlyWhatTheCommandPrints) {
  int code = -1;
  const auto printed = run_plugin({"kubectl-pytorch", "controller", "manifests", "--trainer"}, code);
  EXPECT_EQ(code, 0);
  EXPECT_EQ(printed,
            read_file(std::string(KPT_SOURCE_DIR) + "/deploy/kubectl-pytorch-controller-trainer.yaml"))
      << "regenerate with: kubectl-pytorch controller manifests --trainer > "
         "deploy/kubectl-pytorch-controller-trainer.yaml";
}

TEST(ControllerManifests, TheViaJobSetDeployFileIsExactlyWhatTheCommandPrints) {
  int code = -1;
  const auto printed = run_plugin({"kubectl-pytorch", "controller", "manifests", "--via-jobset"}, code);
  EXPECT_EQ(code, 0);
  EXPECT_EQ(printed,
            read_file(std::string(KPT_SOURCE_DIR) + "/deploy/kubectl-pytorch-controller-via-jobset.yaml"))
      << "regenerate with: kubectl-pytorch controller manifests --via-jobset > "
         "deploy/kubectl-pytorch-controller-via-jobset.yaml";
}

std::vector<yaml::Document> documents(const std::string& text) {
  auto r = yaml::read_manifests("manifests.yaml", std::make_shared<const std::string>(text));
  EXPECT_TRUE(r.findings.empty());
  return std::move(r.documents);
}

/// "group/resource" -> the verbs the manifests' Roles and ClusterRoles grant, "a,b,".
std::map<std::string, std::string> grants_of(const ManifestOptions& options) {
  std::map<std::string, std::string> grants;
  for (const auto& doc : documents(controller_manifests(options))) {
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
  return grants;
}

TEST(ControllerManifests, RbacHasNoWildcardsAndCoversWhatTheControllerDoes) {
  auto grants = grants_of({});
  EXPECT_EQ(grants.count("trainer.kubeflow.org/trainjobs"), 0u);
  EXPECT_EQ(grants["kubeflow.org/pytorchjobs/status"], "get,update,");
  EXPECT_EQ(grants["/pods"], "get,list,watch,create,delete,");
  EXPECT_EQ(grants["coordination.k8s.io/leases"], "get,create,update,");
}

TEST(ControllerManifests, ViaJobSetGrantsTheTrainJobRulesAndExactlyTheJobSetVerbsItUses) {
  ManifestOptions options;
  options.via_jobset = true;
  auto grants = grants_of(options);
  EXPECT_EQ(grants["jobset.x-k8s.io/jobsets"], "list,watch,create,patch,delete,");
  EXPECT_EQ(grants["trainer.kubeflow.org/trainjobs/status"], "get,update,");
  EXPECT_EQ(grants["/configmaps"], "get,create,");
  EXPECT_EQ(grants["/pods"], "get,list,watch,create,delete,");  // for PyTorchJobs, as before
  EXPECT_EQ(grants_of({}).count("jobset.x-k8s.io/jobsets"), 0u);
  const auto text = controller_manifests(options);
  EXPECT_NE(text.find("        - --log-format=json\n        - --via-jobset\n"), std::string::npos);
  EXPECT_EQ(controller_manifests({}).find("--via-jobset"), std::string::npos);
  // No Trainer CRDs unless --trainer.
  EXPECT_EQ(text.find("trainjobs.trainer.kubeflow.org"), std::string::npos);
}

TEST(ControllerManifests, TrainJobStatusAddsTheStatusServersServicePortFlagAndExactlyItsRbac) {
  ManifestOptions options;
  options.train_job_status = true;
  auto grants = grants_of(options);
  EXPECT_EQ(grants["authentication.k8s.io/tokenreviews"], "create,");
  EXPECT_EQ(grants["/configmaps"], "create,patch,");
  EXPECT_EQ(grants["trainer.kubeflow.org/trainjobs/status"], "patch,");
  EXPECT_EQ(grants["/secrets"], "get,create,");
  EXPECT_EQ(grants_of({}).count("authentication.k8s.io/tokenreviews"), 0u);
  const auto text = controller_manifests(options);
  EXPECT_NE(text.find("        - --feature-gates=TrainJobStatus=true\n"), std::string::npos);
  EXPECT_NE(text.find("        - name: status-server\n          containerPort: 10443\n"), std::string::npos);
  EXPECT_NE(text.find("kind: Service\nmetadata:\n  name: kubectl-pytorch-controller\n"), std::string::npos);
  int code = -1;
  const auto printed = run_plugin(
      {"kubectl-pytorch", "controller", "manifests", "--feature-gates", "TrainJobStatus=true"}, code);
  EXPECT_EQ(code, 0);
  EXPECT_NE(printed.find("        - --feature-gates=TrainJobStatus=true\n"), std::string::npos);
  EXPECT_EQ(run_plugin({"kubectl-pytorch", "controller", "manifests"}, code).find("TrainJobStatus"),
            std::string::npos);
  (void)run_plugin({"kubectl-pytorch", "controller", "manifests", "--feature-gates", "Progress=true"}, code);
  EXPECT_EQ(code, 2);
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

TEST(ControllerManifests, WithTrainerTheRbacCoversWhatTheTrainJobReconcilerDoes) {
  ManifestOptions options;
  options.trainer = true;
  auto grants = grants_of(options);
  EXPECT_EQ(grants["trainer.kubeflow.org/trainjobs"], "get,list,watch,patch,");
  EXPECT_EQ(grants["trainer.kubeflow.org/trainjobs/status"], "get,update,");
  EXPECT_EQ(grants["trainer.kubeflow.org/clustertrainingruntimes"], "get,list,watch,");
  EXPECT_EQ(grants["trainer.kubeflow.org/trainingruntimes"], "get,list,watch,");
  EXPECT_EQ(grants["/configmaps"], "get,create,");
  EXPECT_EQ(grants["kubeflow.org/pytorchjobs/status"], "get,update,");
}

TEST(ControllerManifests, WithTrainerTheCrdsAreStructuralAndTheRuntimesComeApart) {
  ManifestOptions options;
  options.trainer = true;
  std::vector<std::string> kinds;
  std::vector<std::string> runtimes;
  // kubectl cannot map a ClusterTrainingRuntime before its CRD is established: in the same stream
  // the first apply fails, so the runtimes are `manifests --runtimes`.
  for (const auto& doc : documents(controller_manifests(options))) {
    const auto j = yaml::to_json(doc.root);
    EXPECT_NE(j.value("kind", ""), "ClusterTrainingRuntime");
    if (j.value("kind", "") != "CustomResourceDefinition") continue;
    kinds.push_back(j["spec"]["names"].value("kind", ""));
    auto set = schema::SchemaSet::from_crd(doc);
    EXPECT_TRUE(set.has_value()) << kinds.back() << ": " << set.error().message;
  }
  EXPECT_EQ(kinds, (std::vector<std::string>{"PyTorchJob", "TrainJob", "TrainingRuntime",
                                             "ClusterTrainingRuntime"}));
  for (const auto& doc : documents(runtime_manifests())) {
    const auto j = yaml::to_json(doc.root);
    EXPECT_EQ(j.value("kind", ""), "ClusterTrainingRuntime");
    runtimes.push_back(j["metadata"].value("name", ""));
  }
  ASSERT_FALSE(runtimes.empty());
  EXPECT_NE(std::find(runtimes.begin(), runtimes.end(), "torch-distributed"), runtimes.end());
}

TEST(ControllerManifests, TheTrainJobCrdHasTheRealPrinterColumnsAndStatusSubresource) {
  const auto crds = schema::trainer_crds();
  ASSERT_EQ(crds.size(), 3u);
  const auto& version = crds[0]["spec"]["versions"][0];
  EXPECT_EQ(crds[0]["metadata"]["name"], "trainjobs.trainer.kubeflow.org");
  EXPECT_EQ(version["additionalPrinterColumns"][0]["name"], "State");
  EXPECT_EQ(version["additionalPrinterColumns"][0]["jsonPath"], ".status.conditions[-1:].type");
  EXPECT_EQ(version["additionalPrinterColumns"][1]["name"], "Age");
  EXPECT_TRUE(version["subresources"].contains("status"));
  EXPECT_EQ(crds[2]["spec"]["scope"], "Cluster");
}

}  // namespace
}  // namespace kpt::controller
