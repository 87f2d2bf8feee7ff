#include "apiserver/discovery.hpp"

#include <algorithm>
#include <functional>
#include <sstream>

namespace kpt::apiserver {

namespace {

using json = nlohmann::json;

json group_entry(const std::string& group, const std::vector<std::string>& versions) {
  json g = {{"name", group}, {"versions", json::array()}};
  for (const auto& v : versions) g["versions"].push_back({{"groupVersion", group + "/" + v}, {"version", v}});
  g["preferredVersion"] = g["versions"].front();
  return g;
}

json resource_entry(const ResourceInfo& r) {
  json e = {{"name", r.plural},
            {"singularName", r.singular},
            {"namespaced", r.namespaced},
            {"kind", r.kind},
            {"verbs", r.verbs}};
  if (!r.short_names.empty()) e["shortNames"] = r.short_names;
  if (!r.categories.empty()) e["categories"] = r.categories;
  return e;
}

json sub_entry(const ResourceInfo& r, const std::string& sub, const std::string& kind, json verbs,
               const std::string& group = {}, const std::string& version = {}) {
  json e = {{"name", r.plural + "/" + sub},
            {"singularName", ""},
            {"namespaced", r.namespaced},
            {"kind", kind},
            {"verbs", std::move(verbs)}};
  if (!group.empty()) {
    e["group"] = group;
    e["version"] = version;
  }
  return e;
}

json gvk(const ResourceInfo& r) { return {{"group", r.group}, {"version", r.version}, {"kind", r.kind}}; }

json object_path_item(const ResourceInfo& r) {
  json params = json::array();
  for (const char* p : {"dryRun", "fieldManager", "fieldValidation", "force"}) {
    params.push_back({{"name", p}, {"in", "query"}, {"schema", {{"type", "string"}}}, {"uniqueItems", true}});
  }
  const std::string ref = "#/components/schemas/" + openapi_schema_name(r);
  json body = {{"content", {{"application/json", {{"schema", {{"$ref", ref}}}}}}}};
  json ok = {
      {"200", {{"description", "OK"}, {"content", {{"application/json", {{"schema", {{"$ref", ref}}}}}}}}}};
  json op = {{"x-kubernetes-group-version-kind", gvk(r)}, {"parameters", params}, {"responses", ok}};
  json item;
  for (const char* verb : {"get", "put", "patch", "delete"}) {
    item[verb] = op;
    item[verb]["operationId"] = std::string(verb) + r.kind;
    item[verb]["x-kubernetes-action"] = verb;
  }
  item["put"]["requestBody"] = body;
  item["patch"]["requestBody"] = body;
  return item;
}

std::string hash_of(const json& doc) {
  std::ostringstream out;
  out << std::hex << std::uppercase << std::hash<std::string>{}(doc.dump());
  return out.str();
}

}  // namespace

std::string openapi_schema_name(const ResourceInfo& r) {
  // Reverse-DNS like the real server: io.k8s.api.core.v1.Pod, org.kubeflow.v1.PyTorchJob.
  std::string g = r.group.empty() ? "core" : r.group;
  std::vector<std::string> parts;
  std::stringstream ss(g);
  for (std::string p; std::getline(ss, p, '.');) parts.push_back(p);
  std::reverse(parts.begin(), parts.end());
  std::string out;
  for (const auto& p : parts) out += p + ".";
  return out + r.version + "." + r.kind;
}

json version_info(const std::string& build) {
  const std::string git = "v1.32.0-kubectl-pytorch" + (build.empty() ? std::string() : "+" + build);
  return {{"major", "1"},          {"minor", "32"},           {"gitVersion", git},
          {"gitCommit", "local"},  {"gitTreeState", "clean"}, {"buildDate", "2026-01-01T00:00:00Z"},
          {"goVersion", "go1.23"}, {"compiler", "gc"},        {"platform", "linux/amd64"}};
}

json core_api_versions(const std::string& server_address) {
  return {{"kind", "APIVersions"},
          {"versions", {"v1"}},
          {"serverAddressByClientCIDRs", {{{"clientCIDR", "0.0.0.0/0"}, {"serverAddress", server_address}}}}};
}

json api_group_list(const ResourceRegistry& registry) {
  json list = {{"kind", "APIGroupList"}, {"apiVersion", "v1"}, {"groups", json::array()}};
  for (const auto& [group, versions] : registry.groups()) {
    if (!group.empty()) list["groups"].push_back(group_entry(group, versions));
  }
  return list;
}

std::optional<json> api_group(const ResourceRegistry& registry, const std::string& group) {
  for (const auto& [g, versions] : registry.groups()) {
    if (g == group && !g.empty()) {
      json e = group_entry(g, versions);
      e["kind"] = "APIGroup";
      e["apiVersion"] = "v1";
      return e;
    }
  }
  return std::nullopt;
}

std::optional<json> api_resource_list(const ResourceRegistry& registry, const std::string& group,
                                      const std::string& version) {
  json resources = json::array();
  for (const auto& r : registry.all()) {
    if (r->group != group || r->version != version) continue;
    resources.push_back(resource_entry(*r));
    if (r->status_subresource)
      resources.push_back(sub_entry(*r, "status", r->kind, {"get", "patch", "update"}));
    if (r->scale_subresource) {
      resources.push_back(sub_entry(*r, "scale", "Scale", {"get", "patch", "update"}, "autoscaling", "v1"));
    }
    if (r->kind == "Pod" && r->group.empty()) {
      resources.push_back(sub_entry(*r, "log", "Pod", {"get"}));
      resources.push_back(sub_entry(*r, "binding", "Binding", {"create"}));
      resources.push_back(sub_entry(*r, "exec", "PodExecOptions", {"create", "get"}));
    }
  }
  if (resources.empty()) return std::nullopt;
  return json{{"kind", "APIResourceList"},
              {"apiVersion", "v1"},
              {"groupVersion", group.empty() ? version : group + "/" + version},
              {"resources", resources}};
}

std::optional<json> openapi_v3_group_version(const ResourceRegistry& registry, const std::string& group,
                                             const std::string& version) {
  json schemas = json::object();
  json paths = json::object();
  for (const auto& r : registry.all()) {
    if (r->group != group || r->version != version) continue;
    json s = r->schema.is_object() && !r->schema.empty() ? r->schema : json{{"type", "object"}};
    s["x-kubernetes-group-version-kind"] = json::array({gvk(*r)});
    schemas[openapi_schema_name(*r)] = s;
    const std::string base = (group.empty() ? "/api/" + version : "/apis/" + group + "/" + version) +
                             (r->namespaced ? "/namespaces/{namespace}/" : "/") + r->plural + "/{name}";
    paths[base] = object_path_item(*r);
  }
  if (schemas.empty()) return std::nullopt;
  return json{{"openapi", "3.0.0"},
              {"info", {{"title", "Kubernetes"}, {"version", "v1.32.0"}}},
              {"paths", paths},
              {"components", {{"schemas", schemas}}}};
}

json openapi_v3_root(const ResourceRegistry& registry) {
  json paths = json::object();
  for (const auto& [group, versions] : registry.groups()) {
    for (const auto& v : versions) {
      const auto doc = openapi_v3_group_version(registry, group, v);
      if (!doc) continue;
      const std::string key = group.empty() ? "api/" + v : "apis/" + group + "/" + v;
      paths[key] = {{"serverRelativeURL", "/openapi/v3/" + key + "?hash=" + hash_of(*doc)}};
    }
  }
  return {{"paths", paths}};
}

}  // namespace kpt::apiserver
