#include "schema/carried/crd_descriptions.hpp"

#include "util/json_access.hpp"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <string_view>

namespace kpt::schema {

// Defined in the build-generated crd_descriptions_data.cpp (embed_text.py).
std::string_view crd_descriptions_text();

namespace {

/// object[key] when `object` is an object and that member too, else nullptr (the mutable
/// counterpart of util::child for the schema being described).
nlohmann::json* object_member(nlohmann::json& object, const char* key) {
  if (!object.is_object()) return nullptr;
  const auto it = object.find(key);
  return it != object.end() && it->is_object() ? &*it : nullptr;
}

/// The schema node under `key` of `schema` as extract_descriptions.py names children.
nlohmann::json* described_child(nlohmann::json& schema, const std::string& key) {
  if (key == "*") return object_member(schema, "additionalProperties");
  if (key == "[]") return object_member(schema, "items");
  auto* properties = object_member(schema, "properties");
  return properties != nullptr ? object_member(*properties, key.c_str()) : nullptr;
}

void describe_node(nlohmann::json& schema, const nlohmann::json& table, std::int64_t index) {
  const auto& nodes = util::array_at(table, "nodes");
  const auto& texts = util::array_at(table, "texts");
  if (index < 0 || static_cast<std::size_t>(index) >= nodes.size()) return;
  const auto& node = nodes[static_cast<std::size_t>(index)];
  if (!node.is_array() || node.size() != 2) return;
  if (node[0].is_number_integer()) {
    const auto text = node[0].get<std::int64_t>();
    if (text >= 0 && static_cast<std::size_t>(text) < texts.size() &&
        texts[static_cast<std::size_t>(text)].is_string() && !schema.contains("description"))
      schema["description"] = texts[static_cast<std::size_t>(text)];
  }
  if (!node[1].is_object()) return;
  for (const auto& [key, child_index] : node[1].items()) {
    // Children point backwards only (the extractor writes them first): the walk always ends.
    if (!child_index.is_number_integer() || child_index.get<std::int64_t>() >= index) continue;
    if (auto* child = described_child(schema, key))
      describe_node(*child, table, child_index.get<std::int64_t>());
  }
}

}  // namespace

nlohmann::json with_descriptions(nlohmann::json crd, const nlohmann::json& table) {
  const std::string name = util::string_at(util::member(crd, "metadata"), "name");
  auto* spec = object_member(crd, "spec");
  if (spec == nullptr || !spec->contains("versions") || !(*spec)["versions"].is_array()) return crd;
  for (auto& version : (*spec)["versions"]) {
    const auto root =
        util::int_at(util::object_at(table, "crds"), name + "/" + util::string_at(version, "name"));
    auto* schema_holder = object_member(version, "schema");
    auto* schema = schema_holder != nullptr ? object_member(*schema_holder, "openAPIV3Schema") : nullptr;
    if (root && schema != nullptr) describe_node(*schema, table, *root);
  }
  return crd;
}

nlohmann::json with_descriptions(nlohmann::json crd) {
  // Parsed per call: only `controller manifests` asks, once or four times per run.
  const auto table = nlohmann::json::parse(crd_descriptions_text(), nullptr, false);
  return with_descriptions(std::move(crd), table);
}

}  // namespace kpt::schema
