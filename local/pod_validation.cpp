#include "local/pod_validation.hpp"

#include "apiserver/go_decode_error.hpp"
#include "schema/k8s_names.hpp"

#include <nlohmann/json.hpp>

#include <set>

namespace kpt::local {

namespace {

using nlohmann::json;

std::optional<std::string> label_error(const std::string& field, const json& value) {
  const std::string text = value.is_string() ? value.get<std::string>() : value.dump();
  const auto errors = schema::dns1123_label_errors(text);
  if (errors.empty() && value.is_string()) return std::nullopt;
  return field + ": Invalid value: " + apiserver::go_quote(text) + ": " +
         (errors.empty() ? std::string("must be a string") : errors.front());
}

}  // namespace

bool is_safe_name(std::string_view name) { return schema::dns1123_label_errors(name).empty(); }

std::optional<std::string> invalid_pod_field(const nlohmann::json& pod) {
  if (!pod.is_object() || !pod.contains("spec") || !pod["spec"].is_object()) return std::nullopt;
  const json& spec = pod["spec"];
  std::set<std::string> seen;
  for (const char* list : {"initContainers", "containers"}) {
    const auto it = spec.find(list);
    if (it == spec.end() || !it->is_array()) continue;
    for (std::size_t i = 0; i < it->size(); ++i) {
      const json& c = (*it)[i];
      const std::string field = std::string("spec.") + list + "[" + std::to_string(i) + "].name";
      const json name = c.is_object() && c.contains("name") ? c["name"] : json("");
      if (auto error = label_error(field, name)) return error;
      if (!seen.insert(name.get<std::string>()).second)
        return field + ": Duplicate value: " + apiserver::go_quote(name.get<std::string>());
    }
  }
  for (const char* field : {"hostname", "subdomain"}) {
    const auto it = spec.find(field);
    if (it == spec.end() || (it->is_string() && it->get<std::string>().empty())) continue;
    if (auto error = label_error(std::string("spec.") + field, *it)) return error;
  }
  return std::nullopt;
}

}  // namespace kpt::local
