#include "model/job_ownership.hpp"

#include "util/json_access.hpp"

#include <nlohmann/json.hpp>

namespace kpt::model {

const char* default_manager(JobKind kind) {
  return kind == JobKind::pytorchjob ? "kubeflow.org/training-operator"
                                     : "trainer.kubeflow.org/trainjob-controller";
}

std::string external_manager(JobKind kind, const nlohmann::json& job) {
  const auto path = kind == JobKind::pytorchjob ? "spec.runPolicy" : "spec";
  const std::string managed_by = util::string_at(util::object_at(job, path), "managedBy");
  return managed_by.empty() || managed_by == default_manager(kind) ? std::string{} : managed_by;
}

pytorchjob::EnvStyle env_style_of(const nlohmann::json& job, const pytorchjob::EnvStyle& fallback) {
  const auto annotated =
      util::optional_string(util::object_at(job, "metadata.annotations"), k_env_style_annotation);
  if (!annotated) return fallback;
  return pytorchjob::parse_style(*annotated).value_or(fallback);
}

std::optional<std::string> style_to_record(const nlohmann::json& job,
                                           const pytorchjob::EnvStyle& migrate_from,
                                           const pytorchjob::EnvStyle& ours) {
  if (util::optional_string(util::object_at(job, "metadata.annotations"), k_env_style_annotation))
    return std::nullopt;
  const bool started = !util::array_at(job, "status.conditions").empty();
  return pytorchjob::to_string(started ? migrate_from : ours);
}

}  // namespace kpt::model
