#include "schema/crd_fingerprint.hpp"

#include "model/pytorchjob/release.hpp"
#include "yaml/manifest_reader.hpp"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

namespace kpt::schema {
namespace {

// A PyTorchJob CRD of our own, cut down to the parts the fingerprint reads.
struct Shape {
  std::string generator;  // controller-gen annotation; empty: none
  bool elastic = false, grpc = false, timeout = false, nproc = false, suspend = false, queue_cel = false,
       managed_by = false, restart_rules = false;
};

std::string crd_text(const Shape& s) {
  std::string out = "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n";
  if (!s.generator.empty())
    out += "  annotations:\n    controller-gen.kubebuilder.io/version: " + s.generator + "\n";
  out += R"(  name: pytorchjobs.kubeflow.org
spec:
  group: kubeflow.org
  names: {kind: PyTorchJob, plural: pytorchjobs}
  versions:
  - name: v1
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
)";
  if (s.elastic) out += "              elasticPolicy: {type: object}\n";
  if (s.nproc) out += "              nprocPerNode: {type: string}\n";
  out += "              runPolicy:\n                type: object\n                properties:\n";
  out += "                  cleanPodPolicy: {type: string}\n";
  if (s.suspend) out += "                  suspend: {type: boolean, default: false}\n";
  if (s.managed_by) out += "                  managedBy: {type: string}\n";
  out +=
      "                  schedulingPolicy:\n                    type: object\n                    "
      "properties:\n";
  out += "                      queue:\n                        type: string\n";
  if (s.queue_cel) out += "                        x-kubernetes-validations: [{rule: self == oldSelf}]\n";
  if (s.timeout) out += "                      scheduleTimeoutSeconds: {type: integer}\n";
  out += R"(              pytorchReplicaSpecs:
                type: object
                additionalProperties:
                  type: object
                  properties:
                    template:
                      type: object
                      properties:
                        spec:
                          type: object
                          properties:
                            containers:
                              type: array
                              items:
                                type: object
                                properties:
                                  livenessProbe:
                                    type: object
                                    properties:
                                      exec: {type: object}
)";
  if (s.grpc) out += "                                      grpc: {type: object}\n";
  if (s.restart_rules) out += "                                  restartPolicyRules: {type: array}\n";
  return out;
}

std::vector<std::string> matching(const Shape& shape) {
  auto result = yaml::read_manifests("crd.yaml", std::make_shared<const std::string>(crd_text(shape)));
  EXPECT_TRUE(result.findings.empty()) << result.findings.front().message;
  EXPECT_EQ(result.documents.size(), 1u);
  std::vector<std::string> out;
  for (const auto& r : releases_matching_crd(result.documents.front().root)) out.push_back(r.to_string());
  return out;
}

TEST(ReleasesMatchingCrd, EachReleaseShapeIsRecognised) {
  struct Case {
    const char* name;
    Shape shape;
    std::vector<std::string> want;
  };
  const Shape v13{"v0.6.0"};
  Shape v14 = v13;
  v14.elastic = true;
  Shape v15 = v14;
  v15.grpc = true;
  Shape v16 = v15;
  v16.generator = "v0.10.0";
  v16.timeout = true;
  Shape v17 = v16;
  v17.generator = "v0.12.0";
  v17.nproc = v17.suspend = true;
  Shape v18 = v17;
  v18.generator = "v0.14.0";
  v18.queue_cel = true;
  Shape v19 = v18;
  v19.generator = "v0.16.5";
  v19.managed_by = true;
  Shape v194 = v19;
  v194.restart_rules = true;
  const std::vector<Case> cases = {
      {"v1.3.0", v13, {"v1.3.0"}},
      {"v1.4.0", v14, {"v1.4.0"}},
      {"v1.5.0", v15, {"v1.5.0"}},
      {"v1.6.0", v16, {"v1.6.0"}},
      {"v1.7.0", v17, {"v1.7.0"}},
      {"v1.8.x", v18, {"v1.8.0", "v1.8.1"}},
      {"v1.9.0 to v1.9.3", v19, {"v1.9.0", "v1.9.1", "v1.9.2", "v1.9.3"}},
      {"v1.9.4", v194, {"v1.9.4"}},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    EXPECT_EQ(matching(c.shape), c.want);
  }
}

TEST(ReleasesMatchingCrd, WithoutTheAnnotationTheProbesDecideAlone) {
  Shape shape;
  shape.elastic = shape.grpc = shape.timeout = true;
  EXPECT_EQ(matching(shape), std::vector<std::string>{"v1.6.0"});
  shape.nproc = shape.suspend = shape.queue_cel = true;
  EXPECT_EQ(matching(shape), (std::vector<std::string>{"v1.8.0", "v1.8.1"}));
}

TEST(ReleasesMatchingCrd, AnUnknownGeneratorVersionIsIgnored) {
  Shape shape{"v9.9.9"};
  shape.elastic = true;
  EXPECT_EQ(matching(shape), std::vector<std::string>{"v1.4.0"});
}

TEST(ReleasesMatchingCrd, ContradictoryCrdsMatchNothing) {
  // Annotation says v1.7, the fields say v1.9.
  Shape shape{"v0.12.0"};
  shape.elastic = shape.grpc = shape.timeout = shape.nproc = shape.suspend = shape.queue_cel = true;
  shape.managed_by = true;
  EXPECT_TRUE(matching(shape).empty());
  // A field without the ones every release before it added.
  Shape gap;
  gap.managed_by = true;
  EXPECT_TRUE(matching(gap).empty());
}

TEST(ReleasesMatchingCrd, OtherCrdsMatchNothing) {
  auto result = yaml::read_manifests(
      "crd.yaml", std::make_shared<const std::string>(
                      "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\n"
                      "spec:\n  names: {kind: TFJob}\n  versions:\n  - name: v1\n    schema:\n"
                      "      openAPIV3Schema: {type: object}\n"));
  ASSERT_EQ(result.documents.size(), 1u);
  EXPECT_TRUE(releases_matching_crd(result.documents.front().root).empty());
  EXPECT_TRUE(releases_matching_crd(yaml::Node{}).empty());
}

}  // namespace
}  // namespace kpt::schema
