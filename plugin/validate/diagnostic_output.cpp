#include "plugin/validate/diagnostic_output.hpp"

#include "plugin/ansi.hpp"
#include "util/strings.hpp"
#include "yaml/node.hpp"

#include <ostream>

namespace kpt::plugin {

namespace {

/// Text output calls an info finding a "note", as compilers do.
const char* severity_label(Severity s) { return s == Severity::info ? "note" : to_string(s); }

const char* severity_colour(Severity s) {
  switch (s) {
    case Severity::error:
      return ansi::bold_red;
    case Severity::warning:
      return ansi::bold_magenta;
    case Severity::info:
      break;
  }
  return ansi::bold_cyan;
}

std::string plural(std::size_t n, const char* one, const char* many) {
  return std::to_string(n) + " " + (n == 1 ? one : many);
}

/// Byte offsets where each UTF-8 code point of `text` starts, plus text.size() at the end.
std::vector<std::size_t> code_point_starts(std::string_view text) {
  std::vector<std::size_t> out;
  out.reserve(text.size() + 1);
  for (std::size_t i = 0; i < text.size(); ++i) {
    if ((static_cast<unsigned char>(text[i]) & 0xC0) != 0x80) out.push_back(i);
  }
  out.push_back(text.size());
  return out;
}

void count(const Diagnostics& ds, Summary& s) {
  for (const auto& d : ds) {
    switch (d.severity) {
      case Severity::error:
        ++s.errors;
        break;
      case Severity::warning:
        ++s.warnings;
        break;
      case Severity::info:
        ++s.infos;
        break;
    }
  }
}

}  // namespace

void drop_disabled(Report& report, const std::set<std::string, std::less<>>& disabled) {
  if (disabled.empty()) return;
  const auto off = [&](const Diagnostic& d) { return disabled.count(d.rule_id) != 0; };
  for (auto& f : report.files) {
    std::erase_if(f.file_findings, off);
    for (auto& doc : f.documents) std::erase_if(doc.findings, off);
  }
}

Summary summarize(const FileReport& file) {
  Summary s;
  s.files = 1;
  count(file.file_findings, s);
  for (const auto& d : file.documents) {
    if (d.skipped) {
      ++s.skipped;
      continue;
    }
    ++s.documents;
    count(d.findings, s);
  }
  return s;
}

Summary summarize(const Report& report) {
  Summary total;
  for (const auto& f : report.files) {
    const Summary s = summarize(f);
    total.errors += s.errors;
    total.warnings += s.warnings;
    total.infos += s.infos;
    total.documents += s.documents;
    total.skipped += s.skipped;
    total.files += s.files;
  }
  return total;
}

std::string summary_line(const Summary& s) {
  std::string out = plural(s.errors, "error", "errors") + ", " + plural(s.warnings, "warning", "warnings");
  if (s.infos != 0) out += ", " + plural(s.infos, "note", "notes");
  out +=
      " in " + plural(s.documents, "document", "documents") + " (" + plural(s.files, "file", "files") + ")";
  if (s.skipped != 0) {
    out += "; " + plural(s.skipped, "document", "documents") + " not checked";
  }
  return out;
}

CaretLines caret_lines(std::string_view line_text, std::uint32_t col, std::size_t width) {
  const auto starts = code_point_starts(line_text);
  const std::size_t n = starts.size() - 1;
  const std::size_t at = col == 0 ? 0 : col - 1;
  std::size_t first = 0;
  std::size_t last = n;
  if (n > width) {
    first = at > width / 2 ? at - width / 2 : 0;
    last = std::min(n, first + width);
    first = last > width ? last - width : 0;
  }
  CaretLines out;
  std::size_t caret_at = at >= first ? at - first : 0;
  if (first > 0) {
    out.source = "...";
    caret_at += 3;
  }
  for (char c : line_text.substr(starts[first], starts[last] - starts[first]))
    out.source.push_back(c == '\t' ? ' ' : c);
  if (last < n) out.source += "...";
  out.caret.assign(caret_at, ' ');
  out.caret += '^';
  return out;
}

std::string format_finding(const Diagnostic& d, const std::string* source, bool colour) {
  const auto paint = [colour](const char* code, const std::string& text) {
    return colour ? std::string(code) + text + ansi::reset : text;
  };
  std::string where = d.location.file;
  if (d.location.line != 0) {
    where += ":" + std::to_string(d.location.line);
    if (d.location.col != 0) where += ":" + std::to_string(d.location.col);
  }
  std::string out = paint(ansi::bold, where + ":") + " " +
                    paint(severity_colour(d.severity), std::string(severity_label(d.severity)) + ":") + " ";
  if (!d.field_path.empty()) out += d.field_path + ": ";
  out += d.message;
  if (!d.rule_id.empty()) out += " [" + d.rule_id + "]";
  out += "\n";
  if (source != nullptr && d.location.line != 0) {
    const auto text = yaml::line_of(*source, d.location.line);
    if (!text.empty()) {
      const auto lines = caret_lines(text, d.location.col);
      out += lines.source + "\n" + paint(ansi::bold_green, lines.caret) + "\n";
    }
  }
  if (!d.hint.empty()) out += "  hint: " + d.hint + "\n";
  return out;
}

std::string not_checked_lines(const Report& report, std::size_t max) {
  std::string out;
  std::size_t n = 0;
  for (const auto& f : report.files) {
    for (const auto& d : f.documents) {
      if (!d.skipped) continue;
      if (n++ >= max) continue;
      out += "not checked: " + f.name + (d.line != 0 ? ":" + std::to_string(d.line) : std::string()) + ": " +
             d.kind + (d.name.empty() ? std::string() : " " + util::quote(d.name)) + ": " + d.skip_reason +
             "\n";
    }
  }
  if (n > max) out += "not checked: and " + plural(n - max, "more document", "more documents") + "\n";
  return out;
}

void write_text(const Report& report, const OutputOptions& opts, std::ostream& out) {
  for (const auto& f : report.files) {
    const std::string* src = f.source ? f.source.get() : nullptr;
    const auto emit = [&](const Diagnostics& ds) {
      for (const auto& d : ds) {
        if (opts.quiet && d.severity != Severity::error) continue;
        out << format_finding(d, src, opts.colour);
      }
    };
    emit(f.file_findings);
    for (const auto& d : f.documents) emit(d.findings);
  }
  if (!opts.quiet) out << not_checked_lines(report) << summary_line(summarize(report)) << "\n";
}

void write_report(const Report& report, const OutputOptions& opts, std::ostream& out) {
  switch (opts.format) {
    case OutputFormat::json:
      write_json(report, out);
      return;
    case OutputFormat::junit:
      write_junit(report, out);
      return;
    case OutputFormat::sarif:
      write_sarif(report, opts.tool, out);
      return;
    case OutputFormat::github:
      write_github(report, opts, out);
      return;
    case OutputFormat::text:
      break;
  }
  write_text(report, opts, out);
}

}  // namespace kpt::plugin
