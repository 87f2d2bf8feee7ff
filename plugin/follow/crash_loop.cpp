#include "plugin/follow/crash_loop.hpp"

#include "model/pytorchjob/lifecycle.hpp"
#include "model/pytorchjob/lifecycle_json.hpp"
#include "plugin/follow/failure_class.hpp"
#include "plugin/follow/traceback.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace kpt::plugin {

std::string failure_signature(const std::vector<std::string>& lines, int exit_code) {
  FailureEvidence evidence;
  evidence.lines = lines;
  evidence.exit_code = exit_code;
  const auto error = cause_python_error(lines);
  if (error) evidence.exception_line = error->line;
  return fmt::format("{}|{}|{}", class_id(classify_failure(evidence)), exit_code, error ? error->line : "");
}

int BackoffBudget::left() const { return model::pytorchjob::restarts_left(limit, {in_place, recreations}); }

std::optional<BackoffBudget> backoff_budget(const nlohmann::json& job,
                                            const std::vector<nlohmann::json>& pods) {
  namespace pj = model::pytorchjob;
  if (!job.is_object() || job.value("kind", "") != "PyTorchJob") return std::nullopt;
  const pj::JobPolicy policy = pj::job_policy_from_json(job);
  if (!policy.backoff_limit || *policy.backoff_limit < 0) return std::nullopt;
  std::vector<pj::PodObservation> observed;
  observed.reserve(pods.size());
  for (const auto& pod : pods) observed.push_back(pj::pod_observation_from_json(pod));
  const pj::RetryCount count = pj::count_retries(policy, observed);
  return BackoffBudget{*policy.backoff_limit, count.in_place, count.recreations};
}

std::string backoff_end(const BackoffBudget& budget) {
  const std::string limit = fmt::format("runPolicy.backoffLimit {}", budget.limit);
  const int left = budget.left();
  if (left == 0) return fmt::format("its restarts have reached {}, so the job fails now", limit);
  if (left == 1) return fmt::format("the job fails at its next restart ({})", limit);
  return fmt::format("the job fails after {} more restarts ({})", left, limit);
}

int CrashLoopTracker::record(const std::string& role, const std::string& signature) {
  auto& [last, repeats] = m_last[role];
  repeats = last == signature ? repeats + 1 : 1;
  last = signature;
  return repeats;
}

}  // namespace kpt::plugin
