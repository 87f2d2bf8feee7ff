#include "apiserver/builtin_kinds.hpp"

#include "model/k8s/object_meta.hpp"
#include "util/base64.hpp"

#include <nlohmann/json.hpp>

namespace kpt::apiserver {

namespace {

using json = nlohmann::json;

bool is_core(const ResourceInfo& res, const char* kind) { return res.group.empty() && res.kind == kind; }

/// Go decodes Secret.data as []byte from standard base64 with padding, and nothing else.
bool strict_base64(const std::string& text) {
  if (text.size() % 4 != 0) return false;
  for (const char c : text) {
    const bool ok = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '+' ||
                    c == '/' || c == '=';
    if (!ok) return false;
  }
  return util::base64_decode(text).has_value();
}

std::optional<Error> prepare_secret(json& secret) {
  if (secret.contains("data") && secret["data"].is_object()) {
    for (const auto& [key, value] : secret["data"].items()) {
      if (value.is_string() && !strict_base64(value.get<std::string>())) {
        return bad_request(
            "Secret in version \"v1\" cannot be handled as a Secret: illegal base64 data in key '" + key +
            "'");
      }
    }
  }
  if (secret.contains("stringData")) {
    const json string_data = secret["stringData"];
    secret.erase("stringData");
    if (string_data.is_object()) {
      if (!secret.contains("data") || !secret["data"].is_object()) secret["data"] = json::object();
      for (const auto& [key, value] : string_data.items()) {
        if (value.is_string()) secret["data"][key] = util::base64_encode(value.get<std::string>());
      }
    }
  }
  if (!secret.contains("type") || secret["type"] == "") secret["type"] = "Opaque";
  return std::nullopt;
}

void default_job(json& job) {
  if (!job.contains("spec") || !job["spec"].is_object()) return;
  json& spec = job["spec"];
  const auto set_default = [&](const char* key, json value) {
    if (!spec.contains(key) || spec[key].is_null()) spec[key] = std::move(value);
  };
  set_default("parallelism", 1);
  set_default("completions", 1);
  set_default("backoffLimit", 6);
  set_default("completionMode", "NonIndexed");
  set_default("suspend", false);
  set_default("podReplacementPolicy", "TerminatingOrFailed");
  const std::string uid = model::k8s::meta_string(job, "uid");
  const std::string name = model::k8s::meta_string(job, "name");
  if (uid.empty() || spec.value("manualSelector", false)) return;
  if (!spec.contains("selector"))
    spec["selector"] = {{"matchLabels", {{"batch.kubernetes.io/controller-uid", uid}}}};
  if (!spec.contains("template") || !spec["template"].is_object()) return;
  json& labels = spec["template"]["metadata"]["labels"];
  if (!labels.is_object()) labels = json::object();
  for (const char* prefix : {"batch.kubernetes.io/", ""}) {
    labels[std::string(prefix) + "controller-uid"] = uid;
    labels[std::string(prefix) + "job-name"] = name;
  }
}

}  // namespace

std::optional<Error> prepare_builtin(const ResourceInfo& res, json& object) {
  if (!object.is_object()) return std::nullopt;
  if (is_core(res, "Secret")) return prepare_secret(object);
  if (res.group == "batch" && res.kind == "Job") default_job(object);
  return std::nullopt;
}

}  // namespace kpt::apiserver
