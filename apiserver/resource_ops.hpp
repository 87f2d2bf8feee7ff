#pragma once

#include "apiserver/patch.hpp"
#include "apiserver/resources.hpp"
#include "apiserver/selectors.hpp"
#include "apiserver/status.hpp"
#include "apiserver/store.hpp"

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

namespace kpt::apiserver {

struct WriteFlags {
  bool dry_run = false;                   ///< dryRun=All
  std::string field_validation = "Warn";  ///< Ignore, Warn, Strict
  std::string subresource;                ///< "", "status" or "scale"
  std::string field_manager;              ///< required for apply patches
  bool patch = false;                     ///< the object is a patch's result (how decode errors are told)
};

/// A write's result: the stored object and the warnings to send as `Warning: 299` headers.
struct WriteResult {
  nlohmann::json object;
  std::vector<std::string> warnings;
  bool created = false;
};

/// A delete's options (meta/v1 DeleteOptions), from the body or the query.
struct DeleteOptions {
  std::string propagation = "Background";  ///< Background, Foreground or Orphan
  bool dry_run = false;
  std::string precondition_uid;           ///< preconditions.uid: 409 unless the object has it
  std::string precondition_rv;            ///< preconditions.resourceVersion: 409 unless the object has it
  std::optional<bool> orphan_dependents;  ///< as the client gave it (the deprecated field decides 202)
};

/// A delete's result: the object, and whether it is still there (finalizers or dependents left).
struct DeleteResult {
  nlohmann::json object;
  bool pending = false;
};

/// Garbage-collection work a write leaves: drained in a loop, not by recursion, so a long chain
/// of owners cannot exhaust the stack.
struct GcWork;

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

  Expected<nlohmann::json> get(const ResourceInfo& res, const std::string& ns, const std::string& name) const;
  Expected<nlohmann::json> list(const ResourceInfo& res, const std::string& ns, const ListQuery& q) const;
  Expected<WriteResult> create(const ResourceInfo& res, const std::string& ns, nlohmann::json body,
                               const WriteFlags& flags);
  Expected<WriteResult> update(const ResourceInfo& res, const std::string& ns, const std::string& name,
                               nlohmann::json body, const WriteFlags& flags);
  Expected<WriteResult> patch(const ResourceInfo& res, const std::string& ns, const std::string& name,
                              PatchKind kind, const std::string& body, const WriteFlags& flags);
  /// Deletes as the real API server and its garbage collector do: objects with finalizers get a
  /// deletionTimestamp and go once their finalizers are removed; Background deletes the object and
  /// then its dependents; Foreground keeps it, with the `foregroundDeletion` finalizer, until the
  /// dependents that block owner deletion are gone; Orphan strips their owner references.
  Expected<DeleteResult> remove(const ResourceInfo& res, const std::string& ns, const std::string& name,
                                const DeleteOptions& options);

  /// The scale subresource (autoscaling/v1 Scale) of an object.
  Expected<nlohmann::json> get_scale(const ResourceInfo& res, const std::string& ns,
                                     const std::string& name) const;

 private:
  Expected<nlohmann::json> prepare_create(const ResourceInfo& res, const std::string& ns, nlohmann::json body,
                                          std::vector<std::string>& warnings, const WriteFlags& flags) const;
  Expected<nlohmann::json> merge_update(const ResourceInfo& res, const nlohmann::json& current,
                                        nlohmann::json body, std::vector<std::string>& warnings,
                                        const WriteFlags& flags) const;
  /// Built-in kinds: what the real server's decoder checks on the object as written, before any
  /// default (types, unknown fields, which it drops); the schema's other findings go to `causes`.
  std::optional<Error> decode_builtin(const ResourceInfo& res, nlohmann::json& obj,
                                      std::vector<std::string>& warnings, const WriteFlags& flags,
                                      std::vector<StatusCause>& causes) const;
  std::optional<Error> validate(const ResourceInfo& res, const nlohmann::json& obj,
                                std::vector<std::string>& warnings, const WriteFlags& flags,
                                std::vector<StatusCause> causes = {},
                                const nlohmann::json* old_object = nullptr) const;
  Expected<WriteResult> finish_write(const ResourceInfo& res, const std::string& ns, const std::string& name,
                                     Expected<nlohmann::json> stored, std::vector<std::string> warnings,
                                     bool created, bool dry_run);
  // Deletion and garbage collection (garbage_collector.cpp).
  Expected<DeleteResult> remove_queued(const ResourceInfo& res, const std::string& ns,
                                       const std::string& name, const DeleteOptions& options, GcWork& work);
  Expected<nlohmann::json> mark_deleting(const ResourceInfo& res, const std::string& ns,
                                         const std::string& name, bool foreground);
  void after_erase(const ResourceInfo& res, const nlohmann::json& obj, GcWork& work);
  void orphan_dependents(const std::string& owner_uid);
  void drain(GcWork& work);
  void attempt_to_delete(const Store::Ref& ref, GcWork& work);
  void finish_foreground(const std::string& owner_uid, GcWork& work);
  /// Resolves a written object's owner references at once: one whose owners are all gone is
  /// collected (an owner deleted while its dependent was being created leaves no orphan).
  void collect_if_dangling(const ResourceInfo& res, const nlohmann::json& obj);
  /// The collection an object's erasure starts (its dependents, owners waiting for it).
  void collect_after_erase(const ResourceInfo& res, const nlohmann::json& obj);

  Store& m_store;
  ResourceRegistry& m_registry;
};

/// The autoscaling/v1 Scale view of an object with a scale subresource.
nlohmann::json scale_of(const ResourceInfo& res, const nlohmann::json& object);

/// The continue token for a list page ending at store key `last_key` (opaque to clients).
std::string encode_continue(const std::string& last_key);
std::string decode_continue(const std::string& token);

}  // namespace kpt::apiserver
