#include "apiserver/schema_defaults.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace kpt::apiserver {
namespace {

using nlohmann::json;

const json k_schema = json::parse(R"({
  "type": "object",
  "properties": {
    "metadata": {"type": "object", "properties": {"labels": {"type": "object", "default": {"a": "b"}}}},
    "spec": {
      "type": "object",
      "properties": {
        "managedBy": {"type": "string", "default": "trainer.kubeflow.org/trainjob-controller"},
        "suspend": {"type": "boolean", "default": false},
        "note": {"type": "string", "nullable": true, "default": "n"},
        "runtimeRef": {
          "type": "object",
          "properties": {
            "name": {"type": "string"},
            "kind": {"type": "string", "default": "ClusterTrainingRuntime"}
          }
        },
        "ports": {"type": "array", "items": {"type": "object",
                  "properties": {"protocol": {"type": "string", "default": "TCP"}}}},
        "byName": {"type": "object", "additionalProperties": {"type": "object",
                   "properties": {"replicas": {"type": "integer", "default": 1}}}}
      }
    }
  }
})");

TEST(SchemaDefaults, FillsMissingFieldsAtEveryLevelAndKeepsWhatIsSet) {
  json obj = json::parse(R"({"metadata": {"name": "x"}, "spec": {"suspend": true, "runtimeRef": {"name": "t"},
    "ports": [{}, {"protocol": "UDP"}], "byName": {"Worker": {}, "Master": {"replicas": 3}}}})");
  apply_schema_defaults(obj, k_schema);
  EXPECT_EQ(obj, json::parse(R"({"metadata": {"name": "x"}, "spec": {"suspend": true,
    "managedBy": "trainer.kubeflow.org/trainjob-controller", "note": "n",
    "runtimeRef": {"name": "t", "kind": "ClusterTrainingRuntime"},
    "ports": [{"protocol": "TCP"}, {"protocol": "UDP"}],
    "byName": {"Worker": {"replicas": 1}, "Master": {"replicas": 3}}}})"));
}

TEST(SchemaDefaults, NullIsDefaultedUnlessNullableAndAnAbsentParentIsNotCreated) {
  json obj = json::parse(R"({"spec": {"managedBy": null, "note": null}})");
  apply_schema_defaults(obj, k_schema);
  EXPECT_EQ(obj["spec"]["managedBy"], "trainer.kubeflow.org/trainjob-controller");
  EXPECT_TRUE(obj["spec"]["note"].is_null());
  EXPECT_FALSE(obj["spec"].contains("runtimeRef"));  // no default of its own: stays absent
  json empty = json::object();
  apply_schema_defaults(empty, k_schema);
  EXPECT_EQ(empty, json::object());
}

TEST(SchemaDefaults, DeepNestingStopsAtTheDepthLimit) {
  // A schema and an object 200 levels deep, each level `{"c": {...}, "d": default}`.
  json schema = {{"type", "object"}};
  json obj = json::object();
  json* s_at = &schema;
  json* o_at = &obj;
  for (int i = 0; i < 200; ++i) {
    (*s_at)["properties"]["d"] = {{"type", "integer"}, {"default", i}};
    (*s_at)["properties"]["c"] = {{"type", "object"}};
    s_at = &(*s_at)["properties"]["c"];
    (*o_at)["c"] = json::object();
    o_at = &(*o_at)["c"];
  }
  apply_schema_defaults(obj, schema, 8);
  EXPECT_EQ(obj["d"], 0);
  EXPECT_EQ(obj["c"]["c"]["c"]["d"], 3);
  const json* at = &obj;
  for (int i = 0; i < 12; ++i) at = &(*at)["c"];
  EXPECT_FALSE(at->contains("d"));
}

}  // namespace
}  // namespace kpt::apiserver
