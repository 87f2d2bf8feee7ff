// `validate -o json`, written by hand (the findings of a large run in two halves, on two threads). The bytes
// are those of nlohmann::ordered_json::dump(2, ' ', false, replace) on the same values (a test compares
// them); nlohmann escapes only the strings that are not plain ASCII.
#include "plugin/validate/diagnostic_output.hpp"

#include <nlohmann/json.hpp>

#include <functional>
#include <ostream>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

namespace kpt::plugin {

namespace {

constexpr std::size_t k_parallel_findings = 2000;  // below this a second thread costs more than it saves

class JsonWriter {
 public:
  void string(std::string_view s) {
    bool ascii = true;
    for (const char c : s) ascii = ascii && static_cast<unsigned char>(c) < 0x80;
    if (!ascii) {  // UTF-8 (or invalid bytes, replaced): nlohmann's own escaping
      m_out += nlohmann::ordered_json(std::string(s))
                   .dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
      return;
    }
    m_out += '"';
    std::size_t run = 0;  // characters copied as they are, appended at once
    for (std::size_t i = 0; i < s.size(); ++i) {
      const char c = s[i];
      if (c != '"' && c != '\\' && static_cast<unsigned char>(c) > 0x1f) continue;
      m_out.append(s.data() + run, i - run);
      run = i + 1;
      switch (c) {
        case '\b':
          m_out += "\\b";
          break;
        case '\t':
          m_out += "\\t";
          break;
        case '\n':
          m_out += "\\n";
          break;
        case '\f':
          m_out += "\\f";
          break;
        case '\r':
          m_out += "\\r";
          break;
        case '"':
          m_out += "\\\"";
          break;
        case '\\':
          m_out += "\\\\";
          break;
        default: {  // the other control characters
          static constexpr char k_hex[] = "0123456789abcdef";
          m_out += "\\u00";
          m_out += k_hex[(c >> 4) & 0xf];
          m_out += k_hex[c & 0xf];
        }
      }
    }
    m_out.append(s.data() + run, s.size() - run);
    m_out += '"';
  }

  /// `"key": ` at `depth` levels of indentation, after a comma unless it is the first member.
  void key(std::string_view k, int depth, bool first) {
    m_out += first ? "\n" : ",\n";
    m_out.append(static_cast<std::size_t>(depth) * 2, ' ');
    string(k);
    m_out += ": ";
  }
  void member(std::string_view k, std::string_view v, int depth, bool first = false) {
    key(k, depth, first);
    string(v);
  }
  void member(std::string_view k, std::size_t v, int depth, bool first = false) {
    key(k, depth, first);
    m_out += std::to_string(v);
  }
  /// `{` or `[` opening an element of an array at `depth`.
  void element(char open, int depth, bool first) {
    m_out += first ? "\n" : ",\n";
    m_out.append(static_cast<std::size_t>(depth) * 2, ' ');
    m_out += open;
  }
  void close(char c, int depth) {
    m_out += '\n';
    m_out.append(static_cast<std::size_t>(depth) * 2, ' ');
    m_out += c;
  }
  std::string& out() { return m_out; }

 private:
  std::string m_out;
};

/// A finding and the document it is in (null for a finding about the file as a whole).
struct Located {
  const Diagnostic* finding;
  const DocumentReport* document;
};

void write_diagnostic(JsonWriter& w, const Located& at, bool first) {
  const Diagnostic& d = *at.finding;
  w.element('{', 2, first);
  w.member("file", d.location.file, 3, true);
  w.member("line", d.location.line, 3);
  w.member("column", d.location.col, 3);
  w.member("severity", to_string(d.severity), 3);
  w.member("field", d.field_path, 3);
  w.member("rule", d.rule_id, 3);
  w.member("message", d.message, 3);
  w.member("hint", d.hint, 3);
  if (at.document != nullptr) {
    w.member("document_index", at.document->index, 3);
    w.member("kind", at.document->kind, 3);
    w.member("name", at.document->name, 3);
    w.member("namespace", at.document->name_space, 3);
  } else {
    w.key("document_index", 3, false);
    w.out() += "null";
    w.member("kind", "", 3);
    w.member("name", "", 3);
    w.member("namespace", "", 3);
  }
  w.close('}', 2);
}

void write_target(JsonWriter& w, const ReportTarget& t) {
  w.key("target", 1, false);
  w.out() += '{';
  w.member("cluster", t.cluster, 2, true);
  w.member("operator", t.operator_release, 2);
  w.member("trainer", t.trainer_release, 2);
  w.key("schemas", 2, false);
  if (t.schemas.empty()) {
    w.out() += "[]";
  } else {
    w.out() += '[';
    for (std::size_t i = 0; i < t.schemas.size(); ++i) {
      w.element('{', 3, i == 0);
      w.member("kinds", t.schemas[i].first, 4, true);
      w.member("source", t.schemas[i].second, 4);
      w.close('}', 3);
    }
    w.close(']', 2);
  }
  w.key("disabled", 2, false);
  if (t.disabled.empty()) {
    w.out() += "[]";
  } else {
    w.out() += '[';
    for (std::size_t i = 0; i < t.disabled.size(); ++i) {
      w.out() += i == 0 ? "\n" : ",\n";
      w.out().append(6, ' ');
      w.string(t.disabled[i]);
    }
    w.close(']', 2);
  }
  w.close('}', 1);
}

}  // namespace

void write_json(const Report& report, std::ostream& out) {
  JsonWriter w;
  w.out().reserve(4096 + report.files.size() * 160);
  w.out() += '{';
  w.member("version", std::size_t{1}, 1, true);
  w.key("files", 1, false);
  if (report.files.empty()) {
    w.out() += "[]";
  } else {
    w.out() += '[';
    bool first = true;
    for (const auto& f : report.files) {
      const auto s = summarize(f);
      w.element('{', 2, first);
      first = false;
      w.member("name", f.name, 3, true);
      w.member("documents", s.documents, 3);
      w.member("skipped", s.skipped, 3);
      w.member("errors", s.errors, 3);
      w.member("warnings", s.warnings, 3);
      w.close('}', 2);
    }
    w.close(']', 1);
  }
  const auto s = summarize(report);
  w.key("summary", 1, false);
  w.out() += '{';
  w.member("errors", s.errors, 2, true);
  w.member("warnings", s.warnings, 2);
  w.member("infos", s.infos, 2);
  w.member("documents", s.documents, 2);
  w.member("skipped", s.skipped, 2);
  w.member("files", s.files, 2);
  w.close('}', 1);
  w.key("diagnostics", 1, false);
  std::vector<Located> all;
  for (const auto& f : report.files) {
    for (const auto& d : f.file_findings) all.push_back({&d, nullptr});
    for (const auto& doc : f.documents) {
      for (const auto& d : doc.findings) all.push_back({&d, &doc});
    }
  }
  w.out() += '[';
  if (all.empty()) {
    w.out() += ']';
  } else {
    const auto render = [&all](std::size_t from, std::size_t to, std::string& into) {
      JsonWriter part;
      part.out().reserve((to - from) * 256);
      for (std::size_t i = from; i < to; ++i) write_diagnostic(part, all[i], i == 0);
      into = std::move(part.out());
    };
    // Many findings (a whole corpus): the second half is written on another core meanwhile.
    const std::size_t half = all.size() >= k_parallel_findings ? all.size() / 2 : all.size();
    std::string second;
    std::thread helper;
    if (half < all.size()) helper = std::thread(render, half, all.size(), std::ref(second));
    std::string first;
    render(0, half, first);
    if (helper.joinable()) helper.join();
    w.out() += first;
    w.out() += second;
    w.close(']', 1);
  }
  // Documents no schema served: which, and why (a CI log says what was not checked).
  w.key("not_checked", 1, false);
  w.out() += '[';
  bool first_skipped = true;
  for (const auto& f : report.files) {
    for (const auto& doc : f.documents) {
      if (!doc.skipped) continue;
      w.element('{', 2, first_skipped);
      first_skipped = false;
      w.member("file", f.name, 3, true);
      w.member("line", std::size_t{doc.line}, 3);
      w.member("document_index", doc.index, 3);
      w.member("kind", doc.kind, 3);
      w.member("name", doc.name, 3);
      w.member("namespace", doc.name_space, 3);
      w.member("reason", doc.skip_reason, 3);
      w.close('}', 2);
    }
  }
  if (first_skipped) {
    w.out() += ']';
  } else {
    w.close(']', 1);
  }
  write_target(w, report.target);
  w.close('}', 0);
  w.out() += '\n';
  out.write(w.out().data(), static_cast<std::streamsize>(w.out().size()));
}

}  // namespace kpt::plugin
