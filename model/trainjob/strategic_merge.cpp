#include "model/trainjob/strategic_merge.hpp"

#include <map>
#include <string>

namespace kpt::model::trainjob {

namespace {

using nlohmann::json;

/// A struct type: for each field that needs more than "merge maps, replace lists", its list merge
/// key (empty: no key) and the type of its value or elements (nullptr: untyped).
struct TypeNode {
  struct Field {
    std::string merge_key;
    const TypeNode* child = nullptr;
  };
  std::map<std::string, Field> fields;
};

struct Schema {
  TypeNode container, pod_spec, pod_template, job_spec, job_template, replicated_job, jobset_spec, resources;

  Schema() {
    container.fields = {{"env", {"name"}},
                        {"ports", {"containerPort"}},
                        {"volumeMounts", {"mountPath"}},
                        {"volumeDevices", {"devicePath"}},
                        {"resources", {"", &resources}}};
    resources.fields = {{"claims", {"name"}}};
    pod_spec.fields = {{"containers", {"name", &container}},
                       {"initContainers", {"name", &container}},
                       {"ephemeralContainers", {"name", &container}},
                       {"volumes", {"name"}},
                       {"imagePullSecrets", {"name"}},
                       {"schedulingGates", {"name"}},
                       {"resourceClaims", {"name"}},
                       {"hostAliases", {"ip"}},
                       {"topologySpreadConstraints", {"topologyKey"}}};
    pod_template.fields = {{"spec", {"", &pod_spec}}};
    job_spec.fields = {{"template", {"", &pod_template}}};
    job_template.fields = {{"spec", {"", &job_spec}}};
    replicated_job.fields = {{"template", {"", &job_template}}, {"dependsOn", {"name"}}};
    jobset_spec.fields = {{"replicatedJobs", {"name", &replicated_job}}};
  }

  [[nodiscard]] const TypeNode* root(PatchType type) const {
    switch (type) {
      case PatchType::jobset_spec:
        return &jobset_spec;
      case PatchType::job_template_spec:
        return &job_template;
      case PatchType::pod_template_spec:
        return &pod_template;
      case PatchType::pod_spec:
        return &pod_spec;
      case PatchType::resource_requirements:
        return &resources;
    }
    return nullptr;
  }
};

const Schema& schema() {
  static const Schema k_schema;
  return k_schema;
}

/// What json.Marshal of the typed patch keeps: no `$` keys, no empty lists (`omitempty`). Empty
/// objects stay: a pointer to an empty struct (`emptyDir: {}`) is written, and merging an empty map
/// changes nothing.
json normalize_patch(const json& patch) {
  if (patch.is_object()) {
    json out = json::object();
    for (const auto& [key, value] : patch.items()) {
      if (!key.empty() && key[0] == '$') continue;
      json v = normalize_patch(value);
      if (v.is_array() && v.empty()) continue;
      out[key] = std::move(v);
    }
    return out;
  }
  if (patch.is_array()) {
    json out = json::array();
    for (const auto& item : patch) out.push_back(normalize_patch(item));
    return out;
  }
  return patch;
}

json merge_value(const json& original, const json& patch, const TypeNode* type);

json merge_keyed_list(const json& original, const json& patch, const std::string& key, const TypeNode* type) {
  json out = original.is_array() ? original : json::array();
  for (const auto& item : patch) {
    bool merged = false;
    if (item.is_object() && item.contains(key)) {
      for (auto& existing : out) {
        if (existing.is_object() && existing.contains(key) && existing[key] == item[key]) {
          existing = merge_value(existing, item, type);
          merged = true;
          break;
        }
      }
    }
    if (!merged) out.push_back(merge_value(json::object(), item, type));
  }
  return out;
}

json merge_object(const json& original, const json& patch, const TypeNode* type) {
  json out = original.is_object() ? original : json::object();
  for (const auto& [key, value] : patch.items()) {
    if (value.is_null()) {
      out.erase(key);
      continue;
    }
    const TypeNode::Field* field = nullptr;
    if (type != nullptr) {
      const auto it = type->fields.find(key);
      if (it != type->fields.end()) field = &it->second;
    }
    const TypeNode* child = field != nullptr ? field->child : nullptr;
    if (value.is_array() && field != nullptr && !field->merge_key.empty()) {
      out[key] = merge_keyed_list(out.contains(key) ? out[key] : json(), value, field->merge_key, child);
    } else if (value.is_object()) {
      out[key] = merge_value(out.contains(key) ? out[key] : json(), value, child);
    } else {
      out[key] = value;
    }
  }
  return out;
}

json merge_value(const json& original, const json& patch, const TypeNode* type) {
  if (patch.is_object()) return merge_object(original, patch, type);
  return patch;
}

}  // namespace

nlohmann::json strategic_merge(const nlohmann::json& original, const nlohmann::json& patch, PatchType type) {
  // The Go code marshals a struct, so the patch is always an object; anything else changes nothing.
  if (!patch.is_object()) return original;
  return merge_value(original, normalize_patch(patch), schema().root(type));
}

}  // namespace kpt::model::trainjob
