#include "schema/k8s_names.hpp"
#include "schema/structural_findings.hpp"
#include "util/strings.hpp"

#include <array>
#include <string_view>

namespace kpt::schema {
namespace {

constexpr std::array<std::string_view, 15> k_object_meta_fields = {"annotations",
                                                                   "creationTimestamp",
                                                                   "deletionGracePeriodSeconds",
                                                                   "deletionTimestamp",
                                                                   "finalizers",
                                                                   "generateName",
                                                                   "generation",
                                                                   "labels",
                                                                   "managedFields",
                                                                   "name",
                                                                   "namespace",
                                                                   "ownerReferences",
                                                                   "resourceVersion",
                                                                   "selfLink",
                                                                   "uid"};

std::string got(const yaml::Node& v) {
  std::string out = std::string("expected string, got ") + to_string(v.kind);
  if (v.is_scalar() && v.kind != yaml::NodeKind::null) out += " " + util::quote(v.text);
  return out;
}

std::string quote_hint(const yaml::Node& v) {
  return v.is_scalar() && v.kind != yaml::NodeKind::null ? "quote it: \"" + v.text + "\"" : std::string();
}

void report_all(FindingSink& sink, yaml::Position pos, const std::string& path, const char* rule,
                const std::string& prefix, const std::vector<std::string>& messages) {
  for (const auto& m : messages) sink.error(pos, path, rule, prefix + m);
}

void check_name(const yaml::Node& meta, const std::string& path, bool require_name, FindingSink& sink) {
  const yaml::Node* name = meta.find("name");
  const yaml::Node* generate = meta.find("generateName");
  if (name != nullptr && name->kind != yaml::NodeKind::null) {
    const auto at = child_path(path, "name");
    if (!name->is_string()) return sink.error(name->pos, at, "metadata.name", got(*name), quote_hint(*name));
    report_all(sink, name->pos, at, "metadata.name", "invalid value " + util::quote(name->text) + ": ",
               dns1123_subdomain_errors(name->text));
  } else if (require_name && (generate == nullptr || generate->kind == yaml::NodeKind::null)) {
    sink.error(meta.pos, child_path(path, "name"), "metadata.name", "name or generateName is required");
  }
  if (generate != nullptr && generate->kind != yaml::NodeKind::null) {
    const auto at = child_path(path, "generateName");
    if (!generate->is_string()) {
      return sink.error(generate->pos, at, "metadata.name", got(*generate), quote_hint(*generate));
    }
    // The API server appends a random suffix, so a trailing '-' is fine: mask it as apimachinery does.
    std::string masked = generate->text;
    if (!masked.empty() && masked.back() == '-') masked.back() = 'a';
    report_all(sink, generate->pos, at, "metadata.name",
               "invalid value " + util::quote(generate->text) + ": ", dns1123_subdomain_errors(masked));
  }
}

/// Labels or annotations: a mapping of qualified-name keys to string values.
void check_string_map(const yaml::Node& map, const std::string& path, bool labels, FindingSink& sink) {
  const char* rule = labels ? "metadata.labels" : "metadata.annotations";
  if (map.kind == yaml::NodeKind::null) return;
  if (!map.is_map()) {
    return sink.error(map.pos, path, rule, std::string("expected object, got ") + to_string(map.kind));
  }
  std::size_t total = 0;
  for (std::size_t i = 0; i < map.keys.size(); ++i) {
    const std::string& key = map.keys[i];
    const yaml::Node& value = map.items[i];
    const auto at = child_path(path, key);
    const yaml::Position key_pos = i < map.key_positions.size() ? map.key_positions[i] : map.pos;
    report_all(sink, key_pos, at, rule, "invalid key " + util::quote(key) + ": ",
               qualified_name_errors(labels ? key : util::to_lower(key)));
    if (!value.is_string()) {
      sink.error(value.pos, at, rule, got(value), quote_hint(value));
      continue;
    }
    total += key.size() + value.text.size();
    if (labels) {
      report_all(sink, value.pos, at, rule, "invalid value " + util::quote(value.text) + ": ",
                 label_value_errors(value.text));
    }
  }
  if (!labels) report_all(sink, map.pos, path, rule, "too long: ", annotations_size_errors(total));
}

}  // namespace

void check_object_meta(const yaml::Node& meta, const std::string& path, ObjectMetaOptions opts,
                       FindingSink& sink) {
  if (!meta.is_map()) {
    return sink.error(meta.pos, path, "schema.type",
                      std::string("expected object, got ") + to_string(meta.kind));
  }
  check_name(meta, path, opts.require_name, sink);
  if (const yaml::Node* ns = meta.find("namespace"); ns != nullptr && ns->kind != yaml::NodeKind::null) {
    const auto at = child_path(path, "namespace");
    if (!ns->is_string()) {
      sink.error(ns->pos, at, "metadata.namespace", got(*ns), quote_hint(*ns));
    } else {
      report_all(sink, ns->pos, at, "metadata.namespace", "invalid value " + util::quote(ns->text) + ": ",
                 dns1123_label_errors(ns->text));
    }
  }
  if (const yaml::Node* l = meta.find("labels")) check_string_map(*l, child_path(path, "labels"), true, sink);
  if (const yaml::Node* a = meta.find("annotations"))
    check_string_map(*a, child_path(path, "annotations"), false, sink);
  std::vector<std::string> known(k_object_meta_fields.begin(), k_object_meta_fields.end());
  for (std::size_t i = 0; i < meta.keys.size(); ++i) {
    const auto& key = meta.keys[i];
    bool found = false;
    for (auto f : k_object_meta_fields) found = found || f == key;
    if (found) continue;
    const auto hint = util::closest_match(key, known);
    sink.add(opts.unknown_fields_are_errors ? Severity::error : Severity::warning,
             i < meta.key_positions.size() ? meta.key_positions[i] : meta.pos, child_path(path, key),
             "schema.unknown-field", "unknown field " + util::quote(key),
             hint ? "did you mean " + util::quote(*hint) + "?" : std::string());
  }
}

}  // namespace kpt::schema
