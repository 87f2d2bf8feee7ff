#pragma once

#include "kube/api_client.hpp"
#include "plugin/doctor/doctor_controller.hpp"
#include "plugin/doctor/doctor_detect.hpp"
#include "plugin/doctor/doctor_trainer.hpp"
#include "util/expected.hpp"

#include <optional>
#include <string>
#include <vector>

namespace kpt::plugin {

/// How one check went. Every check has one; none aborts the report.
enum class CheckState {
  found,          ///< read and present
  not_installed,  ///< read and absent (404, or no matching object)
  forbidden,      ///< 401/403: the user may not read it
  failed,         ///< any other error; `message` says which
};
const char* to_string(CheckState s);  ///< "found", "not installed", "not allowed to read", "failed"
/// The state an error leaves a check in (404: not installed; 401/403: forbidden), with its message.
CheckState state_of(const Error& e, std::string& message);
const char* json_name(CheckState s);  ///< "found", "notInstalled", "forbidden", "failed"

struct DeploymentInfo {
  CheckState state = CheckState::not_installed;
  std::string message;
  std::string ns;
  std::string name;
  std::string image;
};

struct CrdInfo {
  CheckState state = CheckState::not_installed;
  std::string message;
  std::vector<std::string> served_versions;
  std::string controller_gen;                                  ///< the annotation, "" when absent
  std::vector<model::pytorchjob::Release> generator_releases;  ///< what the annotation alone implies
  std::vector<model::pytorchjob::Release>
      fingerprint;  ///< releases_matching_crd (annotation and schema probes)
  std::string resource_version;
};

struct Permission {
  std::string verb;
  std::string resource;  ///< "pytorchjobs.kubeflow.org", "pods"
  CheckState state = CheckState::failed;
  std::string message;
  bool allowed = false;
  std::string reason;
};

/// Pods of existing jobs, as a runtime probe: the operator's labels on them name a release range.
struct JobPodsInfo {
  CheckState state = CheckState::not_installed;  ///< not_installed: no operator-made job pod seen
  std::string message;
  std::size_t pods = 0;                              ///< operator-made job pods looked at
  std::vector<model::pytorchjob::Release> releases;  ///< what all their labels allow (empty: they disagree)
};

struct DoctorReport {
  std::string server;
  std::string ns;  ///< where the permissions were asked for
  DeploymentInfo operator_deployment;
  std::optional<OurController> ours;  ///< kubectl-pytorch's controller, when it runs
  ImageMatch operator_image;
  DeploymentInfo trainer_deployment;
  std::string trainer_version;  ///< from the image tag
  TrainerFindings trainer{CheckState::not_installed, "", {}, {}, CheckState::not_installed, "", {}};
  CrdInfo crd;
  CheckState webhook = CheckState::not_installed;
  std::string webhook_message;
  CheckState crd_list = CheckState::not_installed;
  std::string crd_list_message;
  AddOns add_ons;
  JobPodsInfo job_pods;
  std::vector<Permission> permissions;
  Verdict verdict;
  ControllerHealthInfo controller{
      CheckState::not_installed, "", "", 0, 0, CheckState::not_installed, "", "", "", -1, false,
      CheckState::not_installed, "", {}};
  /// What on-call must act on (controller_problems): `doctor --check` fails when there is any.
  std::vector<std::string> problems;
};

inline constexpr const char* k_webhook_name = "validator.training-operator.kubeflow.org";
inline constexpr const char* k_pytorchjob_crd = "pytorchjobs.kubeflow.org";

/// Asks the cluster everything doctor reports, through `api` only. A transport failure on the first
/// request (the cluster cannot be reached) is the only error; everything else lands in a CheckState.
Expected<DoctorReport> gather_doctor_report(kube::ApiClient& api, const std::string& server,
                                            const std::string& ns);

/// Only the release detection (Deployments, CRD, webhook): what validate and env need. The CRD
/// object read on the way is kept for live validation, or the error reading it.
struct ReleaseDetection {
  Verdict verdict;
  std::optional<nlohmann::json> crd;                       ///< the PyTorchJob CRD as the server sent it
  std::optional<Error> crd_error;                          ///< why it is missing (404, 403 ...)
  std::optional<model::trainjob::TrainerRelease> trainer;  ///< Kubeflow Trainer's release, when one is seen
};
/// Fails only when the cluster cannot be reached (transport error on the first request).
Expected<ReleaseDetection> detect_release(kube::ApiClient& api);

}  // namespace kpt::plugin
