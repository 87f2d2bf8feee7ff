// SchemaSet::deserialize on any bytes (a damaged or hostile schema cache): an error or a set
// whose serialized form reads back to the same bytes, and validating a job against every schema it serves
// never crashes.
#include "schema/structural_schema.hpp"
#include "tests/fuzz/fuzz_support.hpp"
#include "yaml/manifest_reader.hpp"

#include <memory>

using namespace kpt;

namespace {

const yaml::Document& sample_job() {
  static const yaml::Document doc = [] {
    auto read = yaml::read_manifests(
        "job.yaml", std::make_shared<const std::string>(
                        "apiVersion: kubeflow.org/v1\n"
                        "kind: PyTorchJob\n"
                        "metadata: {name: j, labels: {a: b}}\n"
                        "spec:\n"
                        "  pytorchReplicaSpecs:\n"
                        "    Worker:\n"
                        "      replicas: 2\n"
                        "      template:\n"
                        "        spec:\n"
                        "          containers:\n"
                        "          - {name: pytorch, image: x, ports: [{containerPort: 1}]}\n"
                        "  list: [1, 2.5, 'x', null, true, {k: v}]\n"));
    return read.documents.front();
  }();
  return doc;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size > fuzz::k_max_input) return 0;
  const auto bytes = fuzz::as_text(data, size);
  auto set = schema::SchemaSet::deserialize(bytes);
  if (!set) {
    if (set.error().message.rfind("compiled schema is damaged: ", 0) != 0)
      fuzz::fail("a deserialize error that does not say the schema is damaged", set.error().message);
    return 0;
  }
  // A hostile file may order or repeat its strings differently; once written by us, the form is fixed.
  const std::string canonical = set->serialize();
  auto again = schema::SchemaSet::deserialize(canonical);
  if (!again) fuzz::fail("a schema we serialized does not read back", again.error().message);
  if (again->serialize() != canonical) fuzz::fail("serialize(deserialize(x)) is not stable");
  for (const auto& api_version : set->api_versions("PyTorchJob")) {
    const auto* schema = set->find(api_version, "PyTorchJob");
    if (schema == nullptr) fuzz::fail("api_versions() names a version find() does not have", api_version);
    (void)schema::validate_structure(sample_job(), *schema, {});
  }
  return 0;
}
