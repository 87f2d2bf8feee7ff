// A CustomResourceDefinition from any bytes compiled into schemas (patterns, formats, list-map
// keys, defaults, enums, CEL rules kept), serialized and read back, then used to validate the
// document that follows it: never crashes, and the binary form reads back to the same bytes.
#include "schema/structural_schema.hpp"
#include "tests/fuzz/fuzz_support.hpp"
#include "yaml/manifest_reader.hpp"

#include <memory>

using namespace kpt;

namespace {

void validate_with(const schema::SchemaSet& set, const yaml::Document& doc) {
  const auto* api_version = doc.root.find("apiVersion");
  const auto* kind = doc.root.find("kind");
  if (api_version == nullptr || kind == nullptr) return;
  const auto* schema = set.find(api_version->text, kind->text);
  if (schema == nullptr) return;
  (void)schema::validate_structure(doc, *schema, {});
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size > fuzz::k_max_input) return 0;
  yaml::ReadLimits limits;
  limits.max_nodes = 50'000;
  const auto read = yaml::read_manifests(
      "fuzz.yaml", std::make_shared<const std::string>(fuzz::as_text(data, size)), limits);
  if (read.documents.empty()) return 0;
  auto set = schema::SchemaSet::from_crd(read.documents.front());
  if (!set) {
    if (set.error().message.empty()) fuzz::fail("a CRD error without a message");
    return 0;
  }
  const std::string bytes = set->serialize();
  auto loaded = schema::SchemaSet::deserialize(bytes);
  if (!loaded) fuzz::fail("a serialized schema does not read back", loaded.error().message);
  if (loaded->serialize() != bytes) fuzz::fail("a schema read back serializes differently");
  for (std::size_t i = 1; i < read.documents.size(); ++i) {
    validate_with(*set, read.documents[i]);
    validate_with(*loaded, read.documents[i]);
  }
  return 0;
}
