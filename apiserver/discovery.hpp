#pragma once

#include "apiserver/resources.hpp"

#include <nlohmann/json.hpp>

#include <optional>
#include <string>

namespace kpt::apiserver {

/// GET /version.
/// /version. `build`, when set, becomes semver build metadata of gitVersion, as k3s marks its
/// builds (v1.32.0+k3s1): the local cluster says "+controller" when its controller runs.
nlohmann::json version_info(const std::string& build = {});
/// GET /api (APIVersions).
nlohmann::json core_api_versions(const std::string& server_address);
/// GET /apis (APIGroupList: every group but the core one).
nlohmann::json api_group_list(const ResourceRegistry& registry);
/// GET /apis/<group> (APIGroup), or nullopt when the group is not served.
std::optional<nlohmann::json> api_group(const ResourceRegistry& registry, const std::string& group);
/// GET /api/v1 or /apis/<group>/<version> (APIResourceList), or nullopt when not served.
std::optional<nlohmann::json> api_resource_list(const ResourceRegistry& registry, const std::string& group,
                                                const std::string& version);

/// The name of a kind's schema in /openapi/v2 and /openapi/v3, reverse-DNS like the real server's
/// (io.k8s.api.core.v1.Pod, org.kubeflow.v1.PyTorchJob).
std::string openapi_schema_name(const ResourceInfo& resource);

/// GET /openapi/v3: the group-version documents with content hashes, as kubectl expects.
nlohmann::json openapi_v3_root(const ResourceRegistry& registry);
/// GET /openapi/v3/api/v1 or /openapi/v3/apis/<group>/<version>: schemas of the kinds, tagged
/// with x-kubernetes-group-version-kind, and PATCH operations declaring the dryRun and
/// fieldValidation parameters (kubectl checks them before it sends them).
std::optional<nlohmann::json> openapi_v3_group_version(const ResourceRegistry& registry,
                                                       const std::string& group, const std::string& version);

}  // namespace kpt::apiserver
