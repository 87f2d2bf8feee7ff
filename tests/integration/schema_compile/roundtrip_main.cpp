// Loads the schema kpt_schema_compile embedded and validates a broken job with it.
#include "schema/structural_schema.hpp"
#include "yaml/manifest_reader.hpp"

#include <iostream>
#include <memory>
#include <string>

namespace kpt::schema {
std::string_view mini_schema_bytes();
}

int main() {
  using namespace kpt::schema;
  auto set = SchemaSet::deserialize(mini_schema_bytes());
  if (!set) {
    std::cerr << "FAIL: " << set.error().message << "\n";
    return 1;
  }
  const StructuralSchema* schema = set->find("kubeflow.org/v1", "PyTorchJob");
  if (set->origin() != "mini CRD fixture" || schema == nullptr) {
    std::cerr << "FAIL: origin '" << set->origin() << "' or no kubeflow.org/v1 PyTorchJob\n";
    return 1;
  }
  const auto text = std::make_shared<const std::string>(
      "apiVersion: kubeflow.org/v1\nkind: PyTorchJob\nmetadata:\n  name: a\nspec:\n  pytorchReplicaSpecs:\n"
      "    Worker:\n      replica: 2\n      template:\n        spec:\n          containers: [{name: a}]\n");
  const auto read = kpt::yaml::read_manifests("job.yaml", text);
  const auto findings = validate_structure(read.documents.at(0), *schema, {});
  if (findings.size() != 1 || findings[0].message != "unknown field 'replica'" ||
      findings[0].location.line != 8 || findings[0].hint != "did you mean 'replicas'?") {
    std::cerr << "FAIL: expected one unknown-field finding at line 8, got " << findings.size() << "\n";
    return 1;
  }
  std::cout << "ok: " << set->origin() << " validates like the CRD\n";
  return 0;
}
