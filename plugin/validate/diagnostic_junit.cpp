// JUnit XML for CI: one testsuite per file, one testcase per document, and at most one <failure> per
// testcase (its body lists every error), so failures never exceed tests, as JUnit consumers count them.
#include "plugin/validate/diagnostic_output.hpp"

#include <ostream>
#include <string>

namespace kpt::plugin {

namespace {

std::string xml_escape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&apos;";
        break;
      default:
        // Control characters other than tab/newline are not allowed in XML 1.0.
        if (static_cast<unsigned char>(c) < 0x20 && c != '\t' && c != '\n') {
          out += '?';
        } else {
          out += c;
        }
    }
  }
  return out;
}

std::string case_name(const DocumentReport& d) {
  std::string out = d.kind.empty() ? "document" : d.kind;
  if (!d.name.empty()) out += "/" + d.name;
  out += " (document " + std::to_string(d.index + 1) + ", line " + std::to_string(d.line) + ")";
  return out;
}

bool failed(const Diagnostics& ds) {
  for (const auto& d : ds) {
    if (d.severity == Severity::error) return true;
  }
  return false;
}

void write_case(std::ostream& out, const std::string& suite, const std::string& name, const Diagnostics& ds,
                bool skipped, const std::string& skip_reason = {}) {
  out << "    <testcase classname=\"" << xml_escape(suite) << "\" name=\"" << xml_escape(name) << "\"";
  if (!skipped && ds.empty()) {
    out << "/>\n";
    return;
  }
  out << ">\n";
  if (skipped) {
    out << "      <skipped message=\"" << xml_escape(skip_reason.empty() ? "not checked" : skip_reason)
        << "\"/>\n";
  }
  const Diagnostic* first = nullptr;
  std::size_t errors = 0;
  std::string failures;
  std::string notes;
  for (const auto& d : ds) {
    const std::string text = format_finding(d, nullptr, false);
    if (d.severity == Severity::error) {
      if (first == nullptr) first = &d;
      ++errors;
      failures += text;
    } else {
      notes += text;
    }
  }
  if (first != nullptr) {
    std::string message =
        first->field_path.empty() ? first->message : first->field_path + ": " + first->message;
    if (errors > 1) message += " (and " + std::to_string(errors - 1) + " more)";
    out << "      <failure message=\"" << xml_escape(message) << "\" type=\"" << xml_escape(first->rule_id)
        << "\">" << xml_escape(failures) << "</failure>\n";
  }
  if (!notes.empty()) out << "      <system-out>" << xml_escape(notes) << "</system-out>\n";
  out << "    </testcase>\n";
}

}  // namespace

void write_junit(const Report& report, std::ostream& out) {
  std::size_t tests = 0;
  std::size_t failures = 0;
  std::size_t skipped = 0;
  for (const auto& f : report.files) {
    tests += f.documents.size() + (f.file_findings.empty() ? 0 : 1);
    failures += failed(f.file_findings) ? 1 : 0;
    for (const auto& d : f.documents) {
      failures += failed(d.findings) ? 1 : 0;
      skipped += d.skipped ? 1 : 0;
    }
  }
  out << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  out << "<testsuites name=\"kubectl-pytorch validate\" tests=\"" << tests << "\" failures=\"" << failures
      << "\" errors=\"0\" skipped=\"" << skipped << "\">\n";
  for (const auto& f : report.files) {
    std::size_t f_failures = failed(f.file_findings) ? 1 : 0;
    std::size_t f_skipped = 0;
    for (const auto& d : f.documents) {
      f_failures += failed(d.findings) ? 1 : 0;
      f_skipped += d.skipped ? 1 : 0;
    }
    const std::size_t f_tests = f.documents.size() + (f.file_findings.empty() ? 0 : 1);
    out << "  <testsuite name=\"" << xml_escape(f.name) << "\" tests=\"" << f_tests << "\" failures=\""
        << f_failures << "\" errors=\"0\" skipped=\"" << f_skipped << "\">\n";
    if (!f.file_findings.empty()) write_case(out, f.name, "read", f.file_findings, false);
    for (const auto& d : f.documents)
      write_case(out, f.name, case_name(d), d.findings, d.skipped, d.skip_reason);
    out << "  </testsuite>\n";
  }
  out << "</testsuites>\n";
}

}  // namespace kpt::plugin
