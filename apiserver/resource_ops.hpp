#pragma once

#include "apiserver/patch.hpp"
#include "apiserver/resources.hpp"
#include "apiserver/selectors.hpp"
#include "apiserver/status.hpp"
#include "apiserver/store.hpp"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace kpt::apiserver {

struct WriteFlags {
  bool dry_run = false;                   ///< dryRun=All
  std::string field_validation = "Warn";  ///< Ignore, Warn, Strict
  std::string subresource;                ///< "", "status" or "scale"
  std::string field_manager;              ///< required for apply patches
};

/// A write's result: the stored object and the warnings to send as `Warning: 299` headers.
struct WriteResult {
  nlohmann::json object;
  std::vector<std::string> warnings;
  bool created = false;
};

struct ListQuery {
  LabelSelector labels;
  FieldSelector fields;
  std::int64_t limit = 0;
  std::string continue_token;
};

/// The API semantics on top of the Store: defaulting of metadata, optimistic concurrency,
/// status and scale subresources, validation of custom resources, CRD registration,
/// namespaces, finalizers and owner-reference garbage collection.
class ResourceOps {
 public:
  ResourceOps(Store& store, ResourceRegistry& registry) : m_store(store), m_registry(registry) {}

  ApiResult<nlohmann::json> get(const ResourceInfo& res, const std::string& ns,
                                const std::string& name) const;
  ApiResult<nlohmann::json> list(const ResourceInfo& res, const std::string& ns, const ListQuery& q) const;
  ApiResult<WriteResult> create(const ResourceInfo& res, const std::string& ns, nlohmann::json body,
                                const WriteFlags& flags);
  ApiResult<WriteResult> update(const ResourceInfo& res, const std::string& ns, const std::string& name,
                                nlohmann::json body, const WriteFlags& flags);
  ApiResult<WriteResult> patch(const ResourceInfo& res, const std::string& ns, const std::string& name,
                               PatchKind kind, const std::string& body, const WriteFlags& flags);
  /// Deletes with `propagation` Background (default), Foreground or Orphan. Objects with
  /// finalizers get a deletionTimestamp and go once their finalizers are removed.
  ApiResult<nlohmann::json> remove(const ResourceInfo& res, const std::string& ns, const std::string& name,
                                   const std::string& propagation, bool dry_run);

  /// The scale subresource (autoscaling/v1 Scale) of an object.
  ApiResult<nlohmann::json> get_scale(const ResourceInfo& res, const std::string& ns,
                                      const std::string& name) const;

 private:
  ApiResult<nlohmann::json> prepare_create(const ResourceInfo& res, const std::string& ns,
                                           nlohmann::json body, std::vector<std::string>& warnings,
                                           const WriteFlags& flags) const;
  ApiResult<nlohmann::json> merge_update(const ResourceInfo& res, const nlohmann::json& current,
                                         nlohmann::json body, std::vector<std::string>& warnings,
                                         const WriteFlags& flags) const;
  std::optional<ApiError> validate(const ResourceInfo& res, const nlohmann::json& obj,
                                   std::vector<std::string>& warnings, const WriteFlags& flags) const;
  ApiResult<WriteResult> finish_write(const ResourceInfo& res, const std::string& ns, const std::string& name,
                                      ApiResult<nlohmann::json> stored, std::vector<std::string> warnings,
                                      bool created, bool dry_run);
  void after_delete(const ResourceInfo& res, const nlohmann::json& obj, const std::string& propagation);
  void collect_garbage(const std::string& owner_uid, const std::string& propagation);

  Store& m_store;
  ResourceRegistry& m_registry;
};

/// The autoscaling/v1 Scale view of an object with a scale subresource.
nlohmann::json scale_of(const ResourceInfo& res, const nlohmann::json& object);

/// The continue token for a list page ending at store key `last_key` (opaque to clients).
std::string encode_continue(const std::string& last_key);
std::string decode_continue(const std::string& token);

}  // namespace kpt::apiserver
