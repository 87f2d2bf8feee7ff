// The CEL evaluator on any rule text and any `self`: "rule\n%%\nYAML or JSON for self". It
// compiles and evaluates within its limits, never throws, and a result says why it is not a
// pass or a fail.
#include "schema/cel/cel.hpp"
#include "tests/fuzz/fuzz_support.hpp"
#include "yaml/manifest_reader.hpp"

#include <memory>

using namespace kpt;

namespace {

/// self from a positioned tree. Maps from YAML mappings are schema objects, so rules may select
/// Kubernetes-escaped field names.
cel::Value to_value(const yaml::Node& node) {
  switch (node.kind) {
    case yaml::NodeKind::null:
      return cel::Value::null();
    case yaml::NodeKind::boolean:
      return cel::Value::boolean(node.boolean);
    case yaml::NodeKind::integer:
      return node.int_overflow ? cel::Value::string(node.text) : cel::Value::int64(node.integer);
    case yaml::NodeKind::number:
      return cel::Value::from_double(node.number);
    case yaml::NodeKind::string:
      return cel::Value::string(node.text);
    case yaml::NodeKind::sequence: {
      std::vector<cel::Value> items;
      for (const auto& item : node.items) items.push_back(to_value(item));
      return cel::Value::list(std::move(items));
    }
    case yaml::NodeKind::mapping: {
      cel::MapBuilder map(true);
      for (std::size_t i = 0; i < node.keys.size(); ++i) map.add(node.keys[i], to_value(node.items[i]));
      return std::move(map).build();
    }
  }
  return cel::Value::null();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size > fuzz::k_max_input) return 0;
  const auto [rule, self_text] = fuzz::split_once(fuzz::as_text(data, size), "\n%%\n");
  yaml::ReadLimits limits;
  limits.max_nodes = 10'000;
  const auto read = yaml::read_manifests("self.yaml", std::make_shared<const std::string>(self_text), limits);
  const cel::Value self = read.documents.empty() ? cel::Value::null() : to_value(read.documents.front().root);
  const auto result = cel::check_and_eval(rule, self);
  const bool decided = result.status == cel::Status::pass || result.status == cel::Status::fail ||
                       result.status == cel::Status::skipped;
  if (!decided && result.message.empty())
    fuzz::fail("a CEL result that is neither pass nor fail and gives no reason",
               cel::to_string(result.status));
  if (result.cost > 2 * cel::Limits{}.cost_limit) fuzz::fail("a CEL evaluation far past its cost limit");
  return 0;
}
