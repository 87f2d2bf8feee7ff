#include "plugin/validate/server_dry_run.hpp"

#include "kube/rest_client.hpp"
#include "model/k8s/object_meta.hpp"
#include "util/json_access.hpp"
#include "util/strings.hpp"
#include "yaml/node_json.hpp"

#include <nlohmann/json.hpp>

#include <cctype>
#include <string_view>
#include <utility>

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

/// The fields of a strict decoding error ("unknown field \"spec.x\""), as {field, "unknown"}.
/// Scanned by hand: the message comes from the server, and std::regex recurses per character.
std::vector<std::pair<std::string, std::string>> strict_decoding_fields(const std::string& message) {
  std::vector<std::pair<std::string, std::string>> out;
  std::size_t pos = 0;
  while (pos < message.size()) {
    std::size_t best = std::string::npos;
    std::string why;
    for (const char* kind : {"unknown", "duplicate"}) {
      const auto at = message.find(std::string(kind) + " field \"", pos);
      if (at < best) {
        best = at;
        why = kind;
      }
    }
    if (best == std::string::npos) break;
    const std::size_t open = best + why.size() + 8;  // past `<why> field "`
    const std::size_t close = message.find('"', open);
    if (close == std::string::npos) break;
    if (close == open) {
      pos = best + 1;
      continue;
    }
    out.emplace_back(message.substr(open, close - open), why);
    pos = close + 1;
  }
  return out;
}

struct FieldAt {
  std::size_t position;
  std::string field;
};

bool is_path_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-' ||
         c == '/';
}

/// The field paths a validation message names before ": " ("spec.a[0].b: Invalid value ..."): a
/// top-level field (spec, metadata, status, apiVersion, kind) then `.name` and `[index]` parts,
/// left to right, not overlapping.
std::vector<FieldAt> field_paths_before_colon(const std::string& message) {
  std::vector<FieldAt> out;
  std::size_t i = 0;
  while (i < message.size()) {
    std::size_t end = std::string::npos;
    for (const std::string_view top : {"spec", "metadata", "status", "apiVersion", "kind"}) {
      if (message.compare(i, top.size(), top) == 0) {
        end = i + top.size();
        break;
      }
    }
    if (end == std::string::npos) {
      ++i;
      continue;
    }
    while (end < message.size()) {
      if (message[end] == '.' && end + 1 < message.size() && is_path_char(message[end + 1])) {
        ++end;
        while (end < message.size() && is_path_char(message[end])) ++end;
      } else if (message[end] == '[') {
        std::size_t close = end + 1;
        while (close < message.size() && message[close] != ']' &&
               std::isspace(static_cast<unsigned char>(message[close])) == 0)
          ++close;
        if (close >= message.size() || message[close] != ']') break;
        end = close + 1;
      } else {
        break;
      }
    }
    if (message.compare(end, 2, ": ") == 0) {
      out.push_back({i, message.substr(i, end - i)});
      i = end + 2;
    } else {
      ++i;
    }
  }
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
  for (const auto& [field, why] : strict_decoding_fields(message)) {
    out.push_back({field, why + " field " + util::quote(field)});
  }
  const auto matches = field_paths_before_colon(message);
  for (std::size_t i = 0; i < matches.size(); ++i) {
    const std::size_t begin = matches[i].position + matches[i].field.size() + 2;
    const std::size_t end = i + 1 < matches.size() ? matches[i + 1].position : message.size();
    std::string words = trim_cause(message.substr(begin, end - begin));
    if (!words.empty()) words[0] = static_cast<char>(std::tolower(static_cast<unsigned char>(words[0])));
    out.push_back({matches[i].field, words});
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
      // An index from the server's message: at most 9 digits, so std::stoul cannot throw.
      if (!digits || seg.size() > 9 || std::stoul(seg) >= node->items.size()) break;
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

std::optional<kube::ResourceRef> resource_in_discovery(const nlohmann::json& discovery,
                                                       const std::string& api_version,
                                                       const std::string& kind) {
  const auto slash = api_version.find('/');
  kube::ResourceRef ref;
  ref.group = slash == std::string::npos ? std::string() : api_version.substr(0, slash);
  ref.version = slash == std::string::npos ? api_version : api_version.substr(slash + 1);
  ref.kind = kind;
  for (const auto& r : util::array_at(discovery, "resources")) {
    const std::string name = util::string_at(r, "name");
    // Subresources (pods/log, pytorchjobs/status) carry their parent's kind or another one.
    if (name.empty() || name.find('/') != std::string::npos || util::string_at(r, "kind") != kind) continue;
    ref.resource = name;
    ref.namespaced = util::bool_at(r, "namespaced");
    return ref;
  }
  return std::nullopt;
}

Diagnostics server_dry_run(kube::ApiClient& api, const kube::ResourceRef& resource, const yaml::Document& doc,
                           const std::string& default_ns) {
  nlohmann::json obj = yaml::to_json(doc.root);
  std::string ns;
  if (resource.namespaced)
    ns = model::k8s::namespace_of(obj).empty() ? default_ns : model::k8s::namespace_of(obj);
  const std::string name = model::k8s::name_of(obj);
  kube::WriteOptions opts;
  opts.dry_run = true;
  opts.field_validation = "Strict";
  opts.field_manager = kube::k_field_manager;
  (void)api.take_warnings();
  std::string error;
  if (!name.empty()) {
    opts.force = true;
    auto r = api.patch(resource, ns, name, kube::PatchType::apply, obj.dump(), opts);
    if (!r) error = r.error().message;
  } else {
    auto r = api.create(resource, ns, obj, opts);
    if (!r) error = r.error().message;
  }
  return findings_from_server(doc, error, api.take_warnings());
}

}  // namespace kpt::plugin
