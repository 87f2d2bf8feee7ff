#pragma once

#include "model/pytorchjob/env.hpp"
#include "model/pytorchjob/env_style.hpp"

#include <nlohmann/json_fwd.hpp>

namespace kpt::model::pytorchjob {

/// The Pod the operator (or our controller) creates for one replica: the replica's template plus
/// name, namespace, labels, ownerReferences, restartPolicy (ExitCode -> Never), the style's env
/// appended to every container, the default port on the `pytorch` container and, for operator styles
/// v1.4+ with a Master, the Worker init container. Pure: no I/O.
nlohmann::json desired_pod(const nlohmann::json& job, const ReplicaPodPlan& plan, const EnvStyle& style);

/// The replica's headless Service: clusterIP None, selector = the replica labels, ports from the
/// `pytorch` container (after port defaulting), same ownerReferences.
nlohmann::json desired_service(const nlohmann::json& job, const ReplicaPodPlan& plan, const EnvStyle& style);

/// The ownerReference every child of the job carries.
nlohmann::json owner_reference(const nlohmann::json& job);

}  // namespace kpt::model::pytorchjob
