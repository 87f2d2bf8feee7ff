#pragma once

#include "local/pod_run.hpp"

#include <nlohmann/json_fwd.hpp>

#include <string>

namespace kpt::local {

/// Whether a pod's stored status says its containers ran under an earlier node (this node
/// restarted: `local down`/`up`, or the server was killed).
bool ran_before(const nlohmann::json& pod_status);

/// Picks up a pod that ran when the node went away, as the kubelet does after a node restart:
/// restart counts are kept, containers that had finished stay finished, and a container that
/// was running is recorded as lost (exit 137, ContainerStatusUnknown) and then restarted or not
/// by the pod's restartPolicy (Always, OnFailure: restarted now; Never: the pod fails).
void resume_after_node_restart(PodRun& run, const nlohmann::json& pod_status, const std::string& now_wall,
                               SteadyTime now);

}  // namespace kpt::local
