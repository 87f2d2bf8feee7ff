#include "local/kubeconfig_merge.hpp"

#include "local/cluster_paths.hpp"
#include "util/base64.hpp"
#include "util/file_io.hpp"
#include "util/strings.hpp"
#include "yaml/node_json.hpp"
#include "yaml/yaml_writer.hpp"

#include <nlohmann/json.hpp>

#include <filesystem>

namespace kpt::local {

namespace {

using nlohmann::json;

/// Replaces the entry named `name` of the list `key` (or appends it).
Expected<void> upsert(json& config, const char* key, const char* field, json entry) {
  json& list = config[key];
  if (list.is_null()) list = json::array();
  if (!list.is_array()) return make_error(ErrorCode::config, std::string("'") + key + "' is not a list");
  const json named = {{"name", k_local_context}, {field, std::move(entry)}};
  for (auto& item : list) {
    if (item.is_object() && item.value("name", json()) == k_local_context) {
      item = named;
      return {};
    }
  }
  list.push_back(named);
  return {};
}

}  // namespace

Expected<json> merged_kubeconfig(const json& config, const std::string& server_url, const std::string& ca_pem,
                                 const std::string& token) {
  json out = config.is_null() ? json::object() : config;
  if (!out.is_object()) return make_error(ErrorCode::config, "it is not a kubeconfig (not a mapping)");
  if (!out.contains("apiVersion")) out["apiVersion"] = "v1";
  if (!out.contains("kind")) out["kind"] = "Config";
  const json cluster = {{"server", server_url}, {"certificate-authority-data", util::base64_encode(ca_pem)}};
  if (auto ok = upsert(out, "clusters", "cluster", cluster); !ok) return ok.error();
  if (auto ok = upsert(out, "users", "user", {{"token", token}}); !ok) return ok.error();
  const json context = {{"cluster", k_local_context}, {"user", k_local_context}, {"namespace", "default"}};
  if (auto ok = upsert(out, "contexts", "context", context); !ok) return ok.error();
  out["current-context"] = k_local_context;
  return out;
}

Expected<void> merge_into_kubeconfig(const std::string& path, const std::string& server_url,
                                     const std::string& ca_pem, const std::string& token) {
  json config;
  std::error_code ec;
  if (std::filesystem::exists(path, ec)) {
    auto text = util::read_file(path);
    if (!text) return text.error().context("reading '" + path + "'");
    if (!util::trim(*text).empty()) {
      auto parsed = yaml::yaml_to_json(path, *text);
      if (!parsed) return parsed.error().context("reading '" + path + "'");
      config = std::move(*parsed);
    }
  }
  auto merged = merged_kubeconfig(config, server_url, ca_pem, token);
  if (!merged) return merged.error().context("merging into '" + path + "'");
  const auto parent = std::filesystem::path(path).parent_path();
  if (!parent.empty()) std::filesystem::create_directories(parent, ec);
  return write_private(path, yaml::to_yaml(*merged));
}

}  // namespace kpt::local
