#pragma once

#include "model/trainjob/release.hpp"
#include "util/expected.hpp"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace kpt::model::trainjob {

/// JobSet's webhook limit on generated names (kubernetes-sigs/jobset v0.12.0 jobset_webhook.go):
/// every `<jobset>-<rjob>-<replicas-1>` and, for Indexed jobs with completions,
/// `<jobset>-<rjob>-<replicas-1>-<completions-1>-abcde` must be at most 63 characters.
inline constexpr std::size_t k_max_generated_label = 63;

/// The longest JobSet (= TrainJob) name a JobSet's replicated jobs allow, and which job limits it.
struct NameLimit {
  std::size_t max_length = k_max_generated_label;
  std::string limiting_job;  ///< the replicated job with the longest generated name
  bool by_pod_name = false;  ///< the pod name (not the job name) is the binding limit
};

/// The limit of a defaulted or undefaulted JobSet spec (replicas and completionMode are defaulted
/// here as the webhook sees them): 48 for torch-distributed up to 10 nodes, 33 with a
/// dataset-initializer job.
NameLimit name_limit(const nlohmann::json& jobset);

/// The limit for a TrainJob on its runtime under `release` (builds the JobSet to see numNodes and
/// the initializer jobs). Errors as build_jobset does.
Expected<NameLimit> name_limit_for(const nlohmann::json& trainjob, const nlohmann::json& runtime,
                                   TrainerRelease release);

/// The webhook's field errors for names that exceed the limit, in its order:
/// `spec.replicatedJobs[0].name: Invalid value: "<job>": JobSet name is too long, job names generated
/// for this JobSet will exceed 63 characters` (and the "pod names" variant, whose value is the job name).
std::vector<std::string> jobset_name_errors(const nlohmann::json& jobset);

}  // namespace kpt::model::trainjob
