// write_json writes by hand the bytes nlohmann's dump(2) gives for the same values.
#include "plugin/validate/diagnostic_output.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <sstream>
#include <string>
#include <vector>

namespace kpt::plugin {
namespace {

/// The documented shape built with nlohmann, as write_json produced it before it wrote by hand.
std::string reference_json(const Report& report) {
  auto files = nlohmann::ordered_json::array();
  auto diags = nlohmann::ordered_json::array();
  const auto add = [&diags](const Diagnostic& d, const DocumentReport* doc) {
    diags.push_back({{"file", d.location.file},
                     {"line", d.location.line},
                     {"column", d.location.col},
                     {"severity", d.severity == Severity::error     ? "error"
                                  : d.severity == Severity::warning ? "warning"
                                                                    : "info"},
                     {"field", d.field_path},
                     {"rule", d.rule_id},
                     {"message", d.message},
                     {"hint", d.hint},
                     {"document_index", doc != nullptr ? nlohmann::ordered_json(doc->index) : nullptr},
                     {"kind", doc != nullptr ? doc->kind : ""},
                     {"name", doc != nullptr ? doc->name : ""},
                     {"namespace", doc != nullptr ? doc->name_space : ""}});
  };
  for (const auto& f : report.files) {
    Report one;
    one.files.push_back(f);
    const auto s = summarize(one);
    files.push_back({{"name", f.name},
                     {"documents", s.documents},
                     {"skipped", s.skipped},
                     {"errors", s.errors},
                     {"warnings", s.warnings}});
    for (const auto& d : f.file_findings) add(d, nullptr);
    for (const auto& doc : f.documents) {
      for (const auto& d : doc.findings) add(d, &doc);
    }
  }
  auto not_checked = nlohmann::ordered_json::array();
  for (const auto& f : report.files) {
    for (const auto& doc : f.documents) {
      if (!doc.skipped) continue;
      not_checked.push_back({{"file", f.name},
                             {"line", doc.line},
                             {"document_index", doc.index},
                             {"kind", doc.kind},
                             {"name", doc.name},
                             {"namespace", doc.name_space},
                             {"reason", doc.skip_reason}});
    }
  }
  const auto s = summarize(report);
  nlohmann::ordered_json root{{"version", 1},
                              {"files", std::move(files)},
                              {"summary",
                               {{"errors", s.errors},
                                {"warnings", s.warnings},
                                {"infos", s.infos},
                                {"documents", s.documents},
                                {"skipped", s.skipped},
                                {"files", s.files}}},
                              {"diagnostics", std::move(diags)},
                              {"not_checked", std::move(not_checked)}};
  const auto& t = report.target;
  auto schemas = nlohmann::ordered_json::array();
  for (const auto& [kinds, source] : t.schemas) schemas.push_back({{"kinds", kinds}, {"source", source}});
  root["target"] = {{"cluster", t.cluster},
                    {"operator", t.operator_release},
                    {"trainer", t.trainer_release},
                    {"schemas", std::move(schemas)},
                    {"disabled", t.disabled}};
  return root.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace) + "\n";
}

Diagnostic finding(Severity sev, std::string file, std::string text) {
  return Diagnostic{sev, Location{std::move(file), 3, 14}, "spec.x", "rule.id", text, "hint " + text};
}

std::string written(const Report& r) {
  std::ostringstream out;
  write_json(r, out);
  return out.str();
}

TEST(DiagnosticJson, WritesTheBytesNlohmannWouldForEveryKindOfString) {
  const std::vector<std::string> texts = {"plain",
                                          "",
                                          "quote \" backslash \\ slash /",
                                          "controls \b\f\n\r\t \x01\x1f \x7f",
                                          "utf-8 \xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80",
                                          "invalid \xff\xfe and cut \xe2\x82",
                                          "nul \0 inside"};
  Report r;
  for (std::size_t i = 0; i < texts.size(); ++i) {
    FileReport f;
    f.name = "jobs/" + texts[i] + ".yaml";
    f.file_findings.push_back(finding(Severity::warning, f.name, texts[i]));
    DocumentReport doc;
    doc.kind = "Kind " + texts[i];
    doc.name = "name " + texts[i];
    doc.name_space = "ns " + texts[i];
    doc.findings.push_back(finding(Severity::error, f.name, texts[i]));
    doc.findings.push_back(finding(Severity::info, f.name, texts[i]));
    f.documents.push_back(doc);
    DocumentReport skipped;
    skipped.index = 1;
    skipped.skipped = true;
    skipped.name_space = texts[i];
    f.documents.push_back(skipped);
    r.files.push_back(f);
  }
  r.target = ReportTarget{
      "https://c", "v1.9.4", "v2.1.0", {{"PyTorchJob", "carried \xc3\xa9"}, {"b", "c"}}, {"x", "y"}};
  r.files[6].name += std::string("\0x", 2);
  EXPECT_EQ(written(r), reference_json(r));
}

TEST(DiagnosticJson, WritesManyFindingsInOrderWhenHalfOfThemAreWrittenOnAnotherThread) {
  Report r;
  for (std::size_t i = 0; i < 1501; ++i) {
    FileReport f;
    f.name = "job-" + std::to_string(i) + ".yaml";
    if (i % 7 == 0) f.file_findings.push_back(finding(Severity::error, f.name, "syntax \xc3\xa9"));
    DocumentReport doc;
    doc.findings.push_back(finding(Severity::warning, f.name, "placeholder " + std::to_string(i)));
    doc.findings.push_back(finding(Severity::error, f.name, "\"quoted\" " + std::to_string(i)));
    f.documents.push_back(doc);
    r.files.push_back(f);
  }
  EXPECT_EQ(written(r), reference_json(r));
}

TEST(DiagnosticJson, WritesEmptyListsAsNlohmannDoes) {
  Report none;
  EXPECT_EQ(written(none), reference_json(none));
  Report clean;
  clean.files.push_back(FileReport{"a.yaml", nullptr, {DocumentReport{}}, {}});
  EXPECT_EQ(written(clean), reference_json(clean));
}

}  // namespace
}  // namespace kpt::plugin
