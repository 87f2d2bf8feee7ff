#include "plugin/validate/diagnostic_output.hpp"
#include "plugin/validate/rule_catalog.hpp"
#include "schema/rules/rules.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <sstream>
#include <string>

namespace kpt::plugin {
namespace {

using nlohmann::json;

Report sarif_report() {
  Report r;
  FileReport f;
  f.name = "./jobs/a job.yaml";
  DocumentReport doc;
  doc.kind = "PyTorchJob";
  doc.findings.push_back(Diagnostic{Severity::error,
                                    {"./jobs/a job.yaml", 14, 13},
                                    "spec.replicas",
                                    "schema.type",
                                    "expected integer, got string 'two'",
                                    "write a number"});
  doc.findings.push_back(Diagnostic{
      Severity::info, {"./jobs/a job.yaml", 3, 0}, "", "rule.unknown-to-the-catalog", "a note", ""});
  f.documents.push_back(doc);
  r.files.push_back(f);
  FileReport unreadable;
  unreadable.name = "/abs/missing.yaml";
  unreadable.file_findings.push_back(
      Diagnostic{Severity::warning, {"/abs/missing.yaml", 0, 0}, "", "input.unreadable", "no such file", ""});
  r.files.push_back(unreadable);
  return r;
}

json sarif_of(const Report& r) {
  std::ostringstream out;
  write_sarif(r, SarifTool{"kubectl-pytorch", "v9.9.9", "https://example.org/kubectl-pytorch"}, out);
  return json::parse(out.str());
}

TEST(Sarif, ResultsCarryRuleIndexLevelMessageAndRelativeLocations) {
  const json doc = sarif_of(sarif_report());
  const auto& catalog = rule_catalog();
  const auto index_of = [&](std::string_view id) {
    return static_cast<std::size_t>(
        std::find_if(catalog.begin(), catalog.end(), [&](const RuleInfo& r) { return r.id == id; }) -
        catalog.begin());
  };
  std::string want = R"([
    {"ruleId": "schema.type", "ruleIndex": RULE_TYPE, "level": "error",
     "message": {"text": "spec.replicas: expected integer, got string 'two'\nhint: write a number"},
     "locations": [{"physicalLocation": {
       "artifactLocation": {"uri": "jobs/a%20job.yaml", "uriBaseId": "%SRCROOT%"},
       "region": {"startLine": 14, "startColumn": 13}}}]},
    {"ruleId": "rule.unknown-to-the-catalog", "ruleIndex": RULE_EXTRA, "level": "note",
     "message": {"text": "a note"},
     "locations": [{"physicalLocation": {
       "artifactLocation": {"uri": "jobs/a%20job.yaml", "uriBaseId": "%SRCROOT%"},
       "region": {"startLine": 3}}}]},
    {"ruleId": "input.unreadable", "ruleIndex": RULE_UNREADABLE, "level": "warning",
     "message": {"text": "no such file"},
     "locations": [{"physicalLocation": {"artifactLocation": {"uri": "file:///abs/missing.yaml"}}}]}
  ])";
  const auto put = [&want](const std::string& key, std::size_t value) {
    want.replace(want.find(key), key.size(), std::to_string(value));
  };
  put("RULE_TYPE", index_of("schema.type"));
  put("RULE_EXTRA", catalog.size());
  put("RULE_UNREADABLE", index_of("input.unreadable"));
  EXPECT_EQ(doc["runs"][0]["results"], json::parse(want));
}

TEST(Sarif, DriverNamesTheToolAndListsEveryCatalogRuleWithHelp) {
  const json doc = sarif_of(Report{});
  EXPECT_EQ(doc["$schema"], "https://json.schemastore.org/sarif-2.1.0.json");
  EXPECT_EQ(doc["version"], "2.1.0");
  const json& driver = doc["runs"][0]["tool"]["driver"];
  EXPECT_EQ(driver["name"], "kubectl-pytorch");
  EXPECT_EQ(driver["version"], "v9.9.9");
  EXPECT_EQ(driver["informationUri"], "https://example.org/kubectl-pytorch");
  ASSERT_EQ(driver["rules"].size(), rule_catalog().size());
  for (std::size_t i = 0; i < rule_catalog().size(); ++i) {
    const auto& rule = rule_catalog()[i];
    SCOPED_TRACE(std::string(rule.id));
    EXPECT_EQ(driver["rules"][i], json({{"id", std::string(rule.id)},
                                        {"shortDescription", {{"text", std::string(rule.brief)}}},
                                        {"help", {{"text", std::string(rule.help)}}}}));
  }
  EXPECT_EQ(doc["runs"][0]["results"], json::array());
  EXPECT_EQ(doc["runs"][0]["columnKind"], "unicodeCodePoints");
}

TEST(Sarif, ArtifactUris) {
  struct Case {
    const char* file;
    const char* uri;
    bool relative;
  };
  const Case cases[] = {
      {"jobs/a.yaml", "jobs/a.yaml", true},
      {"./jobs/a.yaml", "jobs/a.yaml", true},
      {"././a.yaml", "a.yaml", true},
      {"../up/a.yaml", "../up/a.yaml", true},
      {"a b#c?d%e.yaml", "a%20b%23c%3Fd%25e.yaml", true},
      {"caf\xc3\xa9.yaml", "caf%C3%A9.yaml", true},
      {"<stdin>", "%3Cstdin%3E", true},
      {"/abs/x y.yaml", "file:///abs/x%20y.yaml", false},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.file);
    const auto got = artifact_uri(c.file);
    EXPECT_EQ(got.uri, c.uri);
    EXPECT_EQ(got.relative, c.relative);
  }
}

TEST(RuleCatalog, IsSortedUniqueAndHasEveryLintWithText) {
  const auto& catalog = rule_catalog();
  for (std::size_t i = 0; i < catalog.size(); ++i) {
    SCOPED_TRACE(std::string(catalog[i].id));
    if (i > 0) {
      EXPECT_LT(catalog[i - 1].id, catalog[i].id);
    }
    EXPECT_FALSE(catalog[i].brief.empty());
    EXPECT_FALSE(catalog[i].help.empty());
    EXPECT_EQ(find_rule(catalog[i].id), &catalog[i]);
  }
  for (const auto& lint : schema::rules::lint_ids()) {
    SCOPED_TRACE(lint);
    EXPECT_NE(find_rule(lint), nullptr);
  }
  EXPECT_EQ(find_rule("schema.typo"), nullptr);
}

}  // namespace
}  // namespace kpt::plugin
