#include "apiserver/resources.hpp"

#include "model/k8s/object_meta.hpp"
#include "util/json_access.hpp"
#include "util/strings.hpp"

#include <algorithm>
#include <tuple>

namespace kpt::apiserver {

namespace {

const std::vector<std::string> k_all_verbs = {"create", "delete", "deletecollection", "get",
                                              "list",   "patch",  "update",           "watch"};

ResourceInfo builtin(std::string group, std::string version, std::string plural, std::string singular,
                     std::string kind, bool namespaced, std::vector<std::string> short_names) {
  ResourceInfo r;
  r.group = std::move(group);
  r.version = std::move(version);
  r.plural = std::move(plural);
  r.singular = std::move(singular);
  r.kind = std::move(kind);
  r.list_kind = r.kind + "List";
  r.namespaced = namespaced;
  r.short_names = std::move(short_names);
  r.verbs = k_all_verbs;
  r.schema = {{"type", "object"},
              {"properties",
               {{"apiVersion", {{"type", "string"}}},
                {"kind", {{"type", "string"}}},
                {"metadata", {{"type", "object"}}},
                {"spec", {{"type", "object"}, {"x-kubernetes-preserve-unknown-fields", true}}},
                {"status", {{"type", "object"}, {"x-kubernetes-preserve-unknown-fields", true}}}}}};
  return r;
}

std::string json_path_of(const nlohmann::json& col) { return util::string_at(col, "jsonPath"); }

}  // namespace

std::vector<ResourceInfo> builtin_resources() {
  std::vector<ResourceInfo> out;
  auto ns = builtin("", "v1", "namespaces", "namespace", "Namespace", false, {"ns"});
  ns.status_subresource = true;
  out.push_back(ns);
  auto pods = builtin("", "v1", "pods", "pod", "Pod", true, {"po"});
  pods.status_subresource = true;
  pods.categories = {"all"};
  out.push_back(pods);
  auto svc = builtin("", "v1", "services", "service", "Service", true, {"svc"});
  svc.status_subresource = true;
  svc.categories = {"all"};
  out.push_back(svc);
  out.push_back(builtin("", "v1", "events", "event", "Event", true, {"ev"}));
  out.push_back(builtin("", "v1", "configmaps", "configmap", "ConfigMap", true, {"cm"}));
  out.push_back(builtin("", "v1", "secrets", "secret", "Secret", true, {}));
  out.push_back(builtin("", "v1", "serviceaccounts", "serviceaccount", "ServiceAccount", true, {"sa"}));
  auto jobs = builtin("batch", "v1", "jobs", "job", "Job", true, {});
  jobs.status_subresource = true;
  jobs.stored_only = true;
  jobs.categories = {"all"};
  out.push_back(jobs);
  auto cronjobs = builtin("batch", "v1", "cronjobs", "cronjob", "CronJob", true, {"cj"});
  cronjobs.status_subresource = true;
  cronjobs.stored_only = true;
  cronjobs.categories = {"all"};
  out.push_back(cronjobs);
  out.push_back(builtin("coordination.k8s.io", "v1", "leases", "lease", "Lease", true, {}));
  auto deploy = builtin("apps", "v1", "deployments", "deployment", "Deployment", true, {"deploy"});
  deploy.status_subresource = true;
  deploy.stored_only = true;
  deploy.categories = {"all"};
  out.push_back(deploy);
  auto hooks = builtin("admissionregistration.k8s.io", "v1", "validatingwebhookconfigurations",
                       "validatingwebhookconfiguration", "ValidatingWebhookConfiguration", false, {});
  hooks.stored_only = true;
  out.push_back(hooks);
  auto crds = builtin("apiextensions.k8s.io", "v1", "customresourcedefinitions", "customresourcedefinition",
                      "CustomResourceDefinition", false, {"crd", "crds"});
  crds.status_subresource = true;
  out.push_back(crds);
  // Stored so that `kubectl apply` of `controller manifests` passes; nothing enforces them.
  for (const auto& [plural, kind, namespaced] :
       {std::tuple{"clusterroles", "ClusterRole", false},
        std::tuple{"clusterrolebindings", "ClusterRoleBinding", false}, std::tuple{"roles", "Role", true},
        std::tuple{"rolebindings", "RoleBinding", true}}) {
    auto rbac =
        builtin("rbac.authorization.k8s.io", "v1", plural, util::to_lower(kind), kind, namespaced, {});
    rbac.stored_only = true;
    out.push_back(rbac);
  }
  auto pdb = builtin("policy", "v1", "poddisruptionbudgets", "poddisruptionbudget", "PodDisruptionBudget",
                     true, {"pdb"});
  pdb.status_subresource = true;
  pdb.stored_only = true;
  out.push_back(pdb);
  auto ssar = builtin("authorization.k8s.io", "v1", "selfsubjectaccessreviews", "selfsubjectaccessreview",
                      "SelfSubjectAccessReview", false, {});
  ssar.verbs = {"create"};
  out.push_back(ssar);
  // The local node's projected service account tokens are checked with it (ServiceAccountTokens).
  auto token_review =
      builtin("authentication.k8s.io", "v1", "tokenreviews", "tokenreview", "TokenReview", false, {});
  token_review.verbs = {"create"};
  out.push_back(token_review);
  for (auto& r : out) r.validator = make_builtin_validator(r.group, r.version, r.kind, r.namespaced);
  return out;
}

ResourceRegistry::ResourceRegistry() {
  for (auto& r : builtin_resources()) add(std::move(r));
}

void ResourceRegistry::add(ResourceInfo info) {
  auto ptr = std::make_shared<const ResourceInfo>(std::move(info));
  std::unique_lock lock(m_mutex);
  m_resources.erase(std::remove_if(m_resources.begin(), m_resources.end(),
                                   [&](const ResourcePtr& r) {
                                     return r->group == ptr->group && r->version == ptr->version &&
                                            r->plural == ptr->plural;
                                   }),
                    m_resources.end());
  m_resources.push_back(std::move(ptr));
  ++m_generation;
}

ResourcePtr ResourceRegistry::find(const std::string& group, const std::string& version,
                                   const std::string& plural) const {
  std::shared_lock lock(m_mutex);
  for (const auto& r : m_resources) {
    if (r->group == group && r->version == version && r->plural == plural) return r;
  }
  return nullptr;
}

ResourcePtr ResourceRegistry::find_any_version(const std::string& storage_key) const {
  std::shared_lock lock(m_mutex);
  for (const auto& r : m_resources) {
    if (r->storage_key() == storage_key) return r;
  }
  return nullptr;
}

std::vector<ResourcePtr> ResourceRegistry::all() const {
  std::shared_lock lock(m_mutex);
  return m_resources;
}

std::vector<std::pair<std::string, std::vector<std::string>>> ResourceRegistry::groups() const {
  std::shared_lock lock(m_mutex);
  std::vector<std::pair<std::string, std::vector<std::string>>> out;
  for (const auto& r : m_resources) {
    auto it = std::find_if(out.begin(), out.end(), [&](const auto& g) { return g.first == r->group; });
    if (it == out.end()) {
      out.push_back({r->group, {}});
      it = out.end() - 1;
    }
    if (std::find(it->second.begin(), it->second.end(), r->version) == it->second.end()) {
      it->second.push_back(r->version);
    }
  }
  return out;
}

void ResourceRegistry::apply_crd(const nlohmann::json& crd) {
  const auto& spec = crd.value("spec", nlohmann::json::object());
  const auto& names = spec.value("names", nlohmann::json::object());
  remove_crd(model::k8s::meta_string(crd, "name"));
  for (const auto& v : spec.value("versions", nlohmann::json::array())) {
    if (!v.value("served", true)) continue;
    ResourceInfo r;
    r.group = util::string_at(spec, "group");
    r.version = util::string_at(v, "name");
    r.plural = util::string_at(names, "plural");
    r.singular = util::string_at(names, "singular");
    if (r.singular.empty()) {
      r.singular = util::string_at(names, "kind");
      std::transform(r.singular.begin(), r.singular.end(), r.singular.begin(), ::tolower);
    }
    r.kind = util::string_at(names, "kind");
    r.list_kind = names.value("listKind", r.kind + "List");
    r.namespaced = spec.value("scope", "Namespaced") == "Namespaced";
    r.short_names = names.value("shortNames", std::vector<std::string>{});
    r.categories = names.value("categories", std::vector<std::string>{});
    r.verbs = k_all_verbs;
    r.custom = true;
    const auto sub = v.value("subresources", nlohmann::json::object());
    r.status_subresource = sub.contains("status");
    if (sub.contains("scale")) {
      r.scale_subresource = true;
      r.scale_spec_path = util::string_at(util::member(sub, "scale"), "specReplicasPath");
      r.scale_status_path = util::string_at(util::member(sub, "scale"), "statusReplicasPath");
    }
    for (const auto& c : v.value("additionalPrinterColumns", nlohmann::json::array())) {
      r.columns.push_back({util::string_at(c, "name"), c.value("type", "string"), json_path_of(c),
                           util::string_at(c, "description"), c.value("priority", 0)});
    }
    r.schema = v.contains("schema") ? v["schema"].value("openAPIV3Schema", nlohmann::json::object())
                                    : nlohmann::json::object();
    r.validator = make_default_validator(r.schema, r.group, r.version, r.kind);
    add(std::move(r));
  }
}

void ResourceRegistry::remove_crd(const std::string& crd_name) {
  std::unique_lock lock(m_mutex);
  m_resources.erase(std::remove_if(m_resources.begin(), m_resources.end(),
                                   [&](const ResourcePtr& r) {
                                     return r->custom && r->plural + "." + r->group == crd_name;
                                   }),
                    m_resources.end());
  ++m_generation;
}

}  // namespace kpt::apiserver
