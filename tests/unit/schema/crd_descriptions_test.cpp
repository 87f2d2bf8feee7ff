#include "schema/carried/crd_descriptions.hpp"

#include "schema/carried/carried_crds.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <functional>
#include <string>

namespace kpt::schema {
namespace {

using nlohmann::json;

// A CRD "things.example.org" whose v1 schema has a property, a map and a list.
json toy_crd() {
  return json::parse(R"({"metadata": {"name": "things.example.org"}, "spec": {"versions": [{"name": "v1",
    "schema": {"openAPIV3Schema": {"type": "object", "properties": {
      "spec": {"type": "object", "properties": {
        "replicas": {"type": "integer", "description": "ours"},
        "byName": {"type": "object", "additionalProperties": {"type": "string"}},
        "ports": {"type": "array", "items": {"type": "object", "properties": {"port": {"type": "integer"}}}}}}}}}}]}})");
}

// Texts 0-5; node 8 is the root, each node after its children (as the extractor writes them). Each
// case replaces a node or the roots to break one thing.
json toy_table() {
  return json::parse(R"({"texts": ["Thing is a thing.", "Spec of the thing.", "Replica count.", "A value.",
                                   "A port.", "Not in our schema."],
    "nodes": [[3, {}], [-1, {"*": 0}], [4, {}], [-1, {"port": 2}], [-1, {"[]": 3}], [2, {}], [5, {}],
              [1, {"byName": 1, "ports": 4, "replicas": 5, "gone": 6}], [0, {"spec": 7}]],
    "crds": {"things.example.org/v1": 8}})");
}

std::string description_at(const json& crd, const std::string& pointer) {
  const json::json_pointer at("/spec/versions/0/schema/openAPIV3Schema" + pointer + "/description");
  return crd.contains(at) ? crd.at(at).get<std::string>() : "<none>";
}

TEST(CrdDescriptions, EachFieldGetsItsTextAndAMalformedTableAddsNothingWhereItIsMalformed) {
  struct Case {
    const char* name;
    std::function<void(json&)> break_table;
    const char* root;
    const char* spec;
    const char* map_value;
    const char* port;
  };
  const Case cases[] = {
      {"a well-formed table", [](json&) {}, "Thing is a thing.", "Spec of the thing.", "A value.", "A port."},
      {"no entry for the CRD", [](json& t) { t["crds"] = json::object(); }, "<none>", "<none>", "<none>",
       "<none>"},
      {"a child pointing forward (a cycle)",
       [](json& t) { t["nodes"][3] = json::parse(R"([-1, {"port": 8}])"); }, "Thing is a thing.",
       "Spec of the thing.", "A value.", "<none>"},
      {"a text index out of range", [](json& t) { t["nodes"][7][0] = 99; }, "Thing is a thing.", "<none>",
       "A value.", "A port."},
      {"a node that is not a pair", [](json& t) { t["nodes"][0] = "x"; }, "Thing is a thing.",
       "Spec of the thing.", "<none>", "A port."},
      {"nodes that are not an array", [](json& t) { t["nodes"] = 1; }, "<none>", "<none>", "<none>",
       "<none>"},
      {"a table that is not an object", [](json& t) { t = "garbage"; }, "<none>", "<none>", "<none>",
       "<none>"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    auto table = toy_table();
    c.break_table(table);
    const auto crd = with_descriptions(toy_crd(), table);
    EXPECT_EQ(description_at(crd, ""), c.root);
    EXPECT_EQ(description_at(crd, "/properties/spec"), c.spec);
    EXPECT_EQ(description_at(crd, "/properties/spec/properties/byName/additionalProperties"), c.map_value);
    EXPECT_EQ(description_at(crd, "/properties/spec/properties/ports/items/properties/port"), c.port);
    // What the schema has stays, and a field our schema lacks is not invented.
    EXPECT_EQ(description_at(crd, "/properties/spec/properties/replicas"), "ours");
    EXPECT_FALSE(
        crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"]["properties"].contains(
            "gone"));
  }
}

TEST(CrdDescriptions, TheCarriedCrdsGetKubeflowsDocComments) {
  const auto pytorchjob = with_descriptions(pytorchjob_crd());
  EXPECT_EQ(description_at(pytorchjob, ""), "PyTorchJob Represents a PyTorchJob resource.");
  EXPECT_EQ(description_at(pytorchjob, "/properties/spec/properties/pytorchReplicaSpecs"),
            "A map of PyTorchReplicaType (type) to ReplicaSpec (value). Specifies the PyTorch cluster "
            "configuration.\nFor example,\n  {\n    \"Master\": PyTorchReplicaSpec,\n    \"Worker\": "
            "PyTorchReplicaSpec,\n  }");
  EXPECT_EQ(
      description_at(pytorchjob,
                     "/properties/spec/properties/pytorchReplicaSpecs/additionalProperties/"
                     "properties/template/properties/spec/properties/containers/items/"
                     "properties/image"),
      "Container image name.\nMore info: https://kubernetes.io/docs/concepts/containers/images\nThis field "
      "is optional to allow higher level config management to default or override\ncontainer images in "
      "workload controllers like Deployments and StatefulSets.");
  const auto trainjob = with_descriptions(trainer_crds().at(0));
  EXPECT_EQ(description_at(trainjob, "/properties/spec/properties/runtimeRef"),
            "runtimeRef is the reference to the training runtime.");
  // The CRDs the validators compile and the local cluster installs stay without them.
  EXPECT_EQ(description_at(pytorchjob_crd(), ""), "<none>");
}

}  // namespace
}  // namespace kpt::schema
