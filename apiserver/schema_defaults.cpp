#include "apiserver/schema_defaults.hpp"

#include <nlohmann/json.hpp>

namespace kpt::apiserver {

namespace {

using nlohmann::json;

void default_value(json& value, const json& schema, int depth_left, bool root);

void default_properties(json& object, const json& properties, int depth_left, bool root) {
  for (const auto& [name, property] : properties.items()) {
    if (!property.is_object() || (root && name == "metadata")) continue;
    const auto it = object.find(name);
    const bool missing = it == object.end() || (it->is_null() && !property.value("nullable", false));
    if (missing && property.contains("default")) object[name] = property["default"];
    if (object.contains(name)) default_value(object[name], property, depth_left - 1, false);
  }
}

void default_value(json& value, const json& schema, int depth_left, bool root) {
  if (depth_left <= 0 || !schema.is_object()) return;
  if (value.is_object()) {
    if (const auto p = schema.find("properties"); p != schema.end() && p->is_object())
      default_properties(value, *p, depth_left, root);
    if (const auto a = schema.find("additionalProperties"); a != schema.end() && a->is_object()) {
      for (auto& [key, child] : value.items()) {
        (void)key;
        default_value(child, *a, depth_left - 1, false);
      }
    }
  } else if (value.is_array()) {
    if (const auto items = schema.find("items"); items != schema.end() && items->is_object()) {
      for (auto& child : value) default_value(child, *items, depth_left - 1, false);
    }
  }
}

}  // namespace

void apply_schema_defaults(json& object, const json& schema, int max_depth) {
  default_value(object, schema, max_depth, true);
}

}  // namespace kpt::apiserver
