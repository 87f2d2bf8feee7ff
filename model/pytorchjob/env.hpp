#pragma once

#include "model/pytorchjob/env_style.hpp"
#include "model/pytorchjob/job_spec.hpp"
#include "util/expected.hpp"

#include <nlohmann/json_fwd.hpp>

#include <optional>
#include <string>
#include <vector>

namespace kpt::model::pytorchjob {

struct EnvVar {
  std::string name;
  std::string value;
  friend bool operator==(const EnvVar&, const EnvVar&) = default;
};

/// What one replica pod will be: its name, rank and the env the style injects.
struct ReplicaPodPlan {
  std::string name;          ///< <job>-<master|worker>-<i>
  std::string replica_type;  ///< "Master" or "Worker"
  int index = 0;
  std::optional<int> rank;  ///< the RANK the style injects (node rank); none when it sets no RANK
  std::string service;      ///< the pod's headless Service
  std::vector<EnvVar> env;  ///< the vars the style injects, in pod-spec order (appended after the user's)
  std::vector<EnvVar> user_env;  ///< the user's own env of the `pytorch` container (literal values only)
};

/// Every replica pod of the job: Master first, then Workers by index, then other types.
/// Errors when the style cannot produce pods for this job (v1.3.0 without a Master, ...).
Expected<std::vector<ReplicaPodPlan>> plan_replica_pods(const nlohmann::json& job, const EnvStyle& style);

/// The same from an already parsed job.
Expected<std::vector<ReplicaPodPlan>> plan_replica_pods(const JobSpec& job, const EnvStyle& style);

/// The env one pod gets (the body of plan_replica_pods).
Expected<std::vector<EnvVar>> replica_env(const JobSpec& job, const std::string& replica_type, int index,
                                          const EnvStyle& style);

/// Short lines explaining what the user's program will see with this style: which init method
/// works, what RANK means, what is missing and how to fix it.
std::vector<std::string> explain_env(const JobSpec& job, const EnvStyle& style);

}  // namespace kpt::model::pytorchjob
