#pragma once

#include "util/diagnostic.hpp"

#include <cstddef>
#include <iosfwd>
#include <memory>
#include <string>
#include <vector>

namespace kpt::plugin {

/// What validation found in one document of a file.
struct DocumentReport {
  std::size_t index = 0;    ///< 0-based document number in the file
  std::uint32_t line = 0;   ///< where the document starts
  std::string kind;         ///< "PyTorchJob", or the other kind that was skipped
  std::string name;         ///< metadata.name, if any
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

struct Report {
  std::vector<FileReport> files;
};

struct Summary {
  std::size_t errors = 0;
  std::size_t warnings = 0;
  std::size_t infos = 0;
  std::size_t documents = 0;  ///< validated documents
  std::size_t skipped = 0;    ///< documents not checked (no schema serves their kind)
  std::size_t files = 0;
};

Summary summarize(const Report& report);
Summary summarize(const FileReport& file);  ///< one file's counts (files = 1)

/// "2 errors, 1 warning in 1 document (1 file); 1 document not checked"
std::string summary_line(const Summary& s);

enum class OutputFormat { text, json, junit };

struct OutputOptions {
  OutputFormat format = OutputFormat::text;
  bool colour = false;  ///< ANSI colour (text only)
  bool quiet = false;   ///< only errors, no summary (text); json/junit keep every finding
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
/// Stable, documented shape (version 1):
/// {"version":1,
///  "files":[{"name","documents","skipped","errors","warnings"}],
///  "summary":{"errors","warnings","infos","documents","skipped","files"},
///  "diagnostics":[{"file","line","column","severity","field","rule","message","hint"}],
///  "not_checked":[{"file","line","kind","name","reason"}]}
void write_json(const Report& report, std::ostream& out);
/// JUnit XML: one testsuite per file, one testcase per document (documents not checked are
/// <skipped/> with the reason), one <failure> per error finding; warnings go to the testcase's <system-out>.
void write_junit(const Report& report, std::ostream& out);

void write_report(const Report& report, const OutputOptions& opts, std::ostream& out);

}  // namespace kpt::plugin
