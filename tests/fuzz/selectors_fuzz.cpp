// Label and field selectors as the API server parses them from a query (first line: label
// selector, second line: field selector), matched against a few objects: parse errors carry a
// message, matching never throws, and the empty selector matches everything.
#include "apiserver/selectors.hpp"
#include "tests/fuzz/fuzz_support.hpp"
#include "util/selector.hpp"

#include <nlohmann/json.hpp>

using namespace kpt;
using json = nlohmann::json;

namespace {

const std::vector<json>& objects() {
  static const std::vector<json> all = {
      json::parse(R"({"metadata":{"name":"a","namespace":"default","labels":{"app":"x","tier":"1"}},
                      "spec":{"nodeName":"n1"},"status":{"phase":"Running"}})"),
      json::parse(R"({"metadata":{"name":"b","namespace":"kube-system","labels":{}},"status":{}})"),
      json::parse(R"({"metadata":{"name":"e"},"involvedObject":{"kind":"Pod","name":"a","uid":"u"},
                      "type":"Warning","reason":"Failed"})"),
      json::parse(R"({"metadata":{"labels":null}})"),
      json::object(),
  };
  return all;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size > fuzz::k_max_input) return 0;
  const auto [label_text, field_text] = fuzz::split_once(fuzz::as_text(data, size), "\n");
  auto labels = apiserver::LabelSelector::parse(std::string(label_text));
  auto fields = apiserver::FieldSelector::parse(std::string(field_text));
  if (!labels && labels.error().message.empty()) fuzz::fail("a label selector error without a message");
  if (!fields && fields.error().message.empty()) fuzz::fail("a field selector error without a message");
  if (labels.has_value() != util::parse_label_selector(std::string(label_text)).has_value())
    fuzz::fail("LabelSelector and util::parse_label_selector disagree", label_text);
  for (const auto& object : objects()) {
    const auto& meta = object.contains("metadata") ? object["metadata"] : json::object();
    if (labels) (void)labels->matches(meta.contains("labels") ? meta["labels"] : json());
    if (fields) (void)fields->matches(object);
    if (labels && label_text.empty() && !labels->matches(meta.value("labels", json())))
      fuzz::fail("the empty label selector does not match");
  }
  return 0;
}
