#include "plugin/validate/diagnostic_output.hpp"

#include <gtest/gtest.h>

#include <memory>
#include <sstream>
#include <string>

namespace kpt::plugin {
namespace {

using kpt::Diagnostic;
using kpt::Severity;

const char* const k_source =
    "apiVersion: kubeflow.org/v1\n"
    "kind: PyTorchJob\n"
    "metadata:\n"
    "  name: mnist-dp\n"
    "spec:\n"
    "  cleanPodPolicy: All\n";

Report one_file_report() {
  Report r;
  FileReport f;
  f.name = "jobs/a.yaml";
  f.source = std::make_shared<const std::string>(k_source);
  DocumentReport doc;
  doc.kind = "PyTorchJob";
  doc.name = "mnist-dp";
  doc.line = 1;
  doc.findings.push_back(Diagnostic{Severity::error,
                                    {"jobs/a.yaml", 6, 3},
                                    "spec.cleanPodPolicy",
                                    "lint.misplaced-field",
                                    "unknown field 'cleanPodPolicy' (it belongs in spec.runPolicy)",
                                    "move it to spec.runPolicy.cleanPodPolicy"});
  doc.findings.push_back(Diagnostic{
      Severity::warning, {"jobs/a.yaml", 4, 9}, "metadata.name", "lint.x", "a <warning> & more", ""});
  f.documents.push_back(doc);
  DocumentReport other;
  other.index = 1;
  other.kind = "PodGroup";
  other.line = 20;
  other.name = "pg";
  other.name_space = "team-a";
  other.skipped = true;
  other.skip_reason = "no schema for scheduling.volcano.sh/v1beta1 PodGroup";
  f.documents.push_back(other);
  r.files.push_back(f);
  return r;
}

TEST(DiagnosticOutput, TextShowsLocationSourceLineCaretHintAndSummary) {
  std::ostringstream out;
  write_text(one_file_report(), OutputOptions{}, out);
  EXPECT_EQ(
      out.str(),
      "jobs/a.yaml:6:3: error: spec.cleanPodPolicy: unknown field 'cleanPodPolicy' (it belongs in "
      "spec.runPolicy) [lint.misplaced-field]\n"
      "  cleanPodPolicy: All\n"
      "  ^\n"
      "  hint: move it to spec.runPolicy.cleanPodPolicy\n"
      "jobs/a.yaml:4:9: warning: metadata.name: a <warning> & more [lint.x]\n"
      "  name: mnist-dp\n"
      "        ^\n"
      "not checked: jobs/a.yaml:20: PodGroup 'pg': no schema for scheduling.volcano.sh/v1beta1 PodGroup\n"
      "1 error, 1 warning in 1 document (1 file); 1 document not checked\n");
}

TEST(DiagnosticOutput, QuietShowsOnlyErrorsAndNoSummary) {
  std::ostringstream out;
  OutputOptions opts;
  opts.quiet = true;
  write_text(one_file_report(), opts, out);
  EXPECT_EQ(out.str(),
            "jobs/a.yaml:6:3: error: spec.cleanPodPolicy: unknown field 'cleanPodPolicy' (it belongs in "
            "spec.runPolicy) [lint.misplaced-field]\n"
            "  cleanPodPolicy: All\n"
            "  ^\n"
            "  hint: move it to spec.runPolicy.cleanPodPolicy\n");
}

TEST(DiagnosticOutput, ColourWrapsLocationSeverityAndCaret) {
  const Diagnostic d{Severity::error, {"a.yaml", 6, 3}, "spec.x", "r", "m", ""};
  EXPECT_EQ(format_finding(d, nullptr, true),
            "\033[1ma.yaml:6:3:\033[0m \033[1;31merror:\033[0m spec.x: m [r]\n");
  const std::string src = k_source;
  EXPECT_EQ(format_finding(d, &src, true),
            "\033[1ma.yaml:6:3:\033[0m \033[1;31merror:\033[0m spec.x: m [r]\n  cleanPodPolicy: All\n"
            "\033[1;32m  ^\033[0m\n");
}

TEST(DiagnosticOutput, FindingWithoutPositionHasNoCaret) {
  const Diagnostic d{
      Severity::error,    {"<stdin>", 0, 0}, "", "input.too-large", "input is larger than 10 bytes",
      "raise --max-bytes"};
  const std::string src = "x";
  EXPECT_EQ(format_finding(d, &src, false),
            "<stdin>: error: input is larger than 10 bytes [input.too-large]\n  hint: raise --max-bytes\n");
}

TEST(DiagnosticOutput, LongLinesAreCutAroundTheColumn) {
  struct Case {
    const char* name;
    std::string line;
    std::uint32_t col;
    std::string source;
    std::string caret;
  };
  const std::string digits = "0123456789012345678901234567890123456789";  // 40
  const std::vector<Case> cases{
      {"short line kept whole", "  key: value", 8, "  key: value", "       ^"},
      {"tabs become spaces", "\tkey: v", 2, " key: v", " ^"},
      {"cut at the end", digits + digits, 5, (digits + digits).substr(0, 20) + "...", "    ^"},
      {"cut at both ends", digits + digits + digits, 60,
       "..." + (digits + digits + digits).substr(49, 20) + "...", std::string(13, ' ') + "^"},
      {"cut at the start", digits + digits, 80, "..." + (digits + digits).substr(60),
       std::string(22, ' ') + "^"},
      {"utf-8 counts characters", "name: \xc3\xa9t\xc3\xa9 x", 11, "name: \xc3\xa9t\xc3\xa9 x",
       "          ^"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    const auto got = caret_lines(c.line, c.col, 20);
    EXPECT_EQ(got.source, c.source);
    EXPECT_EQ(got.caret, c.caret);
  }
}

TEST(DiagnosticOutput, JsonHasTheDocumentedStableShape) {
  std::ostringstream out;
  write_json(one_file_report(), out);
  EXPECT_EQ(out.str(), R"json({
  "version": 1,
  "files": [
    {
      "name": "jobs/a.yaml",
      "documents": 1,
      "skipped": 1,
      "errors": 1,
      "warnings": 1
    }
  ],
  "summary": {
    "errors": 1,
    "warnings": 1,
    "infos": 0,
    "documents": 1,
    "skipped": 1,
    "files": 1
  },
  "diagnostics": [
    {
      "file": "jobs/a.yaml",
      "line": 6,
      "column": 3,
      "severity": "error",
      "field": "spec.cleanPodPolicy",
      "rule": "lint.misplaced-field",
      "message": "unknown field 'cleanPodPolicy' (it belongs in spec.runPolicy)",
      "hint": "move it to spec.runPolicy.cleanPodPolicy",
      "document_index": 0,
      "kind": "PyTorchJob",
      "name": "mnist-dp",
      "namespace": ""
    },
    {
      "file": "jobs/a.yaml",
      "line": 4,
      "column": 9,
      "severity": "warning",
      "field": "metadata.name",
      "rule": "lint.x",
      "message": "a <warning> & more",
      "hint": "",
      "document_index": 0,
      "kind": "PyTorchJob",
      "name": "mnist-dp",
      "namespace": ""
    }
  ],
  "not_checked": [
    {
      "file": "jobs/a.yaml",
      "line": 20,
      "document_index": 1,
      "kind": "PodGroup",
      "name": "pg",
      "namespace": "team-a",
      "reason": "no schema for scheduling.volcano.sh/v1beta1 PodGroup"
    }
  ],
  "target": {
    "cluster": "",
    "operator": "",
    "trainer": "",
    "schemas": [],
    "disabled": []
  }
}
)json");
}

TEST(DiagnosticOutput, JunitHasASuitePerFileACasePerDocumentAndAFailurePerFailedDocument) {
  std::ostringstream out;
  write_junit(one_file_report(), out);
  EXPECT_EQ(
      out.str(),
      "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
      "<testsuites name=\"kubectl-pytorch validate\" tests=\"2\" failures=\"1\" errors=\"0\" skipped=\"1\">\n"
      "  <testsuite name=\"jobs/a.yaml\" tests=\"2\" failures=\"1\" errors=\"0\" skipped=\"1\">\n"
      "    <testcase classname=\"jobs/a.yaml\" name=\"PyTorchJob/mnist-dp (document 1, line 1)\">\n"
      "      <failure message=\"spec.cleanPodPolicy: unknown field &apos;cleanPodPolicy&apos; (it belongs in "
      "spec.runPolicy)\" type=\"lint.misplaced-field\">jobs/a.yaml:6:3: error: spec.cleanPodPolicy: unknown "
      "field &apos;cleanPodPolicy&apos; (it belongs in spec.runPolicy) [lint.misplaced-field]\n"
      "  hint: move it to spec.runPolicy.cleanPodPolicy\n"
      "</failure>\n"
      "      <system-out>jobs/a.yaml:4:9: warning: metadata.name: a &lt;warning&gt; &amp; more [lint.x]\n"
      "</system-out>\n"
      "    </testcase>\n"
      "    <testcase classname=\"jobs/a.yaml\" name=\"PodGroup/pg (document 2, line 20)\">\n"
      "      <skipped message=\"no schema for scheduling.volcano.sh/v1beta1 PodGroup\"/>\n"
      "    </testcase>\n"
      "  </testsuite>\n"
      "</testsuites>\n");
}

TEST(DiagnosticOutput, JunitGivesADocumentWithSeveralErrorsOneFailureThatListsThemAll) {
  auto report = one_file_report();
  report.files[0].documents[0].findings.push_back(Diagnostic{Severity::error,
                                                             {"jobs/a.yaml", 7, 3},
                                                             "spec.restartPolicy",
                                                             "lint.misplaced-field",
                                                             "unknown field",
                                                             ""});
  std::ostringstream out;
  write_junit(report, out);
  const std::string xml = out.str();
  EXPECT_NE(xml.find("<testsuites name=\"kubectl-pytorch validate\" tests=\"2\" failures=\"1\""),
            std::string::npos);
  EXPECT_NE(xml.find("<testsuite name=\"jobs/a.yaml\" tests=\"2\" failures=\"1\""), std::string::npos);
  std::size_t failures = 0;
  for (auto at = xml.find("<failure "); at != std::string::npos; at = xml.find("<failure ", at + 1))
    ++failures;
  EXPECT_EQ(failures, 1U);
  EXPECT_NE(xml.find("message=\"spec.cleanPodPolicy: unknown field &apos;cleanPodPolicy&apos; (it belongs in "
                     "spec.runPolicy) (and 1 more)\" type=\"lint.misplaced-field\">"),
            std::string::npos);
  EXPECT_NE(
      xml.find(
          "jobs/a.yaml:7:3: error: spec.restartPolicy: unknown field [lint.misplaced-field]\n</failure>"),
      std::string::npos);
}

TEST(DiagnosticOutput, SummaryLineCountsInWords) {
  EXPECT_EQ(summary_line(Summary{0, 0, 0, 1, 0, 1}), "0 errors, 0 warnings in 1 document (1 file)");
  EXPECT_EQ(summary_line(Summary{2, 3, 1, 4, 2, 2}),
            "2 errors, 3 warnings, 1 note in 4 documents (2 files); 2 documents not checked");
}

}  // namespace
}  // namespace kpt::plugin

namespace kpt::plugin {
namespace {

TEST(DiagnosticOutput, InfoFindingsAreNotesInText) {
  const Diagnostic d{Severity::info, {"a.yaml", 0, 0}, "spec", "schema.cel-transition", "m", ""};
  EXPECT_EQ(format_finding(d, nullptr, false), "a.yaml: note: spec: m [schema.cel-transition]\n");
}

}  // namespace
}  // namespace kpt::plugin
