#include "apiserver/object_meta_validation.hpp"

#include "apiserver/go_decode_error.hpp"
#include "schema/k8s_names.hpp"
#include "util/json_access.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>

namespace kpt::apiserver {

namespace {

using json = nlohmann::json;

/// ConfigMap and Secret data may hold 1 MiB (k8s.io/kubernetes pkg/apis/core MaxSecretSize).
constexpr std::size_t k_max_secret_size = 1024 * 1024;
/// A CronJob's Jobs are named `<cronjob>-<11 characters>`, and a Job's name is a 63-character label.
constexpr std::size_t k_max_cronjob_name = 63 - 11;

std::string text_of(const json& object, const char* field) {
  const auto it = object.find(field);
  return it != object.end() && it->is_string() ? it->get<std::string>() : std::string();
}

StatusCause required(const std::string& field, const std::string& detail = {}) {
  return {"FieldValueRequired", detail.empty() ? "Required value" : "Required value: " + detail, field};
}

/// apimachinery's NameIsDNS*: a generateName is checked as a prefix, its trailing '-' masked.
std::vector<std::string> name_errors(std::string name, NameRule rule, bool prefix) {
  if (prefix && name.size() > 1 && name.back() == '-') name.back() = 'a';
  switch (rule) {
    case NameRule::dns1123_label:
      return schema::dns1123_label_errors(name);
    case NameRule::dns1035_label:
      return schema::dns1035_label_errors(name);
    case NameRule::dns1123_subdomain:
      break;
  }
  return schema::dns1123_subdomain_errors(name);
}

void add_all(std::vector<StatusCause>& out, const std::string& field, const std::string& value,
             const std::vector<std::string>& messages) {
  for (const auto& m : messages) out.push_back(invalid_value(field, value, m));
}

void check_names(const json& meta, NameRule rule, std::vector<StatusCause>& out) {
  const std::string generate = text_of(meta, "generateName");
  if (!generate.empty()) add_all(out, "metadata.generateName", generate, name_errors(generate, rule, true));
  const std::string name = text_of(meta, "name");
  if (name.empty()) {
    out.push_back(required("metadata.name", "name or generateName is required"));
  } else {
    add_all(out, "metadata.name", name, name_errors(name, rule, false));
  }
}

void check_namespace(const json& meta, bool namespaced, std::vector<StatusCause>& out) {
  const std::string ns = text_of(meta, "namespace");
  if (!namespaced) {
    if (!ns.empty())
      out.push_back({"FieldValueForbidden", "Forbidden: not allowed on this type", "metadata.namespace"});
    return;
  }
  if (ns.empty()) return out.push_back(required("metadata.namespace"));
  add_all(out, "metadata.namespace", ns, schema::dns1123_label_errors(ns));
}

void check_labels(const json& labels, std::vector<StatusCause>& out) {
  if (!labels.is_object()) return;
  for (const auto& [key, value] : labels.items()) {
    add_all(out, "metadata.labels", key, schema::qualified_name_errors(key));
    if (value.is_string()) {
      const auto text = value.get<std::string>();
      add_all(out, "metadata.labels", text, schema::label_value_errors(text));
    }
  }
}

void check_annotations(const json& annotations, std::vector<StatusCause>& out) {
  if (!annotations.is_object()) return;
  std::size_t total = 0;
  for (const auto& [key, value] : annotations.items()) {
    std::string lower = key;
    std::transform(lower.begin(), lower.end(), lower.begin(),
                   [](unsigned char c) { return std::tolower(c); });
    add_all(out, "metadata.annotations", key, schema::qualified_name_errors(lower));
    total += key.size() + (value.is_string() ? value.get<std::string>().size() : 0);
  }
  if (total > schema::k_total_annotation_size_max) {
    out.push_back(
        {"FieldValueTooLong",
         "Too long: may not be more than " + std::to_string(schema::k_total_annotation_size_max) + " bytes",
         "metadata.annotations"});
  }
}

void check_owner_references(const json& refs, std::vector<StatusCause>& out) {
  if (!refs.is_array()) return;
  for (std::size_t i = 0; i < refs.size(); ++i) {
    const std::string at = "metadata.ownerReferences[" + std::to_string(i) + "]";
    const std::string api_version = text_of(refs[i], "apiVersion");
    if (api_version.empty()) {
      out.push_back(required(at + ".apiVersion", "must not be empty"));
    } else if (std::count(api_version.begin(), api_version.end(), '/') > 1) {
      out.push_back(invalid_value(at + ".apiVersion", api_version, "must be <group>/<version> or <version>"));
    }
    for (const char* field : {"kind", "name", "uid"}) {
      if (text_of(refs[i], field).empty()) out.push_back(required(at + "." + field, "must not be empty"));
    }
  }
}

void check_finalizers(const json& finalizers, std::vector<StatusCause>& out) {
  if (!finalizers.is_array()) return;
  bool orphan = false;
  bool foreground = false;
  for (const auto& f : finalizers) {
    if (!f.is_string()) continue;
    const auto name = f.get<std::string>();
    add_all(out, "metadata.finalizers", name, schema::qualified_name_errors(name));
    orphan = orphan || name == "orphan";
    foreground = foreground || name == "foregroundDeletion";
  }
  if (orphan && foreground) {
    out.push_back({"FieldValueInvalid",
                   "Invalid value: " + finalizers.dump() +
                       ": finalizer orphan and foregroundDeletion cannot be both set",
                   "metadata.finalizers"});
  }
}

/// ConfigMap and Secret keys (IsConfigMapKey), with apimachinery's messages.
std::vector<std::string> config_key_errors(const std::string& key) {
  std::vector<std::string> out;
  if (key.size() > schema::k_dns1123_subdomain_max) {
    out.push_back("must be no more than " + std::to_string(schema::k_dns1123_subdomain_max) + " characters");
  }
  const bool ok = !key.empty() && std::all_of(key.begin(), key.end(), [](unsigned char c) {
    return std::isalnum(c) != 0 || c == '-' || c == '_' || c == '.';
  });
  if (!ok) {
    out.emplace_back(
        "a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or "
        "'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')");
  }
  if (key == ".") {
    out.emplace_back("must not be '.'");
  } else if (key == "..") {
    out.emplace_back("must not be '..'");
  } else if (key.rfind("..", 0) == 0) {
    out.emplace_back("must not start with '..'");
  }
  return out;
}

/// The keys of one data bag; returns the bytes its values hold.
std::size_t check_data_keys(const json& data, const std::string& field, std::vector<StatusCause>& out) {
  std::size_t total = 0;
  if (!data.is_object()) return total;
  for (const auto& [key, value] : data.items()) {
    add_all(out, field + "[" + key + "]", key, config_key_errors(key));
    if (value.is_string()) total += value.get<std::string>().size();
  }
  return total;
}

std::vector<StatusCause> config_map_rules(const json& cm) {
  std::vector<StatusCause> out;
  std::size_t total = check_data_keys(util::member(cm, "data"), "data", out);
  const json& binary = util::member(cm, "binaryData");
  if (util::member(cm, "data").is_object() && binary.is_object()) {
    for (const auto& [key, value] : util::member(cm, "data").items()) {
      if (binary.contains(key))
        out.push_back(invalid_value("data[" + key + "]", key, "duplicate of key present in binaryData"));
    }
  }
  total += check_data_keys(binary, "binaryData", out);
  if (total > k_max_secret_size) {
    out.push_back({"FieldValueTooLong",
                   "Too long: may not be more than " + std::to_string(k_max_secret_size) + " bytes", ""});
  }
  return out;
}

std::vector<StatusCause> secret_rules(const json& secret) {
  std::vector<StatusCause> out;
  // Sizes of the decoded bytes: base64 holds 3 bytes in 4 characters.
  const std::size_t total = check_data_keys(util::member(secret, "data"), "data", out) / 4 * 3;
  if (total > k_max_secret_size) {
    out.push_back({"FieldValueTooLong",
                   "Too long: may not be more than " + std::to_string(k_max_secret_size) + " bytes", "data"});
  }
  return out;
}

}  // namespace

StatusCause invalid_value(const std::string& field, const std::string& value, const std::string& detail) {
  return {"FieldValueInvalid", "Invalid value: " + go_quote(value) + ": " + detail, field};
}

NameRule name_rule_of(const std::string& group, const std::string& kind) {
  if (group.empty() && kind == "Namespace") return NameRule::dns1123_label;
  if (group.empty() && kind == "Service") return NameRule::dns1035_label;
  return NameRule::dns1123_subdomain;
}

std::vector<StatusCause> validate_object_meta(const json& object, NameRule rule, bool namespaced) {
  std::vector<StatusCause> out;
  const json& meta = util::member(object, "metadata");
  check_names(meta, rule, out);
  check_namespace(meta, namespaced, out);
  check_labels(util::member(meta, "labels"), out);
  check_annotations(util::member(meta, "annotations"), out);
  check_owner_references(util::member(meta, "ownerReferences"), out);
  check_finalizers(util::member(meta, "finalizers"), out);
  return out;
}

std::vector<StatusCause> validate_kind_rules(const std::string& group, const std::string& kind,
                                             const json& object) {
  if (group.empty() && kind == "ConfigMap") return config_map_rules(object);
  if (group.empty() && kind == "Secret") return secret_rules(object);
  if (group == "batch" && kind == "CronJob") {
    const std::string name = text_of(util::member(object, "metadata"), "name");
    if (name.size() > k_max_cronjob_name) {
      return {invalid_value("metadata.name", name, "must be no more than 52 characters")};
    }
  }
  return {};
}

}  // namespace kpt::apiserver
