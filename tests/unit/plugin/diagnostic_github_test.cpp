#include "plugin/validate/diagnostic_output.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <sstream>
#include <string>

namespace kpt::plugin {
namespace {

TEST(GithubEscape, DataAndPropertiesAsTheRunnerReadsThem) {
  struct Case {
    const char* in;
    const char* data;
    const char* property;
  };
  const Case cases[] = {
      {"plain", "plain", "plain"},
      {"100%", "100%25", "100%25"},
      {"a\nb\r\nc", "a%0Ab%0D%0Ac", "a%0Ab%0D%0Ac"},
      {"f:1,2", "f:1,2", "f%3A1%2C2"},
      {"%0A", "%250A", "%250A"},
      {"x::error file=y::z", "x::error file=y::z", "x%3A%3Aerror file=y%3A%3Az"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.in);
    EXPECT_EQ(github_escape_data(c.in), c.data);
    EXPECT_EQ(github_escape_property(c.in), c.property);
  }
}

Report github_report(const std::string& file, const std::string& message) {
  Report r;
  FileReport f;
  f.name = file;
  DocumentReport doc;
  doc.kind = "PyTorchJob";
  doc.findings.push_back(
      Diagnostic{Severity::error, {file, 7, 11}, "spec.ports[0].port", "schema.type", message, "quote it"});
  doc.findings.push_back(Diagnostic{Severity::warning, {file, 9, 0}, "", "lint.image-unpinned", "w", ""});
  doc.findings.push_back(Diagnostic{Severity::info, {file, 0, 0}, "", "schema.cel-transition", "n", ""});
  f.documents.push_back(doc);
  DocumentReport skipped;
  skipped.kind = "PodGroup";
  skipped.name = "pg";
  skipped.line = 24;
  skipped.skipped = true;
  skipped.skip_reason = "no schema for PodGroup";
  f.documents.push_back(skipped);
  r.files.push_back(f);
  return r;
}

std::string github_of(const Report& r, bool quiet = false) {
  OutputOptions opts;
  opts.format = OutputFormat::github;
  opts.quiet = quiet;
  std::ostringstream out;
  write_report(r, opts, out);
  return out.str();
}

TEST(Github, OneWorkflowCommandPerFindingThenNotCheckedAndSummary) {
  EXPECT_EQ(
      github_of(github_report("app.yaml", "expected integer, got string 'http'")),
      "::error file=app.yaml,line=7,col=11,title=schema.type::spec.ports[0].port: expected integer, got "
      "string 'http'%0Ahint: quote it\n"
      "::warning file=app.yaml,line=9,title=lint.image-unpinned::w\n"
      "::notice file=app.yaml,title=schema.cel-transition::n\n"
      "::notice file=app.yaml,line=24,title=not checked::PodGroup 'pg': no schema for PodGroup\n"
      "1 error, 1 warning, 1 note in 1 document (1 file); 1 document not checked\n");
}

TEST(Github, QuietKeepsErrorsOnly) {
  EXPECT_EQ(github_of(github_report("a.yaml", "m"), true),
            "::error file=a.yaml,line=7,col=11,title=schema.type::spec.ports[0].port: m%0Ahint: quote it\n");
}

TEST(Github, HostileNamesAndMessagesStayOnOneLineAndInTheirProperty) {
  const std::string file = "evil,line=1:\n::error file=x::injected%.yaml";
  const std::string out = github_of(github_report(file, "50% of\r\n::warning::no"), true);
  EXPECT_EQ(out,
            "::error file=evil%2Cline=1%3A%0A%3A%3Aerror file=x%3A%3Ainjected%25.yaml,line=7,col=11,"
            "title=schema.type::spec.ports[0].port: 50%25 of%0D%0A::warning::no%0Ahint: quote it\n");
  EXPECT_EQ(std::count(out.begin(), out.end(), '\n'), 1);
}

}  // namespace
}  // namespace kpt::plugin
