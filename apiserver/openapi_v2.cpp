#include "apiserver/openapi_v2.hpp"

#include "apiserver/discovery.hpp"
#include "util/json_access.hpp"

#include <string_view>

namespace kpt::apiserver {

namespace {

bool v3_flag(const nlohmann::json& schema, std::string_view key) {
  const auto* value = util::child(schema, key);
  return value != nullptr && value->is_boolean() && value->get<bool>();
}

bool is_primitive_type(const std::string& type) {
  return type == "string" || type == "integer" || type == "number" || type == "boolean";
}

/// `schema` with its description only: untyped, so kubectl validates nothing below it.
nlohmann::json untyped(const nlohmann::json& schema) {
  nlohmann::json out = nlohmann::json::object();
  if (const auto description = util::optional_string(schema, "description"))
    out["description"] = *description;
  return out;
}

}  // namespace

nlohmann::json openapi_v2_schema(const nlohmann::json& v3, int depth) {
  if (!v3.is_object() || depth >= k_openapi_v2_max_depth) return nlohmann::json::object();
  nlohmann::json out = untyped(v3);
  // What the real server's ToStructuralOpenAPIV2 leaves untyped: kubectl would refuse their values.
  for (const char* key : {"nullable", "x-kubernetes-int-or-string", "x-kubernetes-preserve-unknown-fields",
                          "x-kubernetes-embedded-resource"}) {
    if (v3_flag(v3, key)) return out;
  }
  const auto& properties = util::object_at(v3, "properties");
  std::string type = util::string_at(v3, "type");
  if (type.empty() && !properties.empty()) type = "object";
  if (is_primitive_type(type)) {
    out["type"] = type;
    if (const auto format = util::optional_string(v3, "format")) out["format"] = *format;
    return out;
  }
  if (type == "array") {
    const auto* items = util::child(v3, "items");
    if (items == nullptr || !items->is_object()) return out;  // kubectl needs exactly one items schema
    out["type"] = "array";
    out["items"] = openapi_v2_schema(*items, depth + 1);
    return out;
  }
  if (type != "object") return out;
  out["type"] = "object";
  if (!properties.empty()) {
    // An empty properties object would be a kind without fields, refusing every field.
    auto& converted = out["properties"] = nlohmann::json::object();
    for (const auto& [name, property] : properties.items())
      converted[name] = openapi_v2_schema(property, depth + 1);
    nlohmann::json required = nlohmann::json::array();
    for (const auto& name : util::array_at(v3, "required")) {
      if (name.is_string() && converted.contains(name.get<std::string>())) required.push_back(name);
    }
    if (!required.empty()) out["required"] = std::move(required);
    return out;
  }
  if (const auto* values = util::child(v3, "additionalProperties"); values != nullptr && values->is_object())
    out["additionalProperties"] = openapi_v2_schema(*values, depth + 1);
  return out;
}

nlohmann::json openapi_v2_document(const ResourceRegistry& registry) {
  nlohmann::json definitions = nlohmann::json::object();
  for (const auto& r : registry.all()) {
    if (!r->custom) continue;
    auto schema = openapi_v2_schema(r->schema);
    if (schema.contains("properties")) {
      // As the real server publishes every CRD: its own apiVersion, kind and metadata, whatever the
      // schema says of them (metadata's fields are the server's to check).
      auto& properties = schema["properties"];
      properties["apiVersion"] = {{"type", "string"},
                                  {"description",
                                   "APIVersion defines the versioned schema of "
                                   "this representation of an object."}};
      properties["kind"] = {{"type", "string"},
                            {"description",
                             "Kind is a string value representing the REST resource this object "
                             "represents."}};
      properties["metadata"] = {{"type", "object"}, {"description", "Standard object's metadata."}};
    }
    schema["x-kubernetes-group-version-kind"] =
        nlohmann::json::array({{{"group", r->group}, {"kind", r->kind}, {"version", r->version}}});
    definitions[openapi_schema_name(*r)] = std::move(schema);
  }
  return {{"swagger", "2.0"},
          {"info", {{"title", "Kubernetes"}, {"version", "v1.32.0"}}},
          {"paths", nlohmann::json::object()},
          {"definitions", std::move(definitions)}};
}

}  // namespace kpt::apiserver
