#pragma once

#include "util/diagnostic.hpp"

#include <cstddef>
#include <iosfwd>
#include <memory>
#include <set>
#include <string>
#include <vector>

namespace kpt::plugin {

/// What validation found in one document of a file.
struct DocumentReport {
  std::size_t index = 0;    ///< 0-based document number in the file
  std::uint32_t line = 0;   ///< where the document starts
  std::string kind;         ///< "PyTorchJob", or the other kind that was skipped
  std::string name;         ///< metadata.name, if any
  std::string name_space;   ///< metadata.namespace, if any
  bool skipped = false;     ///< no schema serves its kind: counted, not validated
  std::string skip_reason;  ///< why it was not checked ("no schema for v1 Foo: ...")
  Diagnostics findings;     ///< sorted by position
};

/// One input file (or stdin) and its documents.
struct FileReport {
  std::string name;                           ///< as given, "<stdin>" for "-"
  std::shared_ptr<const std::string> source;  ///< the text, for the caret lines (may be null)
  std::vector<DocumentReport> documents;
  Diagnostics file_findings;  ///< reader findings not inside a document (syntax, size)
};

/// What the documents were checked against, so two runs that disagree say why (-o json's "target").
struct ReportTarget {
  std::string cluster;           ///< the server consulted, "" offline or without a kubeconfig
  std::string operator_release;  ///< the Training Operator release of the rules
  std::string trainer_release;   ///< the Trainer release of the TrainJob schemas and rules
  std::vector<std::pair<std::string, std::string>>
      schemas;                        ///< what checks which kinds ("PyTorchJob", origin)
  std::vector<std::string> disabled;  ///< rules turned off, by --disable or as moot
};

struct Report {
  std::vector<FileReport> files;
  ReportTarget target = {};  ///< "= {}": Report{{file}} needs no -Wmissing-field-initializers exception
};

struct Summary {
  std::size_t errors = 0;
  std::size_t warnings = 0;
  std::size_t infos = 0;
  std::size_t documents = 0;  ///< validated documents
  std::size_t skipped = 0;    ///< documents not checked (no schema serves their kind)
  std::size_t files = 0;
};

/// Removes the findings whose rule `disabled` names, wherever they came from (reader, schema, rules,
/// server), so --disable takes any rule id.
void drop_disabled(Report& report, const std::set<std::string, std::less<>>& disabled);

Summary summarize(const Report& report);
Summary summarize(const FileReport& file);  ///< one file's counts (files = 1)

/// "2 errors, 1 warning in 1 document (1 file); 1 document not checked"
std::string summary_line(const Summary& s);

enum class OutputFormat { text, json, junit, sarif, github };

/// The tool SARIF names as its driver.
struct SarifTool {
  std::string name = "kubectl-pytorch";
  std::string version;  ///< the build's git version
  std::string information_uri = "https://example.org/kubectl-pytorch";
};

struct OutputOptions {
  OutputFormat format = OutputFormat::text;
  bool colour = false;  ///< ANSI colour (text only)
  bool quiet = false;   ///< only errors, no summary (text, github); json/junit/sarif keep every finding
  SarifTool tool;
};

/// One finding as text: `file:line:col: error: <field>: <message> [rule]`, the source line cut
/// to ~72 columns with a caret under the column (when the source is known), and `  hint: ...`.
std::string format_finding(const Diagnostic& d, const std::string* source, bool colour);

/// The source line `line_text` cut to at most `width` characters around 1-based column `col`,
/// and the caret line under it. Tabs become single spaces so the caret lines up.
struct CaretLines {
  std::string source;
  std::string caret;
};
CaretLines caret_lines(std::string_view line_text, std::uint32_t col, std::size_t width = 72);

/// The documents not checked and why, one line each ("not checked: f.yaml:12: v1 Foo 'x': no schema
/// for v1 Foo"), at most `max` lines then a count of the rest.
std::string not_checked_lines(const Report& report, std::size_t max = 20);

void write_text(const Report& report, const OutputOptions& opts, std::ostream& out);
/// Stable, documented shape (version 1; fields are only ever added):
/// {"version":1,
///  "files":[{"name","documents","skipped","errors","warnings"}],
///  "summary":{"errors","warnings","infos","documents","skipped","files"},
///  "diagnostics":[{"file","line","column","severity","field","rule","message","hint",
///                  "document_index" (0-based, null for the file),"kind","name","namespace"}],
///  "not_checked":[{"file","line","document_index","kind","name","namespace","reason"}],
///  "target":{"cluster","operator","trainer","schemas":[{"kinds","source"}],"disabled":[ids]}}
void write_json(const Report& report, std::ostream& out);
/// JUnit XML: one testsuite per file, one testcase per document (documents not checked are
/// <skipped/> with the reason), one <failure> per error finding; warnings go to the testcase's <system-out>.
void write_junit(const Report& report, std::ostream& out);

/// SARIF 2.1.0 for code scanning: one run whose driver lists every rule of rule_catalog() (and any other
/// id a result carries), one result per finding with ruleId, ruleIndex, level (error, warning, note),
/// message and the file as a relative URI against %SRCROOT% with the line and column.
void write_sarif(const Report& report, const SarifTool& tool, std::ostream& out);

/// `file` as a SARIF artifact URI: a relative reference ("./" dropped, percent-encoded), or a file://
/// URI for an absolute path. `relative` says which, so the caller sets uriBaseId only for the first.
struct ArtifactUri {
  std::string uri;
  bool relative = true;
};
ArtifactUri artifact_uri(std::string_view file);

/// GitHub Actions workflow commands, one line per finding:
/// `::error file=F,line=L,col=C,title=RULE::FIELD: MESSAGE` (::warning, ::notice for notes), then the
/// documents not checked and the summary as plain lines (none with quiet, which keeps errors only).
void write_github(const Report& report, const OutputOptions& opts, std::ostream& out);

/// GitHub's escaping of a workflow command's message: % CR LF as %25 %0D %0A.
std::string github_escape_data(std::string_view text);
/// ... and of a property value (file=, title=): also : and , as %3A and %2C.
std::string github_escape_property(std::string_view text);

void write_report(const Report& report, const OutputOptions& opts, std::ostream& out);

}  // namespace kpt::plugin
