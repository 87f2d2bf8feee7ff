// Trainer's TrainJob reconcile (kubeflow/trainer pkg/controller/trainjob_controller.go and the JobSet
// plugin's Status, v2.0.0 to v2.3.0) as a pure decision.

#include "model/k8s/object_meta.hpp"
#include "model/trainjob/constants.hpp"
#include "model/trainjob/lifecycle.hpp"
#include "model/trainjob/runtime_ref.hpp"
#include "util/json_access.hpp"

namespace kpt::model::trainjob {

namespace {

using nlohmann::json;

bool finished(const TrainJobStatus& s) {
  return is_true(s.conditions, "Complete") || is_true(s.conditions, "Failed");
}

void remove_failed_unless_deadline(TrainJobStatus& s) {
  const Condition* failed = find_condition(s.conditions, "Failed");
  if (failed == nullptr || failed->reason == "DeadlineExceeded") return;
  std::erase_if(s.conditions, [](const Condition& c) { return c.type == "Failed"; });
}

void set_suspended(TrainJobStatus& s, bool suspended, util::Time now) {
  if (suspended) {
    set_status_condition(s.conditions, {"Suspended", "True", "Suspended", "TrainJob is suspended", ""}, now);
  } else if (is_true(s.conditions, "Suspended")) {
    set_status_condition(s.conditions, {"Suspended", "False", "Resumed", "TrainJob is resumed", ""}, now);
  }
}

/// Completed/Failed of the JobSet become Complete/Failed of the TrainJob, only when True. v2.0's
/// TerminalCondition returns one of them, Completed first; the Status of v2.1+ sets both in turn.
void copy_terminal_conditions(TrainJobStatus& s, const JobSetStatus& js, bool both, util::Time now) {
  for (const auto& [from, to] : {std::pair{"Completed", "Complete"}, std::pair{"Failed", "Failed"}}) {
    const Condition* c = find_condition(js.conditions, from);
    if (c == nullptr || c->status != "True") continue;
    Condition copy = *c;
    copy.type = to;
    set_status_condition(s.conditions, copy, now);
    if (!both) return;
  }
}

void reconcile_deadline(TrainJobDecision& d, const json& trainjob, bool suspended, util::Time now) {
  const json* seconds = util::at_path(trainjob, "spec.activeDeadlineSeconds");
  if (seconds == nullptr || !seconds->is_number_integer() || seconds->get<std::int64_t>() == 0) return;
  if (finished(d.status) || suspended) return;
  std::optional<util::Time> start =
      util::parse_time(util::string_at(util::object_at(trainjob, "metadata"), "creationTimestamp"));
  const Condition* resumed = find_condition(d.status.conditions, "Suspended");
  if (resumed != nullptr && resumed->status == "False")
    start = util::parse_time(resumed->last_transition_time);
  if (!start) return;
  const util::Time deadline = *start + std::chrono::seconds(seconds->get<std::int64_t>());
  if (now > deadline) {
    set_status_condition(d.status.conditions,
                         {"Failed", "True", "DeadlineExceeded", "TrainJob exceeded its active deadline", ""},
                         now);
    d.delete_jobset = true;
    return;
  }
  d.requeue_after_seconds = std::max<std::int64_t>(1, (deadline - now).count());
}

/// The first `n` UTF-8 code points of `s` (Go's %.950v counts runes).
std::string first_runes(const std::string& s, std::size_t n) {
  std::size_t i = 0;
  for (std::size_t runes = 0; i < s.size() && runes < n; ++runes) {
    ++i;
    while (i < s.size() && (static_cast<unsigned char>(s[i]) & 0xC0) == 0x80) ++i;
  }
  return s.substr(0, i);
}

}  // namespace

TrainJobDecision decide_trainjob(const json& trainjob, const JobSetObservation& jobset,
                                 bool runtime_supported, TrainerRelease release, util::Time now,
                                 ControllerFixes fixes) {
  const ReleaseFeatures& f = features_of(release);
  TrainJobDecision d;
  const TrainJobStatus old = trainjob_status_of(trainjob);
  d.status = old;
  const std::string managed_by = util::string_at(util::object_at(trainjob, "spec"), "managedBy");
  if (f.skips_external_managed_by && !managed_by.empty() && managed_by != k_managed_by_trainer) {
    d.skip = true;
    return d;
  }
  if (f.stops_when_finished && finished(d.status)) return d;
  const bool failed_for_good = fixes.failed_is_terminal && is_true(old.conditions, "Failed");
  if (!failed_for_good) remove_failed_unless_deadline(d.status);
  if (!runtime_supported) {
    // The real controller then reads the status through the missing runtime and panics, so the
    // Failed/TrainingRuntimeNotSupported condition it set in memory is never written.
    d.status = old;
    d.error = "unsupported runtime: " + runtime_ref_of(trainjob).registry_key();
    return d;
  }
  const bool suspended = util::bool_at(trainjob, "spec.suspend");
  if ((f.rebuilds_when_finished && !failed_for_good) || !finished(d.status)) {
    // The JobSet plugin's Build returns nothing for an existing JobSet unless one side is suspended.
    d.apply_objects = !jobset.exists || suspended || jobset.suspended;
  }
  set_suspended(d.status, suspended, now);
  JobSetObservation seen = jobset;
  if (failed_for_good) seen.status.conditions.clear();  // nothing the JobSet says replaces Failed
  auto from_jobset = trainjob_status_from_jobset(trainjob, std::move(d.status), seen, release, now);
  d.status = std::move(from_jobset.status);
  if (!failed_for_good) d.error = std::move(from_jobset.error);  // a failed job's JobSet may be gone
  if (f.active_deadline) reconcile_deadline(d, trainjob, suspended, now);
  return d;
}

JobSetObservation observe_jobset(const json* jobset) {
  if (jobset == nullptr) return {};
  return {true, util::bool_at(*jobset, "spec.suspend"), jobset_status_of(*jobset)};
}

StatusFromJobSet trainjob_status_from_jobset(const json& trainjob, TrainJobStatus status,
                                             const JobSetObservation& jobset, TrainerRelease release,
                                             util::Time now) {
  const ReleaseFeatures& f = features_of(release);
  StatusFromJobSet out{std::move(status), std::nullopt};
  if (!jobset.exists) {
    // v2.2+ (kubeflow/trainer#3013): the JobSet may have gone with its TTL once the TrainJob finished.
    if (!f.keeps_status_without_jobset || !finished(out.status))
      out.error = std::string("jobsets.jobset.x-k8s.io \"") + k8s::name_of(trainjob) + "\" not found";
    return out;
  }
  std::optional<Condition> deadline;
  if (const Condition* failed = find_condition(out.status.conditions, "Failed");
      failed != nullptr && failed->reason == "DeadlineExceeded") {
    deadline = *failed;
  }
  copy_terminal_conditions(out.status, jobset.status, f.jobs_status, now);
  if (f.jobs_status) out.status.jobs_status = jobset.status.replicated_jobs_status;
  if (deadline) set_status_condition(out.status.conditions, *deadline, now);
  return out;
}

Event resources_failed_event(const std::string& error) {
  std::string message = "TrainJob resources reconciliation failed: " + first_runes(error, 950);
  if (error.size() > 950) message += " ...";
  return {"Warning", "TrainJobResourcesCreationFailed", message};
}

}  // namespace kpt::model::trainjob
