#pragma once

#include "util/expected.hpp"

#include <nlohmann/json.hpp>

#include <atomic>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kpt::kube {

/// Which REST collection: `{"", "v1", "pods", "Pod"}`, `{"kubeflow.org", "v1", "pytorchjobs", "PyTorchJob"}`.
struct ResourceRef {
  std::string group;
  std::string version;
  std::string resource;  ///< plural, lower-case
  std::string kind;
  bool namespaced = true;

  /// "/api/v1" or "/apis/<group>/<version>".
  [[nodiscard]] std::string group_version_path() const;
  /// Collection path, e.g. /api/v1/namespaces/ns/pods (ns empty: all namespaces / cluster-scoped).
  [[nodiscard]] std::string collection_path(const std::string& ns) const;
  /// Object path, plus an optional subresource ("status", "log").
  [[nodiscard]] std::string object_path(const std::string& ns, const std::string& name,
                                        const std::string& subresource = {}) const;
};

namespace resources {
ResourceRef pods();
ResourceRef services();
ResourceRef events();
ResourceRef namespaces();
ResourceRef leases();
ResourceRef deployments();
ResourceRef crds();
ResourceRef pytorchjobs();
ResourceRef configmaps();
ResourceRef trainjobs();
ResourceRef trainingruntimes();
ResourceRef clustertrainingruntimes();
ResourceRef jobsets();  ///< jobset.x-k8s.io/v1alpha2, what Trainer turns a TrainJob into
}  // namespace resources

struct ListOptions {
  std::string label_selector;
  std::string field_selector;
  std::int64_t limit = 0;
  std::string continue_token;
  std::string resource_version;
  bool allow_bookmarks = true;       ///< watch only
  std::int64_t timeout_seconds = 0;  ///< watch only; 0 = server default
};

struct ListResult {
  std::vector<nlohmann::json> items;
  std::string resource_version;  ///< of the list, to start a watch from
  std::string continue_token;    ///< one-page lists (limit > 0): the token of the next page, "" at the end
};

struct WatchEvent {
  enum class Type { added, modified, deleted, bookmark, error };
  Type type = Type::added;
  nlohmann::json object;
};

struct WriteOptions {
  bool dry_run = false;          ///< dryRun=All
  std::string field_validation;  ///< "", "Ignore", "Warn", "Strict"
  std::string field_manager;     ///< required for apply patches
  bool force = false;            ///< apply: take over conflicting fields
  std::string subresource;       ///< patch: "status" writes the status subresource
};

enum class PatchType { merge, json, apply };

struct DeleteOptions {
  std::string propagation_policy;  ///< "", "Foreground", "Background", "Orphan"
  std::optional<std::int64_t> grace_period_seconds;
  std::string precondition_uid;
  bool dry_run = false;
};

/// The narrow interface every Kubernetes-talking part of the program uses.
/// RestClient is the real one (libcurl); tests use in-memory fakes that record calls.
/// Errors from the server carry ErrorCode::api, http_status and reason.
class ApiClient {
 public:
  virtual ~ApiClient() = default;

  virtual Expected<nlohmann::json> get(const ResourceRef& ref, const std::string& ns,
                                       const std::string& name) = 0;
  /// One page when opts.limit > 0; otherwise all pages, followed through `continue`.
  virtual Expected<ListResult> list(const ResourceRef& ref, const std::string& ns,
                                    const ListOptions& opts) = 0;
  /// Delivers events until `on_event` returns false, the server ends the stream, or `cancel`
  /// becomes true. Returns an error (http_status 410 for Expired) when the stream fails.
  virtual Expected<void> watch(const ResourceRef& ref, const std::string& ns, const ListOptions& opts,
                               const std::function<bool(const WatchEvent&)>& on_event,
                               const std::atomic<bool>* cancel) = 0;
  virtual Expected<nlohmann::json> create(const ResourceRef& ref, const std::string& ns,
                                          const nlohmann::json& obj, const WriteOptions& opts = {}) = 0;
  /// PUT with the object's metadata.resourceVersion (409 Conflict when stale).
  virtual Expected<nlohmann::json> update(const ResourceRef& ref, const std::string& ns,
                                          const nlohmann::json& obj, const WriteOptions& opts = {}) = 0;
  /// PUT to the status subresource.
  virtual Expected<nlohmann::json> update_status(const ResourceRef& ref, const std::string& ns,
                                                 const nlohmann::json& obj) = 0;
  virtual Expected<nlohmann::json> patch(const ResourceRef& ref, const std::string& ns,
                                         const std::string& name, PatchType type, const std::string& body,
                                         const WriteOptions& opts = {}) = 0;
  virtual Expected<void> remove(const ResourceRef& ref, const std::string& ns, const std::string& name,
                                const DeleteOptions& opts = {}) = 0;
  /// GET of a raw path (discovery, /openapi/v3, pods/log without follow).
  virtual Expected<std::string> get_raw(const std::string& path_and_query) = 0;
  /// Streams a raw GET (pods/log?follow=true) chunk by chunk until `on_data` returns false,
  /// the server closes, or `cancel` becomes true.
  virtual Expected<void> stream_raw(const std::string& path_and_query,
                                    const std::function<bool(std::string_view)>& on_data,
                                    const std::atomic<bool>* cancel) = 0;
  /// POST of a raw body to a path (SelfSubjectAccessReview and other non-resource calls).
  virtual Expected<nlohmann::json> post_raw(const std::string& path, const nlohmann::json& body) = 0;
  /// Warnings (HTTP `Warning: 299` headers) the server sent since the last call; clears them.
  virtual std::vector<std::string> take_warnings() = 0;
};

inline bool is_not_found(const Error& e) { return e.code == ErrorCode::api && e.http_status == 404; }
inline bool is_conflict(const Error& e) {
  return e.code == ErrorCode::api && e.http_status == 409 && e.reason != "AlreadyExists";
}
inline bool is_already_exists(const Error& e) {
  return e.code == ErrorCode::api && e.http_status == 409 && e.reason == "AlreadyExists";
}
inline bool is_gone(const Error& e) { return e.code == ErrorCode::api && e.http_status == 410; }

}  // namespace kpt::kube
