#pragma once

#include <nlohmann/json_fwd.hpp>

#include <string>
#include <string_view>

namespace kpt::model::pytorchjob {

/// Which gang scheduler PodGroups are made for (v1.7+ pkg/controller.v1/common/scheduling.go).
enum class GangKind { none, volcano, scheduler_plugins };

/// The `--gang-scheduler` flag as the v1.7+ operator reads `--gang-scheduler-name`: empty is none,
/// `volcano` is Volcano, any other value is scheduler-plugins with that value as the pods'
/// schedulerName.
struct GangScheduler {
  GangKind kind = GangKind::none;
  std::string scheduler_name;  ///< the pods' schedulerName: "volcano" or the flag's value
};

GangScheduler parse_gang_scheduler(std::string_view flag);

/// The scheduler a job gets: the flag's when set; else, for a job that sets
/// `runPolicy.schedulingPolicy`, Volcano (the operator's historical default); else none.
GangScheduler gang_for_job(const nlohmann::json& job, const GangScheduler& flag);

/// What the API server must serve for `kind`: group, version, plural, and the CRD's name.
struct PodGroupApi {
  std::string group;
  std::string version;
  std::string plural = "podgroups";
  std::string crd_name;  ///< podgroups.<group>
};
PodGroupApi pod_group_api(GangKind kind);

/// The job's PodGroup: named as the job, owned by it, the job's annotations; spec.minMember =
/// schedulingPolicy.minAvailable or the sum of replicas; minResources = schedulingPolicy's or the
/// sum of the container requests (limits where no request) of the first minMember pods, Master
/// first; Volcano adds queue (default "default", v1.8+) and priorityClassName, scheduler-plugins
/// scheduleTimeoutSeconds. Pure.
nlohmann::json desired_pod_group(const nlohmann::json& job, const GangScheduler& gang);

/// Decorates a desired pod of `replica_type` for the gang scheduler: Volcano sets schedulerName
/// when empty and the annotations `scheduling.k8s.io/group-name` and `volcano.sh/task-spec`
/// (lower-case replica type); scheduler-plugins sets the label `scheduling.x-k8s.io/pod-group` and
/// schedulerName when empty.
void decorate_gang_pod(nlohmann::json& pod, const std::string& job_name, const std::string& replica_type,
                       const GangScheduler& gang);

/// Adds Kubernetes quantities ("500m" + "1" = "1500m", "1Gi" + "1Gi" = "2Gi" as "2147483648"):
/// the result is in base units, with a milli suffix when fractional; nothing when either is not a quantity.
std::string add_quantities(std::string_view a, std::string_view b);

}  // namespace kpt::model::pytorchjob
