#pragma once

#include "kube/api_client.hpp"
#include "schema/structural_schema.hpp"
#include "util/expected.hpp"

#include <nlohmann/json_fwd.hpp>

#include <filesystem>
#include <optional>
#include <string>

namespace kpt::plugin {

/// The PyTorchJob schemas of a live cluster.
struct LiveSchema {
  schema::SchemaSet set;
  std::string source;  ///< "the CRD 'pytorchjobs.kubeflow.org' in the cluster" or "... /openapi/v3 ..."
  bool cache_hit = false;
  std::filesystem::path cache_entry;
};

/// The cache key of a CRD read from `server`: the server, the CRD's uid and resourceVersion (any change
/// to the CRD changes its resourceVersion, so a stale entry is never read).
std::string live_crd_cache_key(const std::string& server, const nlohmann::json& crd);

/// Compiles the installed CRD (`crd`, as read) or takes it from the cache under `cache_dir`.
Expected<LiveSchema> schema_from_live_crd(const nlohmann::json& crd, const std::string& server,
                                          const std::filesystem::path& cache_dir);

/// The fallback when the user may not read CRDs: GET /openapi/v3/apis/kubeflow.org/v1 and compile the
/// PyTorchJob schema in it (metadata, a $ref there, is taken as a plain object). Cached by its text.
/// nullopt when the server publishes no PyTorchJob schema.
Expected<std::optional<LiveSchema>> schema_from_openapi(kube::ApiClient& api,
                                                        const std::filesystem::path& cache_dir);

/// $KUBECACHEDIR, --cache-dir or ~/.kube/cache, then "kubectl-pytorch" (as validate --crd uses).
std::filesystem::path schema_cache_dir(const std::string& cache_dir_flag,
                                       const std::optional<std::string>& kubecachedir,
                                       const std::optional<std::string>& home);

}  // namespace kpt::plugin
