#include "schema/release_fields.hpp"

#include "model/pytorchjob/release.hpp"
#include "yaml/manifest_reader.hpp"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

namespace kpt::schema {
namespace {

yaml::Document parse_one(const std::string& yaml) {
  auto result = yaml::read_manifests("job.yaml", std::make_shared<const std::string>(yaml));
  EXPECT_TRUE(result.findings.empty()) << result.findings.front().message;
  EXPECT_EQ(result.documents.size(), 1u);
  return result.documents.front();
}

model::pytorchjob::Release release(const char* text) { return *model::pytorchjob::parse_release(text); }

std::string describe(const Diagnostic& d) {
  return d.location.file + ":" + std::to_string(d.location.line) + ":" + std::to_string(d.location.col) +
         ": " + (d.severity == Severity::error ? "error" : "not-error") + std::string(": ") + d.field_path +
         ": " + d.message + " [" + d.rule_id + "] hint: " + d.hint;
}

std::vector<std::string> describe_all(const Diagnostics& ds) {
  std::vector<std::string> out;
  for (const auto& d : ds) out.push_back(describe(d));
  return out;
}

// Every release-dependent field once, at a known line and column.
constexpr const char* k_new_job = R"(apiVersion: kubeflow.org/v1
kind: PyTorchJob
metadata:
  name: newest
spec:
  nprocPerNode: "4"
  elasticPolicy:
    maxReplicas: 4
  runPolicy:
    suspend: false
    managedBy: kubeflow.org/training-operator
    schedulingPolicy:
      scheduleTimeoutSeconds: 60
  pytorchReplicaSpecs:
    Worker:
      replicas: 2
      template:
        spec:
          schedulingGates:
          - name: wait
          initContainers:
          - name: sidecar
            image: busybox
            restartPolicy: Always
          containers:
          - name: pytorch
            image: trainer:1
            livenessProbe:
              grpc:
                port: 9000
            resizePolicy:
            - resourceName: cpu
              restartPolicy: NotRequired
            lifecycle:
              preStop:
                sleep:
                  seconds: 5
              stopSignal: SIGUSR1
            restartPolicyRules:
            - action: Restart
              exitCodes:
                operator: In
                values: [42]
)";

TEST(CheckReleaseFields, NewestReleaseKnowsEveryField) {
  EXPECT_TRUE(check_release_fields(parse_one(k_new_job), model::pytorchjob::k_newest_release).empty());
}

TEST(CheckReleaseFields, EachReleaseReportsExactlyTheFieldsItLacks) {
  const std::string w = "spec.pytorchReplicaSpecs.Worker.template.spec.";
  struct Case {
    const char* release;
    std::vector<std::string> fields;  // field paths reported, in document order
  };
  const std::vector<Case> cases = {
      {"v1.9.4", {}},
      {"v1.9.3", {w + "containers[0].lifecycle.stopSignal", w + "containers[0].restartPolicyRules"}},
      {"v1.9.0", {w + "containers[0].lifecycle.stopSignal", w + "containers[0].restartPolicyRules"}},
      {"v1.8.1",
       {"spec.runPolicy.managedBy", w + "containers[0].lifecycle.stopSignal",
        w + "containers[0].restartPolicyRules"}},
      {"v1.7.0",
       {"spec.runPolicy.managedBy", w + "initContainers[0].restartPolicy",
        w + "containers[0].lifecycle.preStop.sleep", w + "containers[0].lifecycle.stopSignal",
        w + "containers[0].restartPolicyRules"}},
      {"v1.6.0",
       {"spec.nprocPerNode", "spec.runPolicy.suspend", "spec.runPolicy.managedBy", w + "schedulingGates",
        w + "initContainers[0].restartPolicy", w + "containers[0].resizePolicy",
        w + "containers[0].lifecycle.preStop.sleep", w + "containers[0].lifecycle.stopSignal",
        w + "containers[0].restartPolicyRules"}},
      {"v1.3.0",
       {"spec.nprocPerNode", "spec.elasticPolicy", "spec.runPolicy.suspend", "spec.runPolicy.managedBy",
        "spec.runPolicy.schedulingPolicy.scheduleTimeoutSeconds", w + "schedulingGates",
        w + "initContainers[0].restartPolicy", w + "containers[0].livenessProbe.grpc",
        w + "containers[0].resizePolicy", w + "containers[0].lifecycle.preStop.sleep",
        w + "containers[0].lifecycle.stopSignal", w + "containers[0].restartPolicyRules"}},
  };
  const yaml::Document doc = parse_one(k_new_job);
  for (const auto& c : cases) {
    SCOPED_TRACE(c.release);
    std::vector<std::string> got;
    for (const auto& d : check_release_fields(doc, release(c.release))) got.push_back(d.field_path);
    EXPECT_EQ(got, c.fields);
  }
}

TEST(CheckReleaseFields, FindingPointsAtTheKeyWithTheMessageAndHint) {
  const yaml::Document doc = parse_one(k_new_job);
  const auto found = describe_all(check_release_fields(doc, release("v1.6.0")));
  ASSERT_EQ(found.size(), 9u);
  EXPECT_EQ(
      found[0],
      "job.yaml:6:3: error: spec.nprocPerNode: field 'spec.nprocPerNode' is not known to operator v1.6.0 "
      "(added in v1.7.0) [release.unknown-field] hint: upgrade the operator to v1.7.0 or later, or remove "
      "the field");
  EXPECT_EQ(
      found[1],
      "job.yaml:10:5: error: spec.runPolicy.suspend: field 'spec.runPolicy.suspend' is not known to "
      "operator v1.6.0 (added in v1.7.0) [release.unknown-field] hint: upgrade the operator to v1.7.0 or "
      "later, or remove the field");
  EXPECT_EQ(
      found[4],
      "job.yaml:24:13: error: spec.pytorchReplicaSpecs.Worker.template.spec.initContainers[0].restartPolicy: "
      "field 'spec.pytorchReplicaSpecs.Worker.template.spec.initContainers[0].restartPolicy' is not known to "
      "operator v1.6.0 (added in v1.8.0) [release.unknown-field] hint: upgrade the operator to v1.8.0 or "
      "later, or remove the field");
}

TEST(CheckReleaseFields, OnlyTheOutermostUnknownFieldOfASubtreeIsReported) {
  // `resources` on the pod (v1.9.4) holds `claims`, which containers know from v1.7.0: the pod-level
  // field is the one to report, once.
  const yaml::Document doc = parse_one(R"(apiVersion: kubeflow.org/v1
kind: PyTorchJob
metadata: {name: j}
spec:
  pytorchReplicaSpecs:
    Worker:
      template:
        spec:
          resources:
            claims:
            - name: gpu
              request: big
          containers:
          - name: pytorch
            image: x
            resources:
              claims:
              - name: gpu
                request: big
)");
  std::vector<std::string> got;
  for (const auto& d : check_release_fields(doc, release("v1.8.0"))) got.push_back(d.field_path);
  const std::vector<std::string> want = {
      "spec.pytorchReplicaSpecs.Worker.template.spec.resources",
      "spec.pytorchReplicaSpecs.Worker.template.spec.containers[0].resources.claims[0].request",
  };
  EXPECT_EQ(got, want);
}

TEST(CheckReleaseFields, EveryContainerListAndReplicaTypeIsChecked) {
  const yaml::Document doc = parse_one(R"(apiVersion: kubeflow.org/v1
kind: PyTorchJob
metadata: {name: j}
spec:
  pytorchReplicaSpecs:
    Master:
      template:
        spec:
          containers:
          - {name: pytorch, image: x, startupProbe: {grpc: {port: 1}}}
    Worker:
      template:
        spec:
          ephemeralContainers:
          - {name: debug, image: x, readinessProbe: {grpc: {port: 1}}}
          initContainers:
          - {name: init, image: x}
          - {name: init2, image: x, livenessProbe: {grpc: {port: 1}}}
)");
  std::vector<std::string> got;
  for (const auto& d : check_release_fields(doc, release("v1.4.0"))) got.push_back(d.field_path);
  const std::vector<std::string> want = {
      "spec.pytorchReplicaSpecs.Master.template.spec.containers[0].startupProbe.grpc",
      "spec.pytorchReplicaSpecs.Worker.template.spec.ephemeralContainers[0].readinessProbe.grpc",
      "spec.pytorchReplicaSpecs.Worker.template.spec.initContainers[1].livenessProbe.grpc",
  };
  EXPECT_EQ(got, want);
}

TEST(CheckReleaseFields, DocumentsOfOtherKindsAreNotChecked) {
  const yaml::Document doc =
      parse_one("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\nspec:\n  nprocPerNode: x\n");
  EXPECT_TRUE(check_release_fields(doc, release("v1.3.0")).empty());
}

TEST(CheckReleaseFields, FieldsOfTheWrongShapeAreLeftToStructuralValidation) {
  // A scalar where a mapping is expected, or a mapping where a list is: nothing to walk, no crash.
  const yaml::Document doc = parse_one(R"(apiVersion: kubeflow.org/v1
kind: PyTorchJob
metadata: {name: j}
spec:
  runPolicy: 5
  pytorchReplicaSpecs:
    Worker:
      template:
        spec:
          containers: {name: pytorch}
)");
  EXPECT_TRUE(check_release_fields(doc, release("v1.3.0")).empty());
}

TEST(ReleaseFieldsTable, EveryEntryIsNewerThanTheOldestReleaseAndKnownToTheNewest) {
  ASSERT_FALSE(release_fields().empty());
  for (const auto& f : release_fields()) {
    SCOPED_TRACE(std::string(f.path));
    EXPECT_GT(f.added_in, model::pytorchjob::k_releases.front());
    EXPECT_LE(f.added_in, model::pytorchjob::k_newest_release);
    EXPECT_TRUE(model::pytorchjob::parse_release(f.added_in.to_string()).has_value());
  }
}

}  // namespace
}  // namespace kpt::schema
