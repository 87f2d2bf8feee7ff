#pragma once

// Projected volumes on the local node. A process cannot see a mount, so the node writes what a
// `projected` volume holds (service account tokens, ConfigMap and Secret keys) into a folder of the
// pod, and a container's env values that name a path under the volume's mountPath name the same
// path in that folder: how a pod gets Trainer's KUBEFLOW_TRAINER_SERVER_TOKEN and _CA_CERT.

#include "kube/api_client.hpp"
#include "local/pod_spec.hpp"
#include "util/expected.hpp"

#include <nlohmann/json.hpp>

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace kpt::local {

/// One file of a projected volume.
struct ProjectedFile {
  enum class Source { token, config_map, secret };
  std::string volume;  ///< the volume's name: its folder
  std::string path;    ///< inside the volume
  Source source = Source::token;
  std::string audience;                    ///< token
  std::int64_t expiration_seconds = 3600;  ///< token
  std::string object;                      ///< ConfigMap or Secret name
  std::string key;                         ///< its key
  bool optional = false;
  friend bool operator==(const ProjectedFile&, const ProjectedFile&) = default;
};

/// The files of the pod's `projected` volumes (serviceAccountToken, and configMap and secret sources
/// with their items; the rest, such as downwardAPI, is not written).
std::vector<ProjectedFile> projected_files(const nlohmann::json& pod);

/// Rewrites the launches' env: a value equal to, or under, the mountPath of one of the container's
/// mounts of a volume in `volumes` now names the same place under `<volume_root>/<volume>`.
void remap_mounted_paths(std::vector<ContainerLaunch>& launches, const nlohmann::json& pod,
                         const std::vector<std::string>& volumes, const std::string& volume_root);

/// Writes the files into `<volume_root>/<volume>/<path>` (folders 0700, files 0600): tokens from a
/// TokenRequest for the pod's service account bound to the pod, keys from the pod's namespace. A
/// missing source that is not optional is the kubelet's mount error: `configmap "x" not found`.
/// Returns when the tokens should be requested again (80 % of their life, as the kubelet does).
Expected<std::optional<std::chrono::seconds>> write_projected_files(kube::ApiClient& api,
                                                                    const nlohmann::json& pod,
                                                                    const std::vector<ProjectedFile>& files,
                                                                    const std::string& volume_root);

}  // namespace kpt::local
