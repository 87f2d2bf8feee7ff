// A PyTorchJob's run policy and restart policy as Trainer and JobSet can hold them: the operator
// restarts and cleans up pod by pod (its restartPolicy, backoffLimit and cleanPodPolicy); a TrainJob has only
// a deadline and suspend, and its JobSet restarts, cleans up and expires the whole group.
#include "model/trainjob/constants.hpp"
#include "model/trainjob/convert_detail.hpp"
#include "model/trainjob/convert_policy.hpp"

namespace kpt::model::trainjob::detail {

using util::int_at;
using util::object_at;
using util::string_at;

namespace {

using nlohmann::json;
using Kind = ConvertNote::Kind;

void restart_policy_note(Converter& c, const std::string& policy, bool max_restarts,
                         const std::string& field) {
  if (policy == "OnFailure") {
    c.note(Kind::carried, field, "the node pods restart OnFailure, JobSet's default");
  } else if (policy == "Always") {
    c.note(Kind::changed, field,
           "a Job's pods cannot restart Always: they restart OnFailure (JobSet's default), and one that "
           "exits 0 completes");
  } else if (policy == "Never") {
    c.note_runtime_only(
        Kind::carried, field,
        std::string("node pods restartPolicy Never and node Job backoffLimit 0: a failed pod ") +
            (max_restarts ? "fails the node Job, which JobSet restarts (runPolicy.backoffLimit)"
                          : "fails the TrainJob, as it failed the PyTorchJob"));
  } else if (policy == "ExitCode") {
    c.note(
        Kind::dropped, field,
        "a Job restarts pods by restartPolicy, not by exit code; in a TrainingRuntime, restartPolicy Never "
        "and a node Job podFailurePolicy that fails the Job on exit codes 1-127 of container node come "
        "closest");
  } else {
    c.note(Kind::dropped, field, "not a restart policy the operator knows; left out");
  }
}

void convert_restarts(Converter& c, const json& replica, const std::string& path) {
  const json& run = object_at(c.job, "spec.runPolicy");
  const std::string policy = string_at(replica, "restartPolicy");
  const std::optional<std::int64_t> backoff = int_at(run, "backoffLimit");
  const RestartPlan plan = restart_plan(policy, backoff);
  if (plan.pod_restart_policy) c.carry.pod_spec["restartPolicy"] = *plan.pod_restart_policy;
  if (plan.job_backoff_limit) c.carry.job_spec["backoffLimit"] = *plan.job_backoff_limit;
  if (plan.max_restarts) c.carry.jobset_spec["failurePolicy"] = {{"maxRestarts", *plan.max_restarts}};
  if (replica.contains("restartPolicy"))
    restart_policy_note(c, policy, plan.max_restarts.has_value(), path + ".restartPolicy");
  if (plan.max_restarts) {
    const std::string n = std::to_string(*plan.max_restarts);
    c.note_runtime_only(
        Kind::changed, "spec.runPolicy.backoffLimit",
        "JobSet failurePolicy.maxRestarts " + n +
            " and node Job backoffLimit 0: a failed pod no longer restarts alone (the operator "
            "counted container restarts); JobSet recreates every node pod, up to " +
            n + " times, then the TrainJob fails with reason ReachedMaxRestarts");
  } else if (run.contains("backoffLimit")) {
    c.note(Kind::dropped, "spec.runPolicy.backoffLimit", "not an integer; left out");
  }
}

void convert_deadline(Converter& c, const json& value, json& spec) {
  const std::string field = "spec.runPolicy.activeDeadlineSeconds";
  if (features_of(c.release).active_deadline) {
    spec["activeDeadlineSeconds"] = value;
    c.note(Kind::changed, field,
           "spec.activeDeadlineSeconds (Trainer v2.2+): counted from creation or resume");
    return;
  }
  c.carry.job_spec["activeDeadlineSeconds"] = value;
  c.note_runtime_only(
      Kind::changed, field,
      "node Job activeDeadlineSeconds (a TrainJob has none before Trainer v2.2): counted from "
      "the Job's start, and the TrainJob fails with reason FailedJobs");
  if (c.carry.jobset_spec.contains("failurePolicy")) {
    // Without this rule JobSet would restart a group whose deadline passed, and the clock with it.
    c.carry.jobset_spec["failurePolicy"]["rules"] =
        json::array({{{"name", "deadline-exceeded"},
                      {"action", "FailJobSet"},
                      {"onJobFailureReasons", json::array({"DeadlineExceeded"})}}});
  }
}

/// Why the release gets no JobSet TTL (jobset_ttl): it would train again.
std::string ttl_refusal(TrainerRelease release) {
  const bool any_finished = !release.at_least(2);
  return "Trainer " + release.to_string() + " re-creates a " + (any_finished ? "finished" : "failed") +
         " TrainJob's JobSet that its TTL deleted, and trains again (kubeflow/trainer#" +
         (any_finished ? "2981" : "3779") + "), so it is not set";
}

void convert_cleanup(Converter& c, const json& run) {
  const std::string clean = string_at(run, "cleanPodPolicy");
  const std::optional<std::int64_t> ttl = int_at(run, "ttlSecondsAfterFinished");
  const std::optional<std::int64_t> jobset = jobset_ttl(clean, ttl, c.release);
  if (jobset) c.carry.jobset_spec["ttlSecondsAfterFinished"] = *jobset;
  if (run.contains("cleanPodPolicy")) {
    const std::string field = "spec.runPolicy.cleanPodPolicy";
    if (clean == "Running") {
      c.note(Kind::carried, field,
             "JobSet deletes the node Jobs still running when it finishes, as a failed Job does its "
             "running pods; nothing to set");
    } else if (clean == "None") {
      c.note(Kind::changed, field,
             "finished pods stay until the JobSet is deleted, but JobSet deletes the node Jobs still running "
             "when it finishes (the operator left them running)");
    } else if (clean == "All" && jobset) {
      c.note_runtime_only(Kind::changed, field,
                          "JobSet ttlSecondsAfterFinished 0: the JobSet with its Jobs, pods and Service is "
                          "deleted when it finishes; the TrainJob and its status stay");
    } else if (clean == "All") {
      c.note(Kind::dropped, field,
             "JobSet ttlSecondsAfterFinished 0 would delete the pods, but " + ttl_refusal(c.release));
    } else {
      c.note(Kind::dropped, field, "not a clean-up policy the operator knows; left out");
    }
  }
  if (run.contains("ttlSecondsAfterFinished")) {
    const std::string field = "spec.runPolicy.ttlSecondsAfterFinished";
    if (jobset && clean == "All") {
      c.note(Kind::dropped, field,
             "nothing deletes a TrainJob; its JobSet goes at once for cleanPodPolicy All");
    } else if (jobset) {
      c.note_runtime_only(
          Kind::changed, field,
          "JobSet ttlSecondsAfterFinished: it deletes the JobSet with its pods, not the TrainJob");
    } else {
      c.note(Kind::dropped, field,
             "nothing deletes a TrainJob; JobSet ttlSecondsAfterFinished would delete its pods, but " +
                 ttl_refusal(c.release));
    }
  }
}

void convert_managed_by(Converter& c, const json& value, json& spec) {
  const std::string field = "spec.runPolicy.managedBy";
  if (value == k_managed_by_multikueue) {
    spec["managedBy"] = value;
    c.note(Kind::carried, field, "spec.managedBy");
  } else if (value == "kubeflow.org/training-operator") {
    c.note(Kind::changed, field, std::string("the TrainJob's default, ") + k_managed_by_trainer);
  } else {
    c.note(Kind::dropped, field,
           std::string("a TrainJob takes only ") + k_managed_by_trainer + " or " + k_managed_by_multikueue);
  }
}

}  // namespace

void convert_run_policy(Converter& c, const json& replica, const std::string& path, json& spec) {
  convert_restarts(c, replica, path);
  const json& run = object_at(c.job, "spec.runPolicy");
  for (const auto& [key, value] : run.items()) {
    const std::string field = "spec.runPolicy." + key;
    if (key == "backoffLimit" || key == "cleanPodPolicy" || key == "ttlSecondsAfterFinished") continue;
    if (key == "activeDeadlineSeconds") {
      convert_deadline(c, value, spec);
    } else if (key == "suspend") {
      spec["suspend"] = value;
      c.note(Kind::carried, field, "spec.suspend");
    } else if (key == "managedBy") {
      convert_managed_by(c, value, spec);
    } else if (key == "schedulingPolicy") {
      c.note(Kind::dropped, field,
             "a TrainingRuntime's podGroupPolicy (coscheduling or volcano) gang-schedules all node pods, but "
             "minAvailable, queue, minResources and priorityClass have no field");
    } else {
      c.note(Kind::dropped, field, "not a run policy field the conversion knows; left out");
    }
  }
  convert_cleanup(c, run);
}

}  // namespace kpt::model::trainjob::detail
