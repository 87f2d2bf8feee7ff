#pragma once

#include "util/expected.hpp"

#include <nlohmann/json.hpp>

#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>

namespace kpt::local {

/// The ConfigMaps and Secrets a pod's env refers to, as the node fetched them for it
/// (absent ones are missing from the maps).
struct EnvSources {
  std::map<std::string, nlohmann::json> config_maps;  ///< name -> object
  std::map<std::string, nlohmann::json> secrets;      ///< name -> object (data in base64)
};

/// The names of the ConfigMaps and Secrets that the pod's containers (init ones included) name
/// in `env[].valueFrom` and `envFrom`.
struct EnvReferences {
  std::set<std::string> config_maps;
  std::set<std::string> secrets;
};
EnvReferences env_references(const nlohmann::json& pod);

/// Sets the variables of a container's `envFrom` (in order, each key with its prefix) as the
/// kubelet does (k8s.io/kubernetes pkg/kubelet/kubelet_pods.go, makeEnvironmentVariables): a
/// missing source fails unless optional, keys that are not valid variable names are skipped.
/// Errors are the kubelet's: `configmap "x" not found`.
Expected<void> apply_env_from(const nlohmann::json& container, const EnvSources& sources,
                              const std::function<void(const std::string&, const std::string&)>& set_var);

/// The value of a `valueFrom.configMapKeyRef` or `secretKeyRef`: nullopt when an optional source
/// or key is missing (the variable is left out); errors are the kubelet's, e.g.
/// `couldn't find key k in Secret default/s`.
Expected<std::optional<std::string>> resolve_key_ref(const nlohmann::json& value_from, const std::string& ns,
                                                     const EnvSources& sources);

}  // namespace kpt::local
