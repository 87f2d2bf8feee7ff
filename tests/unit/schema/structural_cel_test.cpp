// x-kubernetes-validations rules evaluated by the structural validator: self bound as the API
// server binds it, findings with its messages, transition rules set aside, unsupported rules
// reported, cost bounded. A Widget CRD of our own carries one rule per behaviour.
#include "schema/structural_schema.hpp"
#include "schema/structural_schema_impl.hpp"
#include "tests/unit/schema/structural_test_support.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace kpt::schema {
namespace {

using testing::parse_one;
using testing::render;
using Lines = std::vector<std::string>;

const std::string k_crd = R"yaml(apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.example.com
spec:
  group: example.com
  names: {kind: Widget, listKind: WidgetList, plural: widgets, singular: widget}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        x-kubernetes-validations:
        - rule: self.metadata.name.startsWith('w-')
          message: 'name must start with w- '
        - rule: "!has(self.metadata.namespace)"
        properties:
          apiVersion: {type: string}
          kind: {type: string}
          metadata: {type: object}
          spec:
            type: object
            x-kubernetes-validations:
            - rule: self.minReplicas <= self.maxReplicas
              message: minReplicas must not exceed maxReplicas
              fieldPath: .minReplicas
              reason: FieldValueInvalid
            - rule: "!has(self.mode) || self.mode != 'legacy' || self.maxReplicas == 1"
            - rule: "!has(self.tags) || self.tags.all(t, size(t) <= self.maxTagLength)"
              message: tag too long
              messageExpression: "'tag longer than ' + string(self.maxTagLength)"
            properties:
              minReplicas: {type: integer}
              maxReplicas: {type: integer}
              ratio:
                type: number
                x-kubernetes-validations:
                - rule: self * 2.0 <= 2.0
                  message: ratio above 1
              mode: {type: string}
              maxTagLength: {type: integer, default: 5}
              tags: {type: array, items: {type: string}}
              size:
                type: string
                x-kubernetes-validations:
                - rule: quantity(self).isGreaterThan(quantity('1Gi'))
              since:
                type: string
                format: date-time
                x-kubernetes-validations:
                - rule: self == self
              queue:
                type: string
                x-kubernetes-validations:
                - rule: self == oldSelf
                  message: queue is immutable
              weights:
                type: object
                additionalProperties: {type: integer}
                x-kubernetes-validations:
                - rule: self.all(k, 100 / self[k] > 1)
              items:
                type: array
                items: {type: integer}
                x-kubernetes-validations:
                - rule: self.all(x, self.all(y, self.all(z, x + y + z >= 0)))
                - rule: self.size() < 0
              extra:
                type: object
                x-kubernetes-preserve-unknown-fields: true
                properties:
                  known: {type: string}
                x-kubernetes-validations:
                - rule: "!has(self.secret)"
)yaml";

const SchemaSet& widgets() {
  static const SchemaSet set = [] {
    auto compiled = SchemaSet::from_crd(parse_one("widgets.yaml", k_crd));
    if (!compiled) throw std::runtime_error(compiled.error().message);
    return std::move(compiled).value();
  }();
  return set;
}

Lines validate(const SchemaSet& set, const std::string& text) {
  const auto doc = parse_one("w.yaml", text);
  const StructuralSchema* schema = set.find("example.com/v1", "Widget");
  EXPECT_NE(schema, nullptr);
  return schema == nullptr ? Lines{} : render(validate_structure(doc, *schema, {}));
}

const std::string k_head = "apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: w-one\nspec:\n";

TEST(StructuralCel, AValidWidgetHasNoFindings) {
  EXPECT_EQ(validate(widgets(), k_head + "  minReplicas: 1\n  maxReplicas: 2\n  tags: [a, bb]\n"), Lines{});
}

TEST(StructuralCel, AFailingRuleIsAnErrorWithItsMessageAtItsNode) {
  EXPECT_EQ(validate(widgets(), "apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: one\n"),
            Lines({"w.yaml:1:1 error : name must start with w- [schema.cel]"}));
  EXPECT_EQ(
      validate(widgets(), k_head + "  minReplicas: 3\n  maxReplicas: 2\n"),
      Lines({"w.yaml:6:16 error spec.minReplicas: minReplicas must not exceed maxReplicas [schema.cel]"}));
  EXPECT_EQ(validate(widgets(), k_head + "  minReplicas: 1\n  maxReplicas: 2\n  mode: legacy\n"),
            Lines({"w.yaml:6:3 error spec: failed rule: !has(self.mode) || self.mode != 'legacy' || "
                   "self.maxReplicas == 1 [schema.cel]"}));
}

TEST(StructuralCel, SelfIsTypedAsTheApiServerBindsIt) {
  const std::string base = k_head + "  minReplicas: 1\n  maxReplicas: 2\n";
  // An integer in a number field is a double; the default maxTagLength (5) is filled in.
  EXPECT_EQ(validate(widgets(), base + "  ratio: 1\n  tags: [abcde]\n"), Lines{});
  EXPECT_EQ(validate(widgets(), base + "  ratio: 2\n"),
            Lines({"w.yaml:8:10 error spec.ratio: ratio above 1 [schema.cel]"}));
  EXPECT_EQ(validate(widgets(), base + "  tags: [abcdef]\n"),
            Lines({"w.yaml:6:3 error spec: tag too long [schema.cel]"}));
  EXPECT_EQ(validate(widgets(), base + "  maxTagLength: 6\n  tags: [abcdef]\n"), Lines{});
  // Fields the schema does not declare are invisible to CEL (preserved, not typed), as is the
  // metadata beyond name and generateName.
  EXPECT_EQ(validate(widgets(), base + "  extra:\n    known: k\n    secret: s\n"), Lines{});
  EXPECT_EQ(validate(widgets(),
                     "apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: w-one\n"
                     "  namespace: ns\n"),
            Lines{});
}

TEST(StructuralCel, EvaluationErrorsUseTheApiServerWording) {
  EXPECT_EQ(
      validate(widgets(), k_head + "  minReplicas: 1\n"),
      Lines({"w.yaml:6:3 error spec: no such key: maxReplicas evaluating rule: minReplicas must not exceed "
             "maxReplicas [schema.cel]"}));
  EXPECT_EQ(
      validate(widgets(), k_head + "  minReplicas: 1\n  maxReplicas: 2\n  weights: {a: 10, b: 0}\n"),
      Lines({"w.yaml:8:12 error spec.weights: division by zero evaluating rule: self.all(k, 100 / self[k] > "
             "1) [schema.cel]"}));
}

TEST(StructuralCel, RulesThisEvaluatorCannotCheckAreWarnings) {
  EXPECT_EQ(
      validate(widgets(), k_head + "  minReplicas: 1\n  maxReplicas: 2\n  size: 2Gi\n"),
      Lines({"w.yaml:8:9 warning spec.size: x-kubernetes-validations rule "
             "'quantity(self).isGreaterThan(quantity('1Gi'))' not checked: unsupported function 'quantity' "
             "[schema.cel-not-checked]"}));
  EXPECT_EQ(
      validate(widgets(), k_head + "  minReplicas: 1\n  maxReplicas: 2\n  since: 2024-01-02T03:04:05Z\n"),
      Lines({"w.yaml:8:10 warning spec.since: x-kubernetes-validations rule 'self == self' not checked: "
             "unsupported google.protobuf.Timestamp values [schema.cel-not-checked]"}));
}

TEST(StructuralCel, TransitionRulesAreListedOnceAsNotEvaluatedOnCreate) {
  EXPECT_EQ(
      validate(widgets(), k_head + "  minReplicas: 1\n  maxReplicas: 2\n  queue: q\n"),
      Lines(
          {"w.yaml:1:1 info : 1 transition rule (oldSelf) not evaluated on create: spec.queue: 'self == "
           "oldSelf' [schema.cel-transition] hint: rules that compare with oldSelf apply to updates, not to "
           "a create"}));
}

TEST(StructuralCel, TheCostLimitStopsTheDocumentsRules) {
  std::string items = "  items: [";
  for (int i = 0; i < 300; ++i) items += std::to_string(i) + ",";
  items += "0]\n";
  EXPECT_EQ(
      validate(widgets(), k_head + "  minReplicas: 1\n  maxReplicas: 2\n" + items),
      Lines({"w.yaml:8:10 error spec.items: 'operation cancelled: actual cost limit exceeded': no further "
             "validation rules will be run due to call cost exceeds limit for rule: self.all(x, self.all(y, "
             "self.all(z, x + y + z >= 0))) [schema.cel]"}));
}

TEST(StructuralCel, RulesSurviveTheBinaryForm) {
  auto loaded = SchemaSet::deserialize(widgets().serialize());
  ASSERT_TRUE(loaded) << loaded.error().message;
  const StructuralSchema* root = loaded->find("example.com/v1", "Widget");
  ASSERT_NE(root, nullptr);
  const StructuralSchema* spec = root->property("spec");
  ASSERT_NE(spec, nullptr);
  ASSERT_EQ(spec->validations.size(), 3u);
  const CelRule& rule = spec->validations[0];
  EXPECT_EQ(rule.rule, "self.minReplicas <= self.maxReplicas");
  EXPECT_EQ(rule.field_path, ".minReplicas");
  EXPECT_EQ(rule.reason, "FieldValueInvalid");
  EXPECT_EQ(spec->validations[2].message_expression, "'tag longer than ' + string(self.maxTagLength)");
  ASSERT_NE(rule.program, nullptr);
  EXPECT_EQ(
      validate(*loaded, k_head + "  minReplicas: 3\n  maxReplicas: 2\n"),
      Lines({"w.yaml:6:16 error spec.minReplicas: minReplicas must not exceed maxReplicas [schema.cel]"}));
}

}  // namespace
}  // namespace kpt::schema
