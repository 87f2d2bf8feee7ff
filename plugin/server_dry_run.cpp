#include "plugin/server_dry_run.hpp"

#include "kube/rest_client.hpp"
#include "util/strings.hpp"
#include "yaml/node_json.hpp"

#include <nlohmann/json.hpp>

#include <regex>

namespace kpt::plugin {

namespace {

/// "spec.a[Worker].b[0]" → {"spec", "a", "Worker", "b", "0"}.
std::vector<std::string> field_segments(const std::string& field) {
  std::vector<std::string> out;
  std::string cur;
  for (const char c : field) {
    if (c == '.' || c == '[' || c == ']') {
      if (!cur.empty()) out.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  if (!cur.empty()) out.push_back(cur);
  return out;
}

std::string trim_cause(std::string text) {
  auto t = util::trim(text);
  while (!t.empty() && (t.back() == ',' || t.back() == ']' || t.back() == ' ')) t.remove_suffix(1);
  return std::string(t);
}

}  // namespace

std::vector<StatusCause> causes_from_status_message(const std::string& message) {
  std::vector<StatusCause> out;
  static const std::regex k_strict(R"((unknown|duplicate) field \"([^\"]+)\")");
  for (auto it = std::sregex_iterator(message.begin(), message.end(), k_strict); it != std::sregex_iterator();
       ++it) {
    out.push_back({(*it)[2].str(), (*it)[1].str() + " field " + util::quote((*it)[2].str())});
  }
  static const std::regex k_field(
      R"(((?:spec|metadata|status|apiVersion|kind)(?:\.[\w\-/]+|\[[^\]\s]*\])*): )");
  std::vector<std::smatch> matches;
  for (auto it = std::sregex_iterator(message.begin(), message.end(), k_field); it != std::sregex_iterator();
       ++it) {
    matches.push_back(*it);
  }
  for (std::size_t i = 0; i < matches.size(); ++i) {
    const auto begin = static_cast<std::size_t>(matches[i].position(0));
    const auto end =
        i + 1 < matches.size() ? static_cast<std::size_t>(matches[i + 1].position(0)) : message.size();
    std::string words = trim_cause(
        message.substr(begin + matches[i][1].length() + 2, end - begin - matches[i][1].length() - 2));
    if (!words.empty()) words[0] = static_cast<char>(std::tolower(static_cast<unsigned char>(words[0])));
    out.push_back({matches[i][1].str(), words});
  }
  if (out.empty()) out.push_back({"", message});
  return out;
}

Location location_of_field(const yaml::Document& doc, const std::string& field) {
  Location loc{doc.file, doc.start.line, doc.start.col};
  const yaml::Node* node = &doc.root;
  for (const auto& seg : field_segments(field)) {
    if (node->kind == yaml::NodeKind::mapping) {
      const auto idx = node->key_index(seg);
      if (idx < 0) break;
      loc.line = node->key_positions[static_cast<std::size_t>(idx)].line;
      loc.col = node->key_positions[static_cast<std::size_t>(idx)].col;
      node = &node->items[static_cast<std::size_t>(idx)];
    } else if (node->kind == yaml::NodeKind::sequence) {
      const bool digits = !seg.empty() && seg.find_first_not_of("0123456789") == std::string::npos;
      if (!digits || std::stoul(seg) >= node->items.size()) break;
      node = &node->items[std::stoul(seg)];
      loc.line = node->pos.line;
      loc.col = node->pos.col;
    } else {
      break;
    }
  }
  return loc;
}

Diagnostics findings_from_server(const yaml::Document& doc, const std::string& error_message,
                                 const std::vector<std::string>& warnings) {
  Diagnostics out;
  if (!error_message.empty()) {
    for (const auto& c : causes_from_status_message(error_message)) {
      Diagnostic d;
      d.severity = Severity::error;
      d.location = location_of_field(doc, c.field);
      d.field_path = c.field;
      d.rule_id = "server.dry-run";
      d.message = "the server rejects it: " + c.message;
      out.push_back(std::move(d));
    }
  }
  for (const auto& w : warnings) {
    Diagnostic d;
    d.severity = Severity::warning;
    d.location = {doc.file, doc.start.line, doc.start.col};
    d.rule_id = "server.warning";
    d.message = "the server warns: " + w;
    out.push_back(std::move(d));
  }
  return out;
}

Diagnostics server_dry_run(kube::ApiClient& api, const yaml::Document& doc, const std::string& default_ns) {
  nlohmann::json obj = yaml::to_json(doc.root);
  const auto& meta = obj.value("metadata", nlohmann::json::object());
  const std::string ns = meta.value("namespace", default_ns);
  const std::string name = meta.value("name", "");
  kube::WriteOptions opts;
  opts.dry_run = true;
  opts.field_validation = "Strict";
  opts.field_manager = kube::k_field_manager;
  (void)api.take_warnings();
  std::string error;
  if (!name.empty()) {
    opts.force = true;
    auto r = api.patch(kube::resources::pytorchjobs(), ns, name, kube::PatchType::apply, obj.dump(), opts);
    if (!r) error = r.error().message;
  } else {
    auto r = api.create(kube::resources::pytorchjobs(), ns, obj, opts);
    if (!r) error = r.error().message;
  }
  return findings_from_server(doc, error, api.take_warnings());
}

}  // namespace kpt::plugin
