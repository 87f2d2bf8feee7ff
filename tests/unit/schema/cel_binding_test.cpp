#include "schema/cel_binding.hpp"

#include "schema/structural_schema.hpp"
#include "schema/structural_schema_impl.hpp"
#include "tests/unit/schema/structural_test_support.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace kpt::schema {
namespace {

using testing::parse_one;

// Our own schema with one field of each binding case.
const std::string k_schema = R"yaml(type: object
properties:
  apiVersion: {type: string}
  kind: {type: string}
  metadata: {type: object}
  count: {type: integer}
  ratio: {type: number}
  port: {x-kubernetes-int-or-string: true}
  when: {type: string, format: date-time}
  span: {type: string, format: duration}
  blob: {type: string, format: byte}
  mode: {type: string, default: fast}
  note: {type: string, nullable: true}
  labels: {type: object, additionalProperties: {type: string}}
  open: {type: object, x-kubernetes-preserve-unknown-fields: true}
  anything: {x-kubernetes-preserve-unknown-fields: true}
  foo-bar: {type: integer}
  child:
    type: object
    x-kubernetes-embedded-resource: true
    properties:
      data: {type: object, additionalProperties: {type: string}}
)yaml";

const StructuralSchema& schema() {
  static const SchemaSet set = [] {
    auto compiled =
        SchemaSet::from_openapi(parse_one("schema.yaml", k_schema).root, "example.com", "v1", "Thing");
    if (!compiled) throw std::runtime_error(compiled.error().message);
    return std::move(compiled).value();
  }();
  return *set.find("example.com/v1", "Thing");
}

std::string bound(const std::string& yaml, const std::vector<std::string>* only = nullptr) {
  const auto doc = parse_one("t.yaml", yaml);
  return cel::display(to_cel_value(doc.root, schema(), true, only));
}

TEST(CelBinding, ScalarsTakeTheirSchemaType) {
  EXPECT_EQ(bound("count: 3\nratio: 3\nport: 80\n"), "{count: 3, ratio: 3, port: 80, mode: fast}");
  const auto doc = parse_one("t.yaml", "count: 2.0\nratio: 3\nport: http\n");
  const cel::Value v = to_cel_value(doc.root, schema(), true);
  EXPECT_EQ(v.as_map().find("count")->kind(), cel::Kind::int64);  // 2.0 reaches the API server as 2
  EXPECT_EQ(v.as_map().find("ratio")->kind(), cel::Kind::double_);
  EXPECT_EQ(v.as_map().find("port")->kind(), cel::Kind::string);
}

TEST(CelBinding, FormattedStringsAreOpaque) {
  const auto doc = parse_one("t.yaml", "when: 2024-01-02T03:04:05Z\nspan: 5m\nblob: aGk=\n");
  const cel::Value v = to_cel_value(doc.root, schema(), true);
  EXPECT_EQ(v.as_map().find("when")->type_name(), "google.protobuf.Timestamp");
  EXPECT_EQ(v.as_map().find("span")->type_name(), "google.protobuf.Duration");
  EXPECT_EQ(v.as_map().find("blob")->type_name(), "bytes");
}

TEST(CelBinding, ObjectsShowWhatTheApiServerShows) {
  // Defaults filled in, unknown and preserved fields invisible, nulls of non-nullable fields
  // dropped, metadata reduced to name and generateName.
  EXPECT_EQ(
      bound("apiVersion: example.com/v1\nkind: Thing\nmetadata: {name: t, namespace: ns, labels: {a: b}}\n"
            "unknown: 1\nopen: {x: 1}\ncount: null\nnote: null\nlabels: {a: b}\n"),
      "{apiVersion: example.com/v1, kind: Thing, metadata: {name: t}, open: {}, note: null, "
      "labels: {a: b}, mode: fast}");
  EXPECT_EQ(bound("anything: {x: [1, 2]}\n"),
            "{anything: unknown (x-kubernetes-preserve-unknown-fields), mode: fast}");
  EXPECT_EQ(bound("child: {apiVersion: v1, kind: ConfigMap, metadata: {name: c, uid: u}, data: {k: v}}\n"),
            "{child: {apiVersion: v1, kind: ConfigMap, metadata: {name: c}, data: {k: v}}, mode: fast}");
}

TEST(CelBinding, ObjectsAreEscapedMapsAreNot) {
  const auto doc = parse_one("t.yaml", "foo-bar: 1\nlabels: {a-b: x}\n");
  const cel::Value v = to_cel_value(doc.root, schema(), true);
  EXPECT_TRUE(v.as_map().is_object());
  EXPECT_FALSE(v.as_map().find("labels")->as_map().is_object());
}

TEST(CelBinding, OnlyTheFieldsARuleReadsAreBound) {
  const std::vector<std::string> only = {"count", "mode"};
  EXPECT_EQ(bound("count: 1\nratio: 2\nlabels: {a: b}\n", &only), "{count: 1, mode: fast}");
}

}  // namespace
}  // namespace kpt::schema
