#include "plugin/validate/validate_runner.hpp"

#include "schema/carried/carried_schema.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

namespace kpt::plugin {
namespace {

yaml::InputFile input(std::string name, std::string text) {
  return yaml::InputFile{std::move(name), std::make_shared<const std::string>(std::move(text)), false};
}

std::string seed_text() {
  std::ifstream in(std::string(KPT_SOURCE_DIR) + "/testdata/mnist-dp.yaml");
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

ValidateSettings carried() {
  ValidateSettings s;
  s.schemas = &schema::carried_schema();
  return s;
}

std::vector<std::string> brief(const Diagnostics& ds) {
  std::vector<std::string> out;
  for (const auto& d : ds) {
    out.push_back(std::to_string(d.location.line) + ":" + std::to_string(d.location.col) + " " +
                  (d.severity == Severity::error ? "error " : "warning ") + d.rule_id);
  }
  return out;
}

TEST(ValidateRunner, SeedGivesEachFindingOnceWithTheCarriedSchema) {
  const auto report = validate_file(input("mnist-dp.yaml", seed_text()), carried());
  ASSERT_EQ(report.documents.size(), 1u);
  EXPECT_TRUE(report.file_findings.empty());
  const std::vector<std::string> want{"6:3 error lint.misplaced-field", "7:3 error lint.misplaced-field",
                                      "15:20 warning lint.image-placeholder",
                                      "16:13 error lint.worker-only-no-master-env"};
  EXPECT_EQ(brief(report.documents[0].findings), want);
  EXPECT_EQ(report.documents[0].kind, "PyTorchJob");
  EXPECT_EQ(report.documents[0].name, "mnist-dp");
}

TEST(ValidateRunner, WithoutStrictTheMisplacedFieldsAreWarnings) {
  auto settings = carried();
  settings.rules.strict = false;
  settings.rules.disabled = {"lint.misplaced-field"};
  const auto report = validate_file(input("mnist-dp.yaml", seed_text()), settings);
  ASSERT_EQ(report.documents.size(), 1u);
  const std::vector<std::string> want{"6:3 warning schema.unknown-field", "7:3 warning schema.unknown-field",
                                      "15:20 warning lint.image-placeholder",
                                      "16:13 error lint.worker-only-no-master-env"};
  EXPECT_EQ(brief(report.documents[0].findings), want);
}

TEST(ValidateRunner, OtherKindsAreSkippedAndTypeMetaIsRequired) {
  const auto report = validate_file(
      input("m.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n---\nmetadata:\n  name: x\n"),
      carried());
  ASSERT_EQ(report.documents.size(), 2u);
  EXPECT_TRUE(report.documents[0].skipped);
  EXPECT_EQ(report.documents[0].kind, "ConfigMap");
  ASSERT_EQ(report.documents[1].findings.size(), 1u);
  const auto& d = report.documents[1].findings[0];
  EXPECT_EQ(d.rule_id, "manifest.type");
  EXPECT_EQ(d.message, "document has no 'apiVersion' or 'kind'");
  EXPECT_EQ(d.location.line, 6u);
}

// What `kubectl get pytorchjobs,configmaps -o yaml` writes: one List holding the objects.
TEST(ValidateRunner, TheItemsOfAListAreValidatedAsDocuments) {
  const std::string text =
      "apiVersion: v1\nkind: List\nitems:\n"
      "- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: c\n"
      "- apiVersion: kubeflow.org/v2\n  kind: PyTorchJob\n  metadata:\n    name: j\n";
  const auto report = validate_file(input("list.yaml", text), carried());
  ASSERT_EQ(report.documents.size(), 2u);
  EXPECT_TRUE(report.documents[0].skipped);
  EXPECT_EQ(report.documents[0].index, 0u);
  EXPECT_EQ(report.documents[1].index, 1u);
  EXPECT_EQ(report.documents[1].name, "j");
  EXPECT_EQ(brief(report.documents[1].findings), std::vector<std::string>{"8:15 error schema.api-version"});
}

TEST(ValidateRunner, AnyKindListIsExpandedAndAnEmptyListHoldsNothing) {
  const auto report = validate_file(input("l.yaml",
                                          "apiVersion: kubeflow.org/v1\nkind: PyTorchJobList\nitems:\n"
                                          "- metadata:\n    name: x\n---\nkind: List\nitems: []\n"),
                                    carried());
  ASSERT_EQ(report.documents.size(), 1u);
  EXPECT_EQ(brief(report.documents[0].findings), std::vector<std::string>{"4:3 error manifest.type"});
}

TEST(ValidateRunner, AnEmptyInputSaysSo) {
  const auto report = validate_file(input("e.yaml", "# nothing yet\n"), carried());
  EXPECT_TRUE(report.documents.empty());
  ASSERT_EQ(report.file_findings.size(), 1u);
  EXPECT_EQ(report.file_findings[0].severity, Severity::warning);
  EXPECT_EQ(report.file_findings[0].rule_id, "input.empty");
  EXPECT_EQ(report.file_findings[0].message, "holds no documents: nothing to validate");
}

TEST(ValidateRunner, AnUnservedApiVersionIsAnError) {
  const auto report = validate_file(
      input("v2.yaml", "apiVersion: kubeflow.org/v2\nkind: PyTorchJob\nmetadata:\n  name: j\n"), carried());
  ASSERT_EQ(report.documents.size(), 1u);
  ASSERT_EQ(report.documents[0].findings.size(), 1u);
  const auto& d = report.documents[0].findings[0];
  EXPECT_EQ(d.rule_id, "schema.api-version");
  EXPECT_EQ(d.message, "apiVersion 'kubeflow.org/v2' of kind 'PyTorchJob' is not served by " +
                           schema::carried_schema().origin() + " (served: kubeflow.org/v1)");
  EXPECT_EQ(d.hint, "use apiVersion: kubeflow.org/v1");
  EXPECT_EQ(d.location.line, 1u);
  EXPECT_EQ(d.location.col, 13u);
}

TEST(ValidateRunner, ParallelRunKeepsInputOrder) {
  std::vector<yaml::InputFile> inputs;
  for (int i = 0; i < 20; ++i) {
    inputs.push_back(
        input("f" + std::to_string(i) + ".yaml", i % 2 == 0 ? seed_text() : "apiVersion: v1\nkind: Pod\n"));
  }
  auto settings = carried();
  settings.jobs = 4;
  const auto report = validate_inputs(inputs, settings);
  ASSERT_EQ(report.files.size(), inputs.size());
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    SCOPED_TRACE(i);
    EXPECT_EQ(report.files[i].name, inputs[i].name);
    ASSERT_EQ(report.files[i].documents.size(), 1u);
    EXPECT_EQ(report.files[i].documents[0].findings.size(), i % 2 == 0 ? 4u : 0u);
  }
}

// Runtimes are collected from every input before any TrainJob is checked, and the files that hold
// them are validated from that same parse: the verdicts do not depend on the file order or on -j.
TEST(ValidateRunner, ARuntimeInOneFileServesTheTrainJobsOfAnother) {
  std::ifstream in(std::string(KPT_SOURCE_DIR) + "/testdata/trainjob/dataset-init.yaml");
  std::ostringstream text;
  text << in.rdbuf();
  const std::string both = text.str();
  const auto split = both.find("\n---\n");
  ASSERT_NE(split, std::string::npos);
  const std::string runtime = both.substr(0, split + 1);
  const std::string trainjob = both.substr(split + 5);
  std::string missing = trainjob;
  missing.replace(missing.find("name: torch-with-dataset-init"), 29, "name: torch-without-a-runtime");
  const std::vector<yaml::InputFile> inputs = {input("job.yaml", trainjob), input("missing.yaml", missing),
                                               input("runtime.yaml", runtime)};
  const auto rules_of = [](const FileReport& f) {
    std::vector<std::string> out;
    for (const auto& d : f.documents) {
      for (const auto& finding : d.findings) out.push_back(finding.rule_id);
    }
    return out;
  };
  const auto has = [](const std::vector<std::string>& ids, const std::string& id) {
    return std::find(ids.begin(), ids.end(), id) != ids.end();
  };
  std::vector<std::vector<std::string>> first;
  for (unsigned jobs : {1u, 2u, 3u}) {
    SCOPED_TRACE(jobs);
    auto settings = default_validate_settings();
    settings.jobs = jobs;
    const auto report = validate_inputs(inputs, settings);
    ASSERT_EQ(report.files.size(), 3u);
    EXPECT_FALSE(has(rules_of(report.files[0]), "trainer.runtime-ref"));
    EXPECT_TRUE(has(rules_of(report.files[1]), "trainer.runtime-ref"));
    ASSERT_EQ(report.files[2].documents.size(), 1u);
    EXPECT_EQ(report.files[2].documents[0].kind, "TrainingRuntime");
    std::vector<std::vector<std::string>> all;
    for (const auto& f : report.files) {
      all.push_back(brief(f.file_findings));
      all.push_back(rules_of(f));
    }
    if (first.empty()) first = all;
    EXPECT_EQ(all, first);
  }
  // Alone, the TrainJob's file does not have the runtime.
  EXPECT_TRUE(has(rules_of(validate_file(inputs[0], default_validate_settings())), "trainer.runtime-ref"));
}
}  // namespace
}  // namespace kpt::plugin
