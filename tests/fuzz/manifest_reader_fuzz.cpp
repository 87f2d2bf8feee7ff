// The manifest reader on any bytes: never crashes, stays within its limits, and the fast path
// for plain manifests answers exactly what libyaml answers. Every document it keeps converts to
// JSON and back to YAML, and that YAML reads back to the same JSON.
#include "tests/fuzz/fuzz_support.hpp"
#include "yaml/manifest_reader.hpp"
#include "yaml/node_json.hpp"
#include "yaml/yaml_writer.hpp"

#include <nlohmann/json.hpp>

#include <memory>

using namespace kpt;

namespace {

yaml::ReadLimits fuzz_limits() {
  yaml::ReadLimits limits;
  limits.max_bytes = fuzz::k_max_input;
  limits.max_nodes = 50'000;  // alias bombs stop here instead of at a million nodes
  limits.max_documents = 200;
  return limits;
}

void check_limits(const yaml::ReadResult& r, const yaml::ReadLimits& limits) {
  if (r.documents.size() > limits.max_documents) fuzz::fail("more documents than the limit");
  for (const auto& doc : r.documents)
    if (doc.file != "fuzz.yaml" || !doc.source) fuzz::fail("a document lost its file name or source");
  for (const auto& d : r.findings)
    if (d.location.file != "fuzz.yaml" || d.rule_id.empty() || d.message.empty())
      fuzz::fail("a finding without file, rule or message", fuzz::describe(d));
}

void check_yaml_round_trip(const yaml::Document& doc) {
  const nlohmann::json value = yaml::to_json(doc.root);
  auto again = yaml::read_manifests("again.yaml", std::make_shared<const std::string>(yaml::to_yaml(value)));
  const nlohmann::json back =
      again.documents.empty() ? nlohmann::json() : yaml::to_json(again.documents.front().root);
  if (again.documents.size() > 1 || back.dump() != value.dump())
    fuzz::fail("to_yaml does not read back", value.dump());
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size > fuzz::k_max_input) return 0;
  auto text = std::make_shared<const std::string>(fuzz::as_text(data, size));
  const auto limits = fuzz_limits();
  const auto result = yaml::read_manifests("fuzz.yaml", text, limits);
  check_limits(result, limits);
  const auto libyaml = yaml::read_manifests_with_libyaml("fuzz.yaml", text, limits);
  if (fuzz::dump(result) != fuzz::dump(libyaml))
    fuzz::fail("the fast path and libyaml disagree", fuzz::dump(result) + "----\n" + fuzz::dump(libyaml));
  for (const auto& doc : result.documents) check_yaml_round_trip(doc);
  return 0;
}
