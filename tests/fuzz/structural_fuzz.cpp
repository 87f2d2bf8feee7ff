// The structural validator on the PyTorchJob CRD the controller installs, compiled once, for
// every document of any manifest: never crashes, and every finding names its file, a position
// inside the text and a rule.
#include "schema/carried/carried_crds.hpp"
#include "schema/structural_schema.hpp"
#include "tests/fuzz/fuzz_support.hpp"
#include "yaml/manifest_reader.hpp"
#include "yaml/node_json.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <memory>

using namespace kpt;

namespace {

const schema::SchemaSet& pytorchjob_schemas() {
  static const schema::SchemaSet set = [] {
    yaml::Document crd;
    crd.file = "crd.yaml";
    crd.root = yaml::from_json(schema::pytorchjob_crd());
    auto compiled = schema::SchemaSet::from_crd(crd);
    if (!compiled) fuzz::fail("the PyTorchJob CRD does not compile", compiled.error().message);
    return std::move(compiled).value();
  }();
  return set;
}

void check_findings(const Diagnostics& findings, std::size_t lines) {
  for (const auto& d : findings) {
    if (d.location.file != "fuzz.yaml" || d.rule_id.empty() || d.message.empty() ||
        d.location.line > lines + 1)
      fuzz::fail("a finding without file, rule, message or a line of the input", fuzz::describe(d));
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size > fuzz::k_max_input) return 0;
  const auto& schemas = pytorchjob_schemas();
  const auto text = std::make_shared<const std::string>(fuzz::as_text(data, size));
  yaml::ReadLimits limits;
  limits.max_nodes = 50'000;
  const auto read = yaml::read_manifests("fuzz.yaml", text, limits);
  // YAML breaks lines at \n, \r\n and a lone \r: each counts once (regression-lone-cr-line-break).
  std::size_t lines = 0;
  for (std::size_t i = 0; i < text->size(); ++i)
    if ((*text)[i] == '\n' || ((*text)[i] == '\r' && (i + 1 == text->size() || (*text)[i + 1] != '\n')))
      ++lines;
  for (const auto& doc : read.documents) {
    // Documents of other kinds are validated as PyTorchJobs too: the schema does not care.
    const auto* schema = schemas.find("kubeflow.org/v1", "PyTorchJob");
    if (schema == nullptr) fuzz::fail("the compiled CRD has no kubeflow.org/v1 PyTorchJob");
    for (const bool strict : {true, false}) {
      schema::StructuralOptions opts;
      opts.unknown_fields_are_errors = strict;
      check_findings(schema::validate_structure(doc, *schema, opts), lines);
    }
  }
  return 0;
}
