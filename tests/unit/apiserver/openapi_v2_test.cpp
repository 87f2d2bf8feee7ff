#include "apiserver/openapi_v2.hpp"

#include "apiserver/discovery.hpp"
#include "apiserver/resources.hpp"
#include "schema/carried/carried_crds.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <string>

namespace kpt::apiserver {
namespace {

using nlohmann::json;

TEST(OpenApiV2, EachSchemaBecomesOneKubectlParses) {
  struct Case {
    const char* name;
    const char* v3;
    const char* v2;
  };
  const Case cases[] = {
      {"a primitive keeps its type, format and description",
       R"({"type": "integer", "format": "int32", "description": "d", "minimum": 1})",
       R"({"type": "integer", "format": "int32", "description": "d"})"},
      {"an object's properties, and the required ones it has",
       R"({"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a", "gone"]})",
       R"({"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"]})"},
      {"properties without a type make an object", R"({"properties": {"a": {"type": "boolean"}}})",
       R"({"type": "object", "properties": {"a": {"type": "boolean"}}})"},
      {"a map", R"({"type": "object", "additionalProperties": {"type": "number"}})",
       R"({"type": "object", "additionalProperties": {"type": "number"}})"},
      {"empty properties are a map (a kind without fields would refuse every field)",
       R"({"type": "object", "properties": {}})", R"({"type": "object"})"},
      {"an array", R"({"type": "array", "items": {"type": "string"}})",
       R"({"type": "array", "items": {"type": "string"}})"},
      {"an array without items is untyped", R"({"type": "array", "description": "d"})",
       R"({"description": "d"})"},
      {"int-or-string is untyped", R"({"type": "string", "x-kubernetes-int-or-string": true})", R"({})"},
      {"nullable is untyped, its properties too",
       R"({"type": "object", "nullable": true, "properties": {"a": {"type": "string"}}})", R"({})"},
      {"preserving unknown fields is untyped",
       R"({"type": "object", "x-kubernetes-preserve-unknown-fields": true, "properties": {"a": {}}})",
       R"({})"},
      {"an embedded resource is untyped", R"({"type": "object", "x-kubernetes-embedded-resource": true})",
       R"({})"},
      {"an unknown type is untyped", R"({"type": "null"})", R"({})"},
      {"allOf, oneOf, anyOf and not are dropped",
       R"({"type": "string", "allOf": [{"minLength": 1}], "oneOf": [{}], "anyOf": [{}], "not": {}})",
       R"({"type": "string"})"},
      {"a value that is not a schema is untyped", R"("text")", R"({})"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    EXPECT_EQ(openapi_v2_schema(json::parse(c.v3)), json::parse(c.v2));
  }
}

TEST(OpenApiV2, DepthIsBounded) {
  json deep = {{"type", "string"}};
  for (int i = 0; i < k_openapi_v2_max_depth + 10; ++i) deep = {{"type", "array"}, {"items", deep}};
  json at = openapi_v2_schema(deep);
  int depth = 0;
  while (at.contains("items")) {
    at = json(at["items"]);
    ++depth;
  }
  EXPECT_EQ(depth, k_openapi_v2_max_depth);
  EXPECT_EQ(at, json::object());
}

TEST(OpenApiV2, TheDocumentHasTheCrdKindsTaggedWithTheirGroupVersionKind) {
  ResourceRegistry registry;
  const auto before = registry.generation();
  registry.apply_crd(schema::pytorchjob_crd());
  EXPECT_NE(registry.generation(), before);
  const auto doc = openapi_v2_document(registry);
  EXPECT_EQ(doc["swagger"], "2.0");
  ASSERT_TRUE(doc["definitions"].contains("org.kubeflow.v1.PyTorchJob"));
  EXPECT_EQ(doc["definitions"].size(), 1u) << "built-in kinds are not published";
  const auto& job = doc["definitions"]["org.kubeflow.v1.PyTorchJob"];
  EXPECT_EQ(job["x-kubernetes-group-version-kind"],
            json::parse(R"([{"group": "kubeflow.org", "kind": "PyTorchJob", "version": "v1"}])"));
  EXPECT_EQ(job["properties"]["metadata"]["type"], "object");
  EXPECT_FALSE(job["properties"]["metadata"].contains("properties"));
  EXPECT_EQ(job["properties"]["spec"]["properties"]["pytorchReplicaSpecs"]["additionalProperties"]
               ["properties"]["replicas"]["type"],
            "integer");
  registry.remove_crd("pytorchjobs.kubeflow.org");
  EXPECT_TRUE(openapi_v2_document(registry)["definitions"].empty());
}

std::string bytes(std::initializer_list<int> values) {
  std::string out;
  for (const int v : values) out.push_back(static_cast<char>(v));
  return out;
}

TEST(OpenApiV2, TheProtobufUsesGnosticsFieldNumbers) {
  // Field numbers from gnostic's OpenAPIv2.proto: Document.swagger 1, info 2, definitions 9;
  // Info.title 1, version 2; Definitions.additional_properties 1; NamedSchema.name 1, value 2;
  // Schema.description 4, type 22, vendor_extension 31; TypeItem.value 1; NamedAny.name 1,
  // value 2; Any.yaml 2.
  const auto doc = json::parse(R"({"swagger": "2.0", "info": {"title": "K", "version": "v"},
      "definitions": {"a": {"description": "d", "type": "string", "x-k": 1}}})");
  const std::string schema =
      bytes({0x22, 0x01, 'd',  0xb2, 0x01, 0x08, 0x0a, 0x06, 's',  't',  'r',  'i',  'n', 'g',
             0xfa, 0x01, 0x0a, 0x0a, 0x03, 'x',  '-',  'k',  0x12, 0x03, 0x12, 0x01, '1'});
  const std::string named = bytes({0x0a, 0x01, 'a', 0x12, static_cast<int>(schema.size())}) + schema;
  const std::string definitions = bytes({0x0a, static_cast<int>(named.size())}) + named;
  const std::string expected = bytes({0x0a, 0x03, '2', '.', '0', 0x12, 0x06, 0x0a, 0x01, 'K', 0x12, 0x01, 'v',
                                      0x4a, static_cast<int>(definitions.size())}) +
                               definitions;
  EXPECT_EQ(openapi_v2_protobuf(doc), expected);
}

}  // namespace
}  // namespace kpt::apiserver
