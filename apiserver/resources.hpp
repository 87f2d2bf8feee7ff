#pragma once

#include "apiserver/validator.hpp"

#include <nlohmann/json.hpp>

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <string>
#include <vector>

namespace kpt::apiserver {

/// An additionalPrinterColumn (or a built-in column) of `kubectl get`.
struct PrinterColumn {
  std::string name;
  std::string type;       ///< string, integer, number, boolean, date
  std::string json_path;  ///< ".status.phase"; empty: computed by the built-in printer
  std::string description;
  int priority = 0;
};

/// One served REST resource: a built-in one or one a CRD defines.
struct ResourceInfo {
  std::string group;
  std::string version;
  std::string plural;
  std::string singular;
  std::string kind;
  std::string list_kind;
  bool namespaced = true;
  std::vector<std::string> short_names;
  std::vector<std::string> categories;
  std::vector<std::string> verbs;
  bool status_subresource = false;
  bool scale_subresource = false;
  std::string scale_spec_path;    ///< ".spec.replicas"
  std::string scale_status_path;  ///< ".status.replicas"
  bool custom = false;            ///< defined by a CRD
  bool stored_only = false;       ///< no behaviour beyond storage (deployments, webhooks)
  std::vector<PrinterColumn> columns;
  nlohmann::json schema;  ///< openAPIV3Schema (CRDs) or a minimal built-in one
  std::shared_ptr<const ObjectValidator> validator;

  [[nodiscard]] std::string group_version() const { return group.empty() ? version : group + "/" + version; }
  /// Key of the objects in the Store: shared by every version of a resource.
  [[nodiscard]] std::string storage_key() const { return group + "/" + plural; }
};

using ResourcePtr = std::shared_ptr<const ResourceInfo>;

/// The resources the server serves; CRD writes add and remove entries at run time.
class ResourceRegistry {
 public:
  ResourceRegistry();

  [[nodiscard]] ResourcePtr find(const std::string& group, const std::string& version,
                                 const std::string& plural) const;
  /// Any served version of group/plural (GC, CRD clean-up).
  [[nodiscard]] ResourcePtr find_any_version(const std::string& storage_key) const;
  [[nodiscard]] std::vector<ResourcePtr> all() const;
  /// Groups in discovery order (core "" first), each with its versions, preferred first.
  [[nodiscard]] std::vector<std::pair<std::string, std::vector<std::string>>> groups() const;

  /// Registers every served version of a CRD object; replaces what the CRD served before.
  void apply_crd(const nlohmann::json& crd);
  /// Unregisters the resources of a CRD (by its metadata.name "plural.group").
  void remove_crd(const std::string& crd_name);
  /// Changes whenever what the registry serves may have changed: what is built from it (the
  /// /openapi/v2 document) is rebuilt when this differs, never per request.
  [[nodiscard]] std::uint64_t generation() const { return m_generation.load(); }

 private:
  void add(ResourceInfo info);

  mutable std::shared_mutex m_mutex;
  std::vector<ResourcePtr> m_resources;
  std::atomic<std::uint64_t> m_generation{0};
};

/// The built-in resources: namespaces, pods, services, events, configmaps, secrets,
/// serviceaccounts, leases, deployments, jobs, cronjobs, validatingwebhookconfigurations,
/// customresourcedefinitions, selfsubjectaccessreviews.
std::vector<ResourceInfo> builtin_resources();

}  // namespace kpt::apiserver
