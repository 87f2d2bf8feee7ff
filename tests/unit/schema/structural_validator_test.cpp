#include "schema/structural_schema.hpp"
#include "tests/unit/schema/structural_test_support.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace kpt::schema {
namespace {

using testing::fixture_path;
using testing::parse_one;
using testing::render;
using Lines = std::vector<std::string>;

const SchemaSet& fixture() {
  static const SchemaSet set = [] {
    std::ifstream in(fixture_path());
    std::stringstream ss;
    ss << in.rdbuf();
    auto compiled = SchemaSet::from_crd(parse_one(fixture_path(), ss.str()));
    if (!compiled) throw std::runtime_error(compiled.error().message);
    return std::move(compiled).value();
  }();
  return set;
}

Lines validate(const std::string& text, StructuralOptions opts = {}) {
  const auto doc = parse_one("job.yaml", text);
  const StructuralSchema* schema = fixture().find("kubeflow.org/v1", "PyTorchJob");
  EXPECT_NE(schema, nullptr);
  return schema == nullptr ? Lines{} : render(validate_structure(doc, *schema, opts));
}

// Lines 1-13; each case appends to or edits this.
const std::string k_head = R"(apiVersion: kubeflow.org/v1
kind: PyTorchJob
metadata:
  name: mnist
spec:
  pytorchReplicaSpecs:
    Worker:
      replicas: 2
      template:
        spec:
          containers:
          - name: pytorch
            image: img:1
)";

const std::string k_prefix = "spec.pytorchReplicaSpecs.Worker.template.spec.containers[0]";

struct Case {
  const char* name;
  std::string text;
  Lines expected;
};

void run_cases(const std::vector<Case>& cases, StructuralOptions opts = {}) {
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    EXPECT_EQ(validate(c.text, opts), c.expected);
  }
}

TEST(StructuralValidator, AValidJobHasNoFindings) { EXPECT_EQ(validate(k_head), Lines{}); }

TEST(StructuralValidator, UnknownFieldsAreErrorsAtTheKeyWithDidYouMeanHints) {
  run_cases({
      {"misspelled replicas",
       R"(apiVersion: kubeflow.org/v1
kind: PyTorchJob
metadata:
  name: mnist
spec:
  pytorchReplicaSpecs:
    Worker:
      replica: 2
      template:
        spec:
          containers:
          - name: pytorch
)",
       {"job.yaml:8:7 error spec.pytorchReplicaSpecs.Worker.replica: unknown field 'replica' "
        "[schema.unknown-field] "
        "hint: did you mean 'replicas'?"}},
      {"seed fields at the wrong level",
       k_head + "  cleanPodPolicy: All\n  topLevel: 1\n",
       {"job.yaml:14:3 error spec.cleanPodPolicy: unknown field 'cleanPodPolicy' [schema.unknown-field]",
        "job.yaml:15:3 error spec.topLevel: unknown field 'topLevel' [schema.unknown-field]"}},
      {"misspelled container field",
       k_head + "            imagePullPolicyy: Always\n            imag: x\n",
       {"job.yaml:14:13 error " + k_prefix +
            ".imagePullPolicyy: unknown field 'imagePullPolicyy' [schema.unknown-field]",
        "job.yaml:15:13 error " + k_prefix +
            ".imag: unknown field 'imag' [schema.unknown-field] hint: did you mean "
            "'image'?"}},
      {"unknown top-level field",
       k_head + "extra: 1\n",
       {"job.yaml:14:1 error extra: unknown field 'extra' [schema.unknown-field]"}},
  });
}

TEST(StructuralValidator, UnknownFieldsAreWarningsWhenNotStrict) {
  StructuralOptions opts;
  opts.unknown_fields_are_errors = false;
  run_cases({{"warning",
              k_head + "  nprocPerNod: auto\n",
              {"job.yaml:14:3 warning spec.nprocPerNod: unknown field 'nprocPerNod' [schema.unknown-field] "
               "hint: did "
               "you mean 'nprocPerNode'?"}}},
            opts);
}

TEST(StructuralValidator, TypesAreCheckedAsTheApiServerChecksThem) {
  run_cases({
      {"port name where a number belongs",
       k_head + "            ports:\n            - containerPort: \"http\"\n",
       {"job.yaml:15:30 error " + k_prefix +
        ".ports[0].containerPort: expected integer, got string 'http' "
        "[schema.type]"}},
      {"fraction is not an integer",
       k_head + "  runPolicy:\n    backoffLimit: 1.5\n",
       {"job.yaml:15:19 error spec.runPolicy.backoffLimit: expected integer, got number '1.5' "
        "[schema.type]"}},
      {"yaml 1.1 boolean where a string belongs",
       k_head + "            env:\n            - name: DEBUG\n              value: yes\n",
       {"job.yaml:16:22 error " + k_prefix +
        ".env[0].value: expected string, got boolean 'yes' [schema.type] hint: "
        "quote it: \"yes\""}},
      {"number where a string belongs",
       k_head + "            env:\n            - name: NUM\n              value: 5\n",
       {"job.yaml:16:22 error " + k_prefix +
        ".env[0].value: expected string, got integer '5' [schema.type] hint: "
        "quote it: \"5\""}},
      {"a type error stops descent",
       k_head + "  runPolicy: [1, {x: 2}]\n",
       {"job.yaml:14:3 error spec.runPolicy: expected object, got array [schema.type]"}},
      {"string where a boolean belongs",
       k_head + "  runPolicy:\n    suspend: \"true\"\n",
       {"job.yaml:15:14 error spec.runPolicy.suspend: expected boolean, got string 'true' [schema.type]"}},
      {"map values via additionalProperties",
       k_head + "          nodeSelector:\n            gpu: true\n",
       {"job.yaml:15:18 error spec.pytorchReplicaSpecs.Worker.template.spec.nodeSelector.gpu: expected "
        "string, got "
        "boolean 'true' [schema.type] hint: quote it: \"true\""}},
  });
}

TEST(StructuralValidator, IntegerFormatsBoundTheRange) {
  run_cases({
      {"int32 overflow",
       k_head + "  runPolicy:\n    backoffLimit: 3000000000\n",
       {"job.yaml:15:19 error spec.runPolicy.backoffLimit: integer '3000000000' is out of range for int32 "
        "[schema.format]"}},
      {"int32 edge", k_head + "  runPolicy:\n    backoffLimit: 2147483647\n", {}},
      {"int64 overflow",
       k_head + "  runPolicy:\n    activeDeadlineSeconds: 99999999999999999999\n",
       {"job.yaml:15:28 error spec.runPolicy.activeDeadlineSeconds: integer '99999999999999999999' is out of "
        "range "
        "for int64 [schema.format]"}},
  });
}

TEST(StructuralValidator, RequiredFieldsAreReportedAtTheParentMapping) {
  run_cases({
      {"no containers",
       R"(apiVersion: kubeflow.org/v1
kind: PyTorchJob
metadata:
  name: mnist
spec:
  pytorchReplicaSpecs:
    Worker:
      template:
        spec:
          restartPolicy: Never
)",
       {"job.yaml:10:11 error spec.pytorchReplicaSpecs.Worker.template.spec.restartPolicy: unknown field "
        "'restartPolicy' [schema.unknown-field]",
        "job.yaml:9:9 error spec.pytorchReplicaSpecs.Worker.template.spec.containers: missing required "
        "field "
        "'containers' [schema.required]"}},
      {"no replica specs",
       "apiVersion: kubeflow.org/v1\nkind: PyTorchJob\nmetadata:\n  name: a\nspec:\n  tag: ab\n",
       {"job.yaml:5:1 error spec.pytorchReplicaSpecs: missing required field 'pytorchReplicaSpecs' "
        "[schema.required]"}},
      {"port without containerPort",
       k_head + "            ports:\n            - name: http\n",
       {"job.yaml:15:15 error " + k_prefix +
        ".ports[0].containerPort: missing required field 'containerPort' "
        "[schema.required]"}},
  });
}

TEST(StructuralValidator, EnumsListTheSupportedValuesAndSuggestTheClosest) {
  run_cases(
      {{"lower-case enum value",
        k_head + "  runPolicy:\n    cleanPodPolicy: all\n",
        {"job.yaml:15:21 error spec.runPolicy.cleanPodPolicy: unsupported value 'all': supported values: "
         "'All', "
         "'Running', 'None' [schema.enum] hint: did you mean 'All'?"}},
       {"far from any value",
        k_head + "      restartPolicy: Sometimes\n",
        {"job.yaml:14:22 error spec.pytorchReplicaSpecs.Worker.restartPolicy: unsupported value 'Sometimes': "
         "supported values: 'Always', 'OnFailure', 'Never', 'ExitCode' [schema.enum]"}}});
}

TEST(StructuralValidator, PatternsLengthsAndBoundsUseTheSchemaLimits) {
  run_cases({
      {"pattern and min length",
       k_head + "  tag: A\n",
       {"job.yaml:14:8 error spec.tag: invalid value 'A': should match '^[a-z]+$' [schema.pattern]",
        "job.yaml:14:8 error spec.tag: invalid value 'A': should be at least 2 chars long "
        "[schema.min-length]"}},
      {"max length",
       k_head + "  tag: abcdefghijk\n",
       {"job.yaml:14:8 error spec.tag: too long: may not be longer than 10 characters, got 11 "
        "[schema.max-length]"}},
      {"pattern on a long value",
       k_head + "  tag: " + std::string(5000, 'a') + "\n",
       {"job.yaml:14:8 error spec.tag: value too long to check against pattern '^[a-z]+$' (5000 characters) "
        "[schema.pattern]",
        "job.yaml:14:8 error spec.tag: too long: may not be longer than 10 characters, got 5000 "
        "[schema.max-length]"}},
      {"exclusive maximum",
       k_head + "  priority: 10\n",
       {"job.yaml:14:13 error spec.priority: invalid value '10': should be less than 10 [schema.maximum]"}},
      {"minimum",
       k_head + "  priority: -0.5\n",
       {"job.yaml:14:13 error spec.priority: invalid value '-0.5': should be greater than or equal to 0 "
        "[schema.minimum]"}},
      {"int64 minimum",
       k_head + "  runPolicy:\n    activeDeadlineSeconds: 0\n",
       {"job.yaml:15:28 error spec.runPolicy.activeDeadlineSeconds: invalid value '0': should be greater "
        "than or "
        "equal to 1 [schema.minimum]"}},
      {"in range", k_head + "  priority: 9.5\n  tag: ok\n", {}},
  });
}

TEST(StructuralValidator, NullIsAllowedOnlyWhereNullable) {
  run_cases({
      {"nullable field", k_head + "  note: null\n", {}},
      {"non-nullable field is dropped",
       k_head + "  nprocPerNode: null\n",
       {"job.yaml:14:17 warning spec.nprocPerNode: null value is dropped: the field is not nullable "
        "[schema.null] "
        "hint: remove the field or give it a value"}},
      {"null list item",
       k_head + "            command: [python, null]\n",
       {"job.yaml:14:31 error " + k_prefix + ".command[1]: expected string, got null [schema.type]"}},
  });
}

TEST(StructuralValidator, ResourceQuantitiesAreCheckedByTheQuantityParser) {
  const std::string limits = k_head + "            resources:\n              limits:\n";
  run_cases({
      {"gigabytes",
       limits + "                memory: 16GB\n",
       {"job.yaml:16:25 error " + k_prefix +
        ".resources.limits.memory: invalid quantity '16GB' [schema.quantity] "
        "hint: quantities have no 'B': did you mean '16Gi' (binary) or '16G' (decimal)?"}},
      {"valid forms",
       limits + "                memory: 1.5Gi\n                cpu: 100m\n                x: 1e3\n"
                "                gpu: 2\n",
       {}},
      {"boolean",
       limits + "                cpu: true\n",
       {"job.yaml:16:22 error " + k_prefix +
        ".resources.limits.cpu: expected integer or string, got boolean 'true' "
        "[schema.type] hint: quote it: \"true\""}},
      {"fraction must be a string",
       limits + "                cpu: 1.5\n",
       {"job.yaml:16:22 error " + k_prefix +
        ".resources.limits.cpu: expected integer or string, got number '1.5' "
        "[schema.type] hint: quote it: \"1.5\""}},
      {"fifty thousand characters",
       limits + "                memory: \"" + std::string(50'000, '1') + "\"\n",
       {}},
      {"fifty thousand characters, invalid",
       limits + "                memory: \"" + std::string(50'000, '1') + "x\"\n",
       {"job.yaml:16:25 error " + k_prefix + ".resources.limits.memory: invalid quantity '" +
        std::string(80, '1') +
        "...' [schema.quantity] hint: use a Kubernetes quantity such as '16Gi', '500m' or '2'"}},
      {"integral numbers are integers", k_head + "  runPolicy:\n    backoffLimit: 3.0\n", {}},
      {"integral numbers keep their format range",
       k_head + "  runPolicy:\n    backoffLimit: 3e9\n",
       {"job.yaml:15:19 error spec.runPolicy.backoffLimit: integer '3e9' is out of range for int32 "
        "[schema.format]"}},
  });
}

TEST(StructuralValidator, ListMapKeysMustBeUniqueWithDefaultsApplied) {
  run_cases({
      {"two containers with one name",
       k_head + "          - name: pytorch\n",
       {"job.yaml:14:13 error spec.pytorchReplicaSpecs.Worker.template.spec.containers[1]: duplicate entry "
        "with "
        "name='pytorch': the same key as spec.pytorchReplicaSpecs.Worker.template.spec.containers[0] at line "
        "12 "
        "[schema.duplicate-key]"}},
      {"same port, protocol defaulted",
       k_head + "            ports:\n            - containerPort: 80\n"
                "            - containerPort: 80\n              protocol: TCP\n",
       {"job.yaml:16:15 error " + k_prefix +
        ".ports[1]: duplicate entry with containerPort=80, protocol='TCP': the "
        "same key as " +
        k_prefix + ".ports[0] at line 15 [schema.duplicate-key]"}},
      {"same port, other protocol",
       k_head + "            ports:\n            - containerPort: 80\n"
                "            - containerPort: 80\n              protocol: UDP\n",
       {}},
      {"duplicate env",
       k_head + "            env:\n            - name: A\n            - name: A\n              value: x\n",
       {"job.yaml:16:15 error " + k_prefix + ".env[1]: duplicate entry with name='A': the same key as " +
        k_prefix + ".env[0] at line 15 [schema.duplicate-key]"}},
  });
}

TEST(StructuralValidator, SetsRejectDuplicatesAndItemCountsAreBounded) {
  run_cases({
      {"duplicate",
       k_head + "  tags: [a, b, a]\n",
       {"job.yaml:14:16 error spec.tags[2]: duplicate item 'a': the same as spec.tags[0] "
        "[schema.duplicate-item]"}},
      {"too few",
       k_head + "  tags: []\n",
       {"job.yaml:14:3 error spec.tags: should have at least 1 items, got 0 [schema.min-items]"}},
      {"too many",
       k_head + "  tags: [a, b, c, d]\n",
       {"job.yaml:14:3 error spec.tags: should have at most 3 items, got 4 [schema.max-items]"}},
  });
}

TEST(StructuralValidator, PreservedUnknownFieldsAreNotReported) {
  run_cases({{"volumes and status",
              k_head + "          volumes:\n          - anything: {goes: here}\nstatus:\n  x: 1\n",
              {}}});
}

TEST(StructuralValidator, EmbeddedResourcesNeedApiVersionKindAndValidMetadata) {
  run_cases({
      {"bare object",
       k_head + "  extra:\n    foo: 1\n",
       {"job.yaml:15:5 error spec.extra.apiVersion: missing required field 'apiVersion' [schema.required]",
        "job.yaml:15:5 error spec.extra.kind: missing required field 'kind' [schema.required]"}},
      {"bad name",
       k_head + "  extra:\n    apiVersion: v1\n    kind: ConfigMap\n    metadata:\n      name: A_B\n",
       {"job.yaml:18:13 error spec.extra.metadata.name: invalid value 'A_B': a lowercase RFC 1123 subdomain "
        "must "
        "consist of lower case alphanumeric characters, '-' or '.', and must start and end with an "
        "alphanumeric "
        "character (e.g. 'example.com', regex used for validation is "
        "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*') [metadata.name]"}},
      {"complete", k_head + "  extra:\n    apiVersion: v1\n    kind: ConfigMap\n    data: {a: b}\n", {}},
  });
}

TEST(StructuralValidator, TheQueueTransitionRuleIsSkippedOnCreate) {
  run_cases({
      {"rule on a present field",
       k_head + "  runPolicy:\n    schedulingPolicy:\n      queue: q\n",
       {"job.yaml:1:1 info : 1 transition rule (oldSelf) not evaluated on create: "
        "spec.runPolicy.schedulingPolicy.queue: 'self == oldSelf' [schema.cel-transition] hint: rules that "
        "compare with oldSelf apply to updates, not to a create"}},
      {"field absent: the rule does not run", k_head, {}},
  });
}

TEST(StructuralValidator, FindingsPerDocumentAreCapped) {
  std::string text = k_head;
  for (int i = 0; i < 300; ++i) text += "  unknown" + std::to_string(i) + ": 1\n";
  const auto lines = validate(text);
  ASSERT_EQ(lines.size(), 201u);
  EXPECT_EQ(lines.back(),
            "job.yaml:1:1 info : too many findings: stopped after 200 [schema.too-many-findings]");
}

TEST(StructuralValidator, LongListsAreCheckedForDuplicatesByHashNotPairwise) {
  std::string text = k_head;
  for (int i = 0; i < 20'000; ++i) text += "          - {name: c" + std::to_string(i % 10'000) + "}\n";
  const auto lines = validate(text);
  ASSERT_EQ(lines.size(), 201u);
  EXPECT_EQ(lines.front(),
            "job.yaml:10014:13 error spec.pytorchReplicaSpecs.Worker.template.spec.containers[10001]: "
            "duplicate entry with name='c0': the same key as "
            "spec.pytorchReplicaSpecs.Worker.template.spec.containers[1] at line 14 "
            "[schema.duplicate-key]");
}

TEST(StructuralValidator, APreserveUnknownFieldsRootAcceptsAnything) {
  const auto doc = parse_one("job.yaml", k_head + "anything: [1, 2]\n");
  const StructuralSchema* schema = fixture().find("kubeflow.org/v1beta1", "PyTorchJob");
  ASSERT_NE(schema, nullptr);
  EXPECT_EQ(render(validate_structure(doc, *schema, {})), Lines{});
}

}  // namespace
}  // namespace kpt::schema
