#include "plugin/validate/live_schema.hpp"

#include "schema/schema_cache.hpp"
#include "util/json_access.hpp"
#include "yaml/node_json.hpp"

#include <nlohmann/json.hpp>

namespace kpt::plugin {

namespace {

using nlohmann::json;

constexpr const char* k_openapi_path = "/openapi/v3/apis/kubeflow.org/v1";

bool is_pytorchjob_schema(const json& s) {
  const auto gvks = s.find("x-kubernetes-group-version-kind");
  if (gvks == s.end() || !gvks->is_array()) return false;
  for (const auto& g : *gvks) {
    if (util::string_at(g, "group") == "kubeflow.org" && util::string_at(g, "version") == "v1" &&
        util::string_at(g, "kind") == "PyTorchJob") {
      return true;
    }
  }
  return false;
}

}  // namespace

std::string live_crd_cache_key(const std::string& server, const json& crd) {
  const auto& meta = crd.value("metadata", json::object());
  return "kubectl-pytorch live CRD\nserver " + server + "\nuid " + util::string_at(meta, "uid") +
         "\nresourceVersion " + util::string_at(meta, "resourceVersion") + "\n";
}

Expected<LiveSchema> schema_from_live_crd(const json& crd, const std::string& server,
                                          const std::filesystem::path& cache_dir) {
  LiveSchema out;
  out.source = "the CRD 'pytorchjobs.kubeflow.org' in the cluster";
  const std::string key = live_crd_cache_key(server, crd);
  schema::SchemaCache cache(cache_dir);
  auto set = cache.load_or_compile(key, [&]() -> Expected<schema::SchemaSet> {
    yaml::Document doc;
    doc.file = out.source;
    doc.root = yaml::from_json(crd);
    auto compiled = schema::SchemaSet::from_crd(doc);
    if (!compiled) return compiled.error().context("compiling " + out.source);
    return compiled;
  });
  if (!set) return set.error();
  out.cache_hit = cache.last_was_hit();
  out.cache_entry = cache.entry_path(key);
  out.set = std::move(*set);
  out.set.set_origin(out.source);
  return out;
}

Expected<std::optional<LiveSchema>> schema_from_openapi(kube::ApiClient& api,
                                                        const std::filesystem::path& cache_dir) {
  auto text = api.get_raw(k_openapi_path);
  if (!text) {
    if (kube::is_not_found(text.error())) return std::optional<LiveSchema>{};
    return text.error().context("reading " + std::string(k_openapi_path));
  }
  LiveSchema out;
  out.source = "the cluster's " + std::string(k_openapi_path);
  schema::SchemaCache cache(cache_dir);
  bool found = true;
  auto set = cache.load_or_compile(*text, [&]() -> Expected<schema::SchemaSet> {
    const json doc = json::parse(*text, nullptr, false);
    if (doc.is_discarded()) return make_error(ErrorCode::parse, "reading " + out.source + ": not JSON");
    const auto schemas = doc.value("/components/schemas"_json_pointer, json::object());
    for (const auto& [name, s] : schemas.items()) {
      if (!is_pytorchjob_schema(s)) continue;
      json own = s;
      // The server publishes metadata as a $ref to ObjectMeta; the API server checks it, not the CRD.
      if (own.contains("properties") && own["properties"].contains("metadata")) {
        own["properties"]["metadata"] = {{"type", "object"}};
      }
      own.erase("x-kubernetes-group-version-kind");
      auto compiled =
          schema::SchemaSet::from_openapi(yaml::from_json(own), "kubeflow.org", "v1", "PyTorchJob");
      if (!compiled) return compiled.error().context("compiling " + out.source);
      return compiled;
    }
    found = false;
    return make_error(ErrorCode::not_found, "no PyTorchJob schema in " + out.source);
  });
  if (!set) {
    if (!found) return std::optional<LiveSchema>{};
    return set.error();
  }
  out.cache_hit = cache.last_was_hit();
  out.cache_entry = cache.entry_path(*text);
  out.set = std::move(*set);
  out.set.set_origin(out.source);
  return std::optional<LiveSchema>(std::move(out));
}

std::filesystem::path schema_cache_dir(const std::string& cache_dir_flag,
                                       const std::optional<std::string>& kubecachedir,
                                       const std::optional<std::string>& home) {
  std::filesystem::path base;
  if (!cache_dir_flag.empty()) {
    base = cache_dir_flag;
  } else if (kubecachedir && !kubecachedir->empty()) {
    base = *kubecachedir;
  } else if (home && !home->empty()) {
    base = std::filesystem::path(*home) / ".kube" / "cache";
  } else {
    base = std::filesystem::temp_directory_path() / "kube-cache";
  }
  return base / "kubectl-pytorch";
}

}  // namespace kpt::plugin
