#include "yaml/node_json.hpp"

#include "yaml/manifest_reader.hpp"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <memory>

namespace kpt::yaml {

nlohmann::json to_json(const Node& node) {
  switch (node.kind) {
    case NodeKind::null:
      return nullptr;
    case NodeKind::boolean:
      return node.boolean;
    case NodeKind::integer:
      if (node.int_overflow) return node.text;
      return node.integer;
    case NodeKind::number:
      return node.number;
    case NodeKind::string:
      return node.text;
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

Node from_json(const nlohmann::json& value) {
  Node n;
  switch (value.type()) {
    case nlohmann::json::value_t::null:
    case nlohmann::json::value_t::discarded:
      n.kind = NodeKind::null;
      break;
    case nlohmann::json::value_t::boolean:
      n.kind = NodeKind::boolean;
      n.boolean = value.get<bool>();
      n.text = n.boolean ? "true" : "false";
      break;
    case nlohmann::json::value_t::number_integer:
      n.kind = NodeKind::integer;
      n.integer = value.get<std::int64_t>();
      n.text = std::to_string(n.integer);
      break;
    case nlohmann::json::value_t::number_unsigned: {
      const auto u = value.get<std::uint64_t>();
      n.kind = NodeKind::integer;
      n.text = std::to_string(u);
      if (u > static_cast<std::uint64_t>(INT64_MAX))
        n.int_overflow = true;
      else
        n.integer = static_cast<std::int64_t>(u);
      break;
    }
    case nlohmann::json::value_t::number_float:
      n.kind = NodeKind::number;
      n.number = value.get<double>();
      n.text = value.dump();
      break;
    case nlohmann::json::value_t::string:
      n.kind = NodeKind::string;
      n.quoted = true;
      n.text = value.get<std::string>();
      break;
    case nlohmann::json::value_t::binary:
      n.kind = NodeKind::null;
      break;
    case nlohmann::json::value_t::array:
      n.kind = NodeKind::sequence;
      n.items.reserve(value.size());
      for (const auto& item : value) n.items.push_back(from_json(item));
      break;
    case nlohmann::json::value_t::object:
      n.kind = NodeKind::mapping;
      for (const auto& [k, v] : value.items()) {
        n.keys.push_back(k);
        n.key_positions.emplace_back();
        n.items.push_back(from_json(v));
      }
      break;
  }
  return n;
}

// One YAML reader for everything we parse: the manifest reader already resolves scalars as
// go-yaml v2 does (kubectl's YAML-to-JSON step) and bounds depth, aliases and size, which
// matters because a kubeconfig can come from anywhere.
Expected<nlohmann::json> yaml_to_json(const std::string& name, const std::string& text) {
  auto read = read_manifests(name, std::make_shared<const std::string>(text));
  for (const auto& finding : read.findings) {
    if (finding.severity != Severity::error) continue;
    return make_error(ErrorCode::parse, "'" + name + "' line " + std::to_string(finding.location.line) +
                                            ", column " + std::to_string(finding.location.col) + ": " +
                                            finding.message);
  }
  if (read.documents.empty()) return nlohmann::json(nullptr);
  return to_json(read.documents.front().root);
}

}  // namespace kpt::yaml
