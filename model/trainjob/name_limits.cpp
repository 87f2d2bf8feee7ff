#include "model/trainjob/name_limits.hpp"

#include "model/k8s/object_meta.hpp"
#include "model/trainjob/build.hpp"
#include "model/trainjob/jobset_children.hpp"
#include "util/json_access.hpp"

#include <algorithm>

namespace kpt::model::trainjob {

namespace {

using nlohmann::json;

struct Generated {
  std::string job;                 ///< the longest job name
  std::optional<std::string> pod;  ///< the longest pod name, for Indexed jobs with completions
  std::size_t fixed_job = 0;       ///< characters of the job name beyond the JobSet name
  std::size_t fixed_pod = 0;
};

Generated generated_names(const std::string& jobset, const json& rjob) {
  Generated g;
  const json* r = util::child(rjob, "replicas");
  const std::int64_t replicas = r != nullptr && r->is_number_integer() ? r->get<std::int64_t>() : 1;
  g.job = job_name(jobset, util::string_at(rjob, "name"), replicas - 1);
  g.fixed_job = g.job.size() - jobset.size();
  const json* mode = util::at_path(rjob, "template.spec.completionMode");
  const bool indexed = mode == nullptr || (mode->is_string() && mode->get<std::string>() == "Indexed");
  const json* completions = util::at_path(rjob, "template.spec.completions");
  if (indexed && completions != nullptr && completions->is_number_integer()) {
    g.pod = g.job + "-" + std::to_string(completions->get<std::int64_t>() - 1) + "-abcde";
    g.fixed_pod = g.pod->size() - jobset.size();
  }
  return g;
}

const json& jobs_of(const json& jobset) {
  static const json k_empty = json::array();
  const json* jobs = util::at_path(jobset, "spec.replicatedJobs");
  return jobs != nullptr && jobs->is_array() ? *jobs : k_empty;
}

}  // namespace

NameLimit name_limit(const json& jobset) {
  NameLimit limit;
  for (const auto& rjob : jobs_of(jobset)) {
    const Generated g = generated_names(k8s::name_of(jobset), rjob);
    const std::size_t by_job = g.fixed_job >= k_max_generated_label ? 0 : k_max_generated_label - g.fixed_job;
    const std::size_t by_pod =
        !g.pod ? k_max_generated_label
               : (g.fixed_pod >= k_max_generated_label ? 0 : k_max_generated_label - g.fixed_pod);
    const std::size_t job_limit = std::min(by_job, by_pod);
    if (limit.limiting_job.empty() || job_limit < limit.max_length) {
      limit.max_length = job_limit;
      limit.limiting_job = util::string_at(rjob, "name");
      limit.by_pod_name = by_pod < by_job;
    }
  }
  return limit;
}

Expected<NameLimit> name_limit_for(const json& trainjob, const json& runtime, TrainerRelease release) {
  auto built = build_jobset(trainjob, runtime, release);
  if (!built) return built.error();
  return name_limit(built->jobset);
}

std::vector<std::string> jobset_name_errors(const json& jobset) {
  std::vector<std::string> errors;
  const json& jobs = jobs_of(jobset);
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    const Generated g = generated_names(k8s::name_of(jobset), jobs[i]);
    const std::string prefix =
        "spec.replicatedJobs[" + std::to_string(i) + "].name: Invalid value: \"" + g.job + "\": ";
    if (g.job.size() > k_max_generated_label) {
      errors.push_back(
          prefix + "JobSet name is too long, job names generated for this JobSet will exceed 63 characters");
    }
    if (g.pod && g.pod->size() > k_max_generated_label) {
      errors.push_back(
          prefix + "JobSet name is too long, pod names generated for this JobSet will exceed 63 characters");
    }
  }
  return errors;
}

}  // namespace kpt::model::trainjob
