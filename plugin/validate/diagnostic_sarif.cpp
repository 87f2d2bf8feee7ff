// `validate -o sarif`: SARIF 2.1.0 (OASIS) as GitHub code scanning and other consumers read it. The
// driver lists every rule validate can report, so a consumer shows each result's rule text; results point
// at files relative to %SRCROOT% (the checkout), with the line and column in code points, as the text
// output counts them.
#include "plugin/validate/diagnostic_output.hpp"
#include "plugin/validate/rule_catalog.hpp"

#include <nlohmann/json.hpp>

#include <map>
#include <ostream>

namespace kpt::plugin {

namespace {

using ordered_json = nlohmann::ordered_json;

const char* sarif_level(Severity s) {
  switch (s) {
    case Severity::error:
      return "error";
    case Severity::warning:
      return "warning";
    case Severity::info:
      break;
  }
  return "note";
}

bool uri_unreserved(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '.' ||
         c == '_' || c == '~' || c == '/';
}

std::string percent_encode(std::string_view text) {
  static constexpr char k_hex_digits[] = "0123456789ABCDEF";
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    if (uri_unreserved(c)) {
      out += c;
      continue;
    }
    const auto byte = static_cast<unsigned char>(c);
    out += '%';
    out += k_hex_digits[byte >> 4];
    out += k_hex_digits[byte & 0xf];
  }
  return out;
}

/// The rules of the run: the catalog, then ids the catalog lacks in the order results name them.
class RuleTable {
 public:
  RuleTable() {
    for (const auto& r : rule_catalog()) add(std::string(r.id), r.brief, r.help);
  }
  std::size_t index_of(const std::string& id) {
    const auto it = m_index.find(id);
    if (it != m_index.end()) return it->second;
    return add(id, id, "");
  }
  ordered_json take() { return std::move(m_rules); }

 private:
  std::size_t add(const std::string& id, std::string_view brief, std::string_view help) {
    ordered_json rule{{"id", id}, {"shortDescription", {{"text", std::string(brief)}}}};
    if (!help.empty()) rule["help"] = {{"text", std::string(help)}};
    m_rules.push_back(std::move(rule));
    m_index.emplace(id, m_rules.size() - 1);
    return m_rules.size() - 1;
  }
  ordered_json m_rules = ordered_json::array();
  std::map<std::string, std::size_t, std::less<>> m_index;
};

ordered_json sarif_result(const Diagnostic& d, RuleTable& rules) {
  const std::string rule = d.rule_id.empty() ? "internal" : d.rule_id;
  std::string text = d.field_path.empty() ? d.message : d.field_path + ": " + d.message;
  if (!d.hint.empty()) text += "\nhint: " + d.hint;
  const auto uri = artifact_uri(d.location.file);
  ordered_json artifact{{"uri", uri.uri}};
  if (uri.relative) artifact["uriBaseId"] = "%SRCROOT%";
  ordered_json physical{{"artifactLocation", std::move(artifact)}};
  if (d.location.line != 0) {
    ordered_json region{{"startLine", d.location.line}};
    if (d.location.col != 0) region["startColumn"] = d.location.col;
    physical["region"] = std::move(region);
  }
  ordered_json result{{"ruleId", rule}};
  result["ruleIndex"] = rules.index_of(rule);
  result["level"] = sarif_level(d.severity);
  result["message"] = {{"text", std::move(text)}};
  result["locations"] = ordered_json::array({{{"physicalLocation", std::move(physical)}}});
  return result;
}

}  // namespace

ArtifactUri artifact_uri(std::string_view file) {
  if (!file.empty() && file.front() == '/') return {"file://" + percent_encode(file), false};
  while (file.size() > 2 && file.substr(0, 2) == "./") file.remove_prefix(2);
  return {percent_encode(file), true};
}

void write_sarif(const Report& report, const SarifTool& tool, std::ostream& out) {
  RuleTable rules;
  ordered_json results = ordered_json::array();
  for (const auto& f : report.files) {
    for (const auto& d : f.file_findings) results.push_back(sarif_result(d, rules));
    for (const auto& doc : f.documents) {
      for (const auto& d : doc.findings) results.push_back(sarif_result(d, rules));
    }
  }
  ordered_json driver{
      {"name", tool.name}, {"version", tool.version}, {"informationUri", tool.information_uri}};
  driver["rules"] = rules.take();
  ordered_json run{{"tool", {{"driver", std::move(driver)}}}};
  run["columnKind"] = "unicodeCodePoints";
  run["results"] = std::move(results);
  ordered_json doc{{"$schema", "https://json.schemastore.org/sarif-2.1.0.json"}, {"version", "2.1.0"}};
  doc["runs"] = ordered_json::array({std::move(run)});
  out << doc.dump(2, ' ', false, ordered_json::error_handler_t::replace) << "\n";
}

}  // namespace kpt::plugin
