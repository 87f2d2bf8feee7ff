// openapi_v2_protobuf(): the JSON document of openapi_v2_document() in gnostic's encoding.
#include "apiserver/openapi_v2.hpp"
#include "apiserver/proto/openapi_v2.pb.h"
#include "util/json_access.hpp"

namespace kpt::apiserver {

namespace {

namespace oapi = kpt::openapi_v2;

void encode_v2_schema(const nlohmann::json& in, oapi::Schema& out, int depth) {
  if (!in.is_object() || depth >= k_openapi_v2_max_depth) return;
  if (const auto description = util::optional_string(in, "description")) out.set_description(*description);
  if (const auto format = util::optional_string(in, "format")) out.set_format(*format);
  if (const auto type = util::optional_string(in, "type")) out.mutable_type()->add_value(*type);
  for (const auto& name : util::array_at(in, "required")) {
    if (name.is_string()) out.add_required(name.get<std::string>());
  }
  if (const auto* items = util::child(in, "items"); items != nullptr && items->is_object())
    encode_v2_schema(*items, *out.mutable_items()->add_schema(), depth + 1);
  if (const auto* values = util::child(in, "additionalProperties"); values != nullptr && values->is_object())
    encode_v2_schema(*values, *out.mutable_additional_properties()->mutable_schema(), depth + 1);
  if (const auto* properties = util::child(in, "properties");
      properties != nullptr && properties->is_object()) {
    auto& named = *out.mutable_properties();
    for (const auto& [name, property] : properties->items()) {
      auto& entry = *named.add_additional_properties();
      entry.set_name(name);
      encode_v2_schema(property, *entry.mutable_value(), depth + 1);
    }
  }
  for (const auto& [key, value] : in.items()) {
    // Vendor extensions travel as YAML text; JSON is YAML.
    if (key.rfind("x-", 0) != 0) continue;
    auto& extension = *out.add_vendor_extension();
    extension.set_name(key);
    extension.mutable_value()->set_yaml(value.dump());
  }
}

}  // namespace

std::string openapi_v2_protobuf(const nlohmann::json& document) {
  oapi::Document doc;
  doc.set_swagger(util::string_at(document, "swagger"));
  const auto& info = util::member(document, "info");
  doc.mutable_info()->set_title(util::string_at(info, "title"));
  doc.mutable_info()->set_version(util::string_at(info, "version"));
  auto& definitions = *doc.mutable_definitions();
  for (const auto& [name, schema] : util::object_at(document, "definitions").items()) {
    auto& entry = *definitions.add_additional_properties();
    entry.set_name(name);
    encode_v2_schema(schema, *entry.mutable_value(), 0);
  }
  return doc.SerializeAsString();
}

}  // namespace kpt::apiserver
