#pragma once

#include <string>
#include <string_view>

namespace kpt::model::pytorchjob {

inline constexpr int k_default_port = 23456;                        ///< PyTorchJobDefaultPort
inline constexpr std::string_view k_port_name = "pytorchjob-port";  ///< DefaultPortName
inline constexpr std::string_view k_container_name = "pytorch";     ///< DefaultContainerName
inline constexpr std::string_view k_operator_name = "pytorchjob-controller";

/// `<job>-<rtype lower-cased>-<index>` with every '/' replaced by '-' (GenGeneralName).
/// The pod and its headless Service share this name in every release.
std::string replica_name(std::string_view job, std::string_view replica_type, int index);

/// The Service of a replica pod: the same name as the pod.
std::string service_name(std::string_view job, std::string_view replica_type, int index);

/// "Master"/"master"/"MASTER" -> "Master"; any other key -> its CamelCase form ("worker" -> "Worker"),
/// as the operator's setTypeNameToCamelCase does for the two known types.
std::string camel_replica_type(std::string_view replica_type);

}  // namespace kpt::model::pytorchjob
