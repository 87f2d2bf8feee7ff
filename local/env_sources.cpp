#include "local/env_sources.hpp"

#include "util/base64.hpp"
#include "util/json_access.hpp"

namespace kpt::local {

namespace {

using nlohmann::json;

bool optional_of(const json& ref) { return ref.is_object() && ref.value("optional", false) == true; }

/// A C identifier-like name as Kubernetes accepts for env (IsEnvVarName: [-._a-zA-Z][-._a-zA-Z0-9]*).
bool valid_env_name(const std::string& name) {
  if (name.empty()) return false;
  for (std::size_t i = 0; i < name.size(); ++i) {
    const char c = name[i];
    const bool letter = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == '-' || c == '.';
    if (!letter && !(i > 0 && c >= '0' && c <= '9')) return false;
  }
  return true;
}

/// The data of a source as plain strings (a Secret's values decoded from base64).
std::map<std::string, std::string> data_of(const json& object, bool secret) {
  std::map<std::string, std::string> out;
  const json data = object.value("data", json::object());  // items() must not outlive it
  for (const auto& [k, v] : data.items()) {
    if (!v.is_string()) continue;
    if (secret) {
      if (auto decoded = util::base64_decode(v.get<std::string>())) out[k] = *decoded;
    } else {
      out[k] = v.get<std::string>();
    }
  }
  return out;
}

void collect(const json& container, EnvReferences& refs) {
  for (const auto& e : container.value("env", json::array())) {
    const json from = e.is_object() ? e.value("valueFrom", json::object()) : json::object();
    if (from.contains("configMapKeyRef"))
      refs.config_maps.insert(util::string_at(from["configMapKeyRef"], "name"));
    if (from.contains("secretKeyRef")) refs.secrets.insert(util::string_at(from["secretKeyRef"], "name"));
  }
  for (const auto& e : container.value("envFrom", json::array())) {
    if (!e.is_object()) continue;
    if (e.contains("configMapRef")) refs.config_maps.insert(util::string_at(e["configMapRef"], "name"));
    if (e.contains("secretRef")) refs.secrets.insert(util::string_at(e["secretRef"], "name"));
  }
}

}  // namespace

EnvReferences env_references(const json& pod) {
  EnvReferences refs;
  const json spec = pod.value("spec", json::object());
  for (const char* list : {"initContainers", "containers"}) {
    for (const auto& c : spec.value(list, json::array())) collect(c, refs);
  }
  refs.config_maps.erase("");
  refs.secrets.erase("");
  return refs;
}

Expected<void> apply_env_from(const json& container, const EnvSources& sources,
                              const std::function<void(const std::string&, const std::string&)>& set_var) {
  for (const auto& e : container.value("envFrom", json::array())) {
    if (!e.is_object()) continue;
    const bool secret = e.contains("secretRef");
    const json& ref = secret ? e["secretRef"] : e.value("configMapRef", json::object());
    if (!secret && !e.contains("configMapRef")) continue;
    const std::string name = util::string_at(ref, "name");
    const auto& pool = secret ? sources.secrets : sources.config_maps;
    const auto it = pool.find(name);
    if (it == pool.end()) {
      if (optional_of(ref)) continue;
      return make_error(ErrorCode::not_found,
                        std::string(secret ? "secret" : "configmap") + " \"" + name + "\" not found");
    }
    const std::string prefix = util::string_at(e, "prefix");
    for (const auto& [key, value] : data_of(it->second, secret)) {
      if (valid_env_name(prefix + key)) set_var(prefix + key, value);
    }
  }
  return {};
}

Expected<std::optional<std::string>> resolve_key_ref(const json& value_from, const std::string& ns,
                                                     const EnvSources& sources) {
  const bool secret = value_from.contains("secretKeyRef");
  const json& ref = secret ? value_from["secretKeyRef"] : value_from["configMapKeyRef"];
  const std::string name = util::string_at(ref, "name");
  const std::string key = util::string_at(ref, "key");
  const auto& pool = secret ? sources.secrets : sources.config_maps;
  const auto it = pool.find(name);
  if (it == pool.end()) {
    if (optional_of(ref)) return std::optional<std::string>{};
    return make_error(ErrorCode::not_found,
                      std::string(secret ? "secret" : "configmap") + " \"" + name + "\" not found");
  }
  const auto data = data_of(it->second, secret);
  const auto value = data.find(key);
  if (value == data.end()) {
    if (optional_of(ref)) return std::optional<std::string>{};
    return make_error(ErrorCode::not_found, "couldn't find key " + key + " in " +
                                                (secret ? "Secret " : "ConfigMap ") + ns + "/" + name);
  }
  return std::optional<std::string>{value->second};
}

}  // namespace kpt::local
