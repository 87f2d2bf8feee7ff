// `validate -o github`: GitHub Actions workflow commands, so each finding is an annotation on its file and
// line in the pull request. The escaping is the runner's (actions/toolkit's command.ts): a message escapes
// %, CR and LF; a property value also : and , (which would end the value).
#include "plugin/validate/diagnostic_output.hpp"
#include "util/strings.hpp"

#include <ostream>

namespace kpt::plugin {

namespace {

const char* github_command(Severity s) {
  switch (s) {
    case Severity::error:
      return "error";
    case Severity::warning:
      return "warning";
    case Severity::info:
      break;
  }
  return "notice";
}

std::string github_escape(std::string_view text, bool property) {
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    switch (c) {
      case '%':
        out += "%25";
        break;
      case '\r':
        out += "%0D";
        break;
      case '\n':
        out += "%0A";
        break;
      case ':':
        out += property ? "%3A" : ":";
        break;
      case ',':
        out += property ? "%2C" : ",";
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::string github_line(const Diagnostic& d) {
  std::string out = "::";
  out += github_command(d.severity);
  out += " file=" + github_escape_property(d.location.file);
  if (d.location.line != 0) {
    out += ",line=" + std::to_string(d.location.line);
    if (d.location.col != 0) out += ",col=" + std::to_string(d.location.col);
  }
  if (!d.rule_id.empty()) out += ",title=" + github_escape_property(d.rule_id);
  std::string message = d.field_path.empty() ? d.message : d.field_path + ": " + d.message;
  if (!d.hint.empty()) message += "\nhint: " + d.hint;
  out += "::" + github_escape_data(message) + "\n";
  return out;
}

}  // namespace

std::string github_escape_data(std::string_view text) { return github_escape(text, false); }

std::string github_escape_property(std::string_view text) { return github_escape(text, true); }

void write_github(const Report& report, const OutputOptions& opts, std::ostream& out) {
  for (const auto& f : report.files) {
    const auto emit = [&](const Diagnostics& ds) {
      for (const auto& d : ds) {
        if (opts.quiet && d.severity != Severity::error) continue;
        out << github_line(d);
      }
    };
    emit(f.file_findings);
    for (const auto& doc : f.documents) emit(doc.findings);
  }
  if (opts.quiet) return;
  // Documents not checked are notices too: a file name on a plain line could hold a newline and "::".
  for (const auto& f : report.files) {
    for (const auto& doc : f.documents) {
      if (!doc.skipped) continue;
      std::string what = doc.kind + (doc.name.empty() ? std::string() : " " + util::quote(doc.name));
      out << "::notice file=" << github_escape_property(f.name);
      if (doc.line != 0) out << ",line=" << doc.line;
      out << ",title=not checked::" << github_escape_data(what + ": " + doc.skip_reason) << "\n";
    }
  }
  out << summary_line(summarize(report)) << "\n";
}

}  // namespace kpt::plugin
