#pragma once

#include "model/pytorchjob/env.hpp"
#include "plugin/env/env_output.hpp"

#include <nlohmann/json_fwd.hpp>

#include <string>
#include <vector>

namespace kpt::plugin {

/// One pod as the cluster has it: its name and the env of its `pytorch` container in pod-spec order.
struct LivePod {
  std::string name;
  std::vector<model::pytorchjob::EnvVar> env;  ///< entries with valueFrom have the value "(valueFrom)"
};

/// The result of comparing the expected pods with the live ones.
struct LiveComparison {
  std::vector<std::string> lines;  ///< "pod X: env matches" or one line per difference
  bool differs = false;
};

/// The pod's name and the env of its `pytorch` container (the first container when none is named so).
LivePod live_pod_from_json(const nlohmann::json& pod);

/// Compares each expected pod's effective env (the last entry of a name wins) with the live pod of the
/// same name: missing vars, extra vars, different values, missing pods and pods the style does not expect.
LiveComparison compare_live_env(const std::vector<model::pytorchjob::ReplicaPodPlan>& expected,
                                const std::vector<LivePod>& live);

/// The same for any kind of job: each expected pod is matched with the live pod whose name is its key;
/// a live pod no key names is "not expected by <expected_by>".
LiveComparison compare_live_env(const std::vector<EnvTablePod>& expected, const std::vector<LivePod>& live,
                                const std::string& expected_by);

}  // namespace kpt::plugin
