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

Lines validate_meta(const std::string& metadata) {
  static const SchemaSet set = [] {
    std::ifstream in(fixture_path());
    std::stringstream ss;
    ss << in.rdbuf();
    return std::move(SchemaSet::from_crd(parse_one(fixture_path(), ss.str()))).value();
  }();
  const std::string text = "apiVersion: kubeflow.org/v1\nkind: PyTorchJob\n" + metadata +
                           "spec:\n  pytorchReplicaSpecs:\n    Worker:\n      template:\n        spec:\n"
                           "          containers: [{name: a}]\n";
  return render(
      validate_structure(parse_one("job.yaml", text), *set.find("kubeflow.org/v1", "PyTorchJob"), {}));
}

const std::string k_subdomain_rule =
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must "
    "start "
    "and end with an alphanumeric character (e.g. 'example.com', regex used for validation is "
    "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";

TEST(StructuralMetadata, NamesAndKeysAreCheckedAsTheApiServerChecksThem) {
  struct Case {
    const char* name;
    std::string metadata;
    Lines expected;
  };
  const Case cases[] = {
      {"valid",
       "metadata:\n  name: a.b-c\n  namespace: team-a\n  labels: {app: x}\n  annotations: {a/b: ''}\n",
       {}},
      {"name not a subdomain",
       "metadata:\n  name: Bad_Name\n",
       {"job.yaml:4:9 error metadata.name: invalid value 'Bad_Name': " + k_subdomain_rule +
        " [metadata.name]"}},
      {"no metadata",
       "",
       {"job.yaml:1:1 error metadata.name: name or generateName is required [metadata.name]"}},
      {"no name",
       "metadata:\n  labels: {a: b}\n",
       {"job.yaml:4:3 error metadata.name: name or generateName is required [metadata.name]"}},
      {"generateName with a trailing dash", "metadata:\n  generateName: job-\n", {}},
      {"bad generateName",
       "metadata:\n  generateName: Job-\n",
       {"job.yaml:4:17 error metadata.generateName: invalid value 'Job-': " + k_subdomain_rule +
        " [metadata.name]"}},
      {"numeric name",
       "metadata:\n  name: 123\n",
       {"job.yaml:4:9 error metadata.name: expected string, got integer '123' [metadata.name] hint: quote "
        "it: \"123\""}},
      {"bad namespace",
       "metadata:\n  name: a\n  namespace: Team\n",
       {"job.yaml:5:14 error metadata.namespace: invalid value 'Team': a lowercase RFC 1123 label must "
        "consist of "
        "lower case alphanumeric characters or '-', and must start and end with an alphanumeric character "
        "(e.g. "
        "'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?') "
        "[metadata.namespace]"}},
      {"bad label key and value",
       "metadata:\n  name: a\n  labels:\n    bad key: -v\n",
       {"job.yaml:6:5 error metadata.labels.bad key: invalid key 'bad key': name part must consist of "
        "alphanumeric "
        "characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  "
        "or "
        "'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') "
        "[metadata.labels]",
        "job.yaml:6:14 error metadata.labels.bad key: invalid value '-v': a valid label must be an empty "
        "string or "
        "consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric "
        "character "
        "(e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is "
        "'(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?') [metadata.labels]"}},
      {"label value not a string",
       "metadata:\n  name: a\n  labels:\n    gpu: true\n",
       {"job.yaml:6:10 error metadata.labels.gpu: expected string, got boolean 'true' [metadata.labels] "
        "hint: quote "
        "it: \"true\""}},
      {"annotation key with empty prefix",
       "metadata:\n  name: a\n  annotations:\n    /x: z\n",
       {"job.yaml:6:5 error metadata.annotations./x: invalid key '/x': prefix part must be non-empty "
        "[metadata.annotations]"}},
      {"annotations too large",
       "metadata:\n  name: a\n  annotations:\n    big: " + std::string(262200, 'x') + "\n",
       {"job.yaml:6:5 error metadata.annotations: too long: must have at most 262144 bytes "
        "[metadata.annotations]"}},
      {"misspelled labels",
       "metadata:\n  name: a\n  lables: {a: b}\n",
       {"job.yaml:5:3 error metadata.lables: unknown field 'lables' [schema.unknown-field] hint: did you "
        "mean "
        "'labels'?"}},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    EXPECT_EQ(validate_meta(c.metadata), c.expected);
  }
}

}  // namespace
}  // namespace kpt::schema
