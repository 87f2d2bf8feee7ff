#include "schema/rules/rules.hpp"
#include "tests/unit/schema/rules_fixtures.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace kpt::schema::rules {
namespace {

using test::show_all;

Diagnostic finding(std::uint32_t line, std::uint32_t col, Severity s, std::string path, std::string rule,
                   std::string message, std::string hint = {}) {
  return Diagnostic{s,
                    Location{"job.yaml", line, col},
                    std::move(path),
                    std::move(rule),
                    std::move(message),
                    std::move(hint)};
}

TEST(CombineFindings, MisplacedFieldAndUnknownFieldBecomeOneFindingWithTheSchemaSeverity) {
  const Diagnostics structural{
      finding(6, 3, Severity::warning, "spec.cleanPodPolicy", "schema.unknown-field",
              "unknown field 'cleanPodPolicy'"),
      finding(9, 5, Severity::error, "spec.x", "schema.unknown-field", "unknown field 'x'")};
  const Diagnostics rules{finding(6, 3, Severity::error, "spec.cleanPodPolicy", "lint.misplaced-field",
                                  "unknown field 'cleanPodPolicy' (it belongs in spec.runPolicy)",
                                  "move it to spec.runPolicy.cleanPodPolicy")};
  const std::vector<std::string> want{
      "6:3 warning spec.cleanPodPolicy [lint.misplaced-field]: unknown field 'cleanPodPolicy' (it belongs in "
      "spec.runPolicy) | hint: move it to spec.runPolicy.cleanPodPolicy",
      "9:5 error spec.x [schema.unknown-field]: unknown field 'x'",
  };
  EXPECT_EQ(show_all(combine_findings(structural, {}, rules, RuleOptions{})), want);
}

TEST(CombineFindings, ReleaseFindingReplacesTheUnknownFieldAtTheSameField) {
  const Diagnostics structural{finding(6, 3, Severity::warning, "spec.nprocPerNode", "schema.unknown-field",
                                       "unknown field 'nprocPerNode'")};
  const Diagnostics release{
      finding(6, 3, Severity::error, "spec.nprocPerNode", "release.unknown-field",
              "field 'spec.nprocPerNode' is not known to operator v1.6.0 (added in v1.7.0)")};
  const std::vector<std::string> want{
      "6:3 error spec.nprocPerNode [release.unknown-field]: field 'spec.nprocPerNode' is not known to "
      "operator "
      "v1.6.0 (added in v1.7.0)"};
  EXPECT_EQ(show_all(combine_findings(structural, release, {}, RuleOptions{})), want);
}

TEST(CombineFindings, OperatorFindingOnAFieldTheSchemaRejectsIsDropped) {
  const Diagnostics structural{finding(4, 9, Severity::error, "metadata.name", "metadata.name", "bad name")};
  const Diagnostics rules{
      finding(4, 9, Severity::error, "metadata.name", "operator.job-name", "rejected ..."),
      finding(2, 1, Severity::warning, "spec.x", "lint.image-placeholder", "image"),
      finding(2, 1, Severity::error, "spec.y", "operator.no-image", "no image"),
  };
  RuleOptions opts;
  opts.disabled = {"lint.image-placeholder"};
  const std::vector<std::string> want{"2:1 error spec.y [operator.no-image]: no image",
                                      "4:9 error metadata.name [metadata.name]: bad name"};
  EXPECT_EQ(show_all(combine_findings(structural, {}, rules, opts)), want);
}

}  // namespace
}  // namespace kpt::schema::rules
