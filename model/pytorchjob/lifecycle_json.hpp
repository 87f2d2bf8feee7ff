#pragma once

#include "model/pytorchjob/lifecycle_types.hpp"

#include <nlohmann/json_fwd.hpp>

#include <set>
#include <string>

namespace kpt::model::pytorchjob {

/// Job annotation where our controller records pod re-creations, so that backoffLimit counts
/// them as well as in-place restarts (the real operator misses re-creations, #2045).
inline constexpr const char* k_recreations_annotation = "kubectl-pytorch.dev/recreations";
/// Written with the count: comma-separated UIDs of the failed pods it includes that were still there
/// when it was written, so that a restarted controller does not count them twice.
inline constexpr const char* k_counted_pods_annotation = "kubectl-pytorch.dev/recreated-pod-uids";

/// The counted-pods annotation's value, and back (empty items are dropped).
std::string join_counted_pods(const std::set<std::string>& uids);
std::set<std::string> split_counted_pods(const std::string& text);

/// Reads the lifecycle-relevant fields of a PyTorchJob object. Unknown policy spellings fall
/// back to the operator's defaults (OnFailure, cleanPodPolicy None).
JobPolicy job_policy_from_json(const nlohmann::json& job);
/// Reads `.status` (missing fields stay empty).
JobStatus job_status_from_json(const nlohmann::json& status);
/// `.status` as the operator writes it (only set fields).
nlohmann::json job_status_to_json(const JobStatus& status);
/// Reads the operator labels, phase, pytorch container exit code and restart counts of a Pod.
PodObservation pod_observation_from_json(const nlohmann::json& pod);

RestartPolicy parse_restart_policy(const std::string& text);
CleanPodPolicy parse_clean_pod_policy(const std::string& text);

}  // namespace kpt::model::pytorchjob
