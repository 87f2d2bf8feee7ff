#include "schema/node_json.hpp"

#include <nlohmann/json.hpp>

namespace kpt::schema {

nlohmann::json to_json(const Node& node) {
  switch (node.kind) {
    case NodeKind::null: return nullptr;
    case NodeKind::boolean: return node.boolean;
    case NodeKind::integer:
      if (node.int_overflow) return node.text;
      return node.integer;
    case NodeKind::number: return node.number;
    case NodeKind::string: return node.text;
    case NodeKind::sequence: {
      auto out = nlohmann::json::array();
      for (const auto& item : node.items) out.push_back(to_json(item));
      return out;
    }
    case NodeKind::mapping: {
      auto out = nlohmann::json::object();
      for (std::size_t i = 0; i < node.keys.size(); ++i) {
        // First key wins on duplicates, as the reader reports them separately.
        if (!out.contains(node.keys[i])) out[node.keys[i]] = to_json(node.items[i]);
      }
      return out;
    }
  }
  return nullptr;
}

}  // namespace kpt::schema
