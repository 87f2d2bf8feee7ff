#pragma once

#include "util/expected.hpp"

#include <nlohmann/json_fwd.hpp>

#include <cstdint>
#include <functional>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace kpt::local {

/// Who the node runs as, and how it finds a user's primary group (the host's passwd).
struct NodeUser {
  unsigned uid = 0;
  unsigned gid = 0;
  std::function<std::optional<unsigned>(unsigned uid)> primary_group;
};

/// How one container's processes are restricted, as far as a local node can: the rest is
/// listed in `not_enforced`, for a Warning Event as the kubelet reports what it cannot do.
struct ContainerSecurity {
  bool set_identity = false;  ///< a root node switches to uid/gid/groups (runAsUser, runAsGroup)
  unsigned uid = 0;
  unsigned gid = 0;
  std::vector<unsigned> groups;        ///< supplementalGroups and fsGroup
  bool no_new_privs = false;           ///< allowPrivilegeEscalation: false
  std::vector<int> drop_capabilities;  ///< a root node drops them from the bounding set
  /// limits.memory as RLIMIT_DATA: each process's private memory, refused past it (malloc
  /// fails) rather than OOM-killed, since a local node has no cgroup of its own.
  std::optional<std::uint64_t> memory_limit;
  std::vector<std::string> not_enforced;
};

/// The securityContext (pod and container; the container's fields win) and resource limits of
/// `container`, as this node can honour them. runAsNonRoot is never silently broken: it fails
/// the container with the kubelet's CreateContainerConfigError messages, e.g. `container has
/// runAsNonRoot and image will run as root (pod: "p_default(uid)", container: main)` on a node
/// that runs as root without a runAsUser.
Expected<ContainerSecurity> plan_container_security(const nlohmann::json& pod,
                                                    const nlohmann::json& container, const NodeUser& node);

/// The pod-level fields the node does not honour (volumes are not mounted: processes see the
/// host's filesystem), one sentence each. `written_volumes`: volumes the node writes as files of
/// the pod (projected tokens, pod_volumes.hpp) and points the env at: honoured, not reported.
std::vector<std::string> pod_not_enforced(const nlohmann::json& pod,
                                          const std::set<std::string>& written_volumes = {});

/// The Linux capability number of a Kubernetes capability name ("NET_ADMIN", "CAP_NET_ADMIN").
std::optional<int> capability_number(const std::string& name);

}  // namespace kpt::local
