#pragma once

#include "model/pytorchjob/env_style.hpp"

#include <map>
#include <string>
#include <string_view>

namespace kpt::model::pytorchjob {

using Labels = std::map<std::string, std::string>;

/// Which replica a set of labels is for.
struct ReplicaRef {
  std::string_view job;
  std::string_view replica_type;  ///< "Master" or "Worker" (any case)
  int index = 0;
  bool job_has_master = true;  ///< decides the v1.8+ job-role rule for Worker 0
};

/// The labels the operator (or our controller's style) puts on a replica pod, before they are
/// merged over the template's labels: v1.3 old keys only, v1.4/v1.5 both, v1.6+ training.kubeflow.org/*;
/// job-role=master on the Master, and from v1.8 on Worker 0 of a job without Master. Our styles use the
/// v1.8+ rules plus app.kubernetes.io/name=<job>.
Labels pod_labels(const ReplicaRef& replica, const EnvStyle& style);

/// The labels of the replica's Service (the pod's labels without job-role). Also its selector.
Labels service_labels(const ReplicaRef& replica, const EnvStyle& style);

/// The selector that lists all pods and services of a job (GenLabels(job)).
Labels job_selector(std::string_view job, const EnvStyle& style);

/// "k1=v1,k2=v2" in key order, for a labelSelector query parameter.
std::string selector_string(const Labels& labels);

}  // namespace kpt::model::pytorchjob
