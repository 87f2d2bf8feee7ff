#pragma once

#include "model/pytorchjob/env_style.hpp"
#include "model/pytorchjob/release.hpp"

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kpt::plugin {

/// What an operator image reference says about the release (the image each release's kustomize
/// overlay deploys). Pure.
struct ImageMatch {
  enum class Kind {
    release,   ///< the tag maps to `releases` (one release; v1.8.0 and v1.8.1 differ by tag)
    untagged,  ///< no tag: what v1.9.1's manifests deploy (#2583), so `releases` = {v1.9.1}
    latest,    ///< ":latest" names no release
    digest,    ///< pinned by "@sha256:" only: no tag to map
    unknown,   ///< a tag that is in no release's manifests
  };
  Kind kind = Kind::unknown;
  std::vector<model::pytorchjob::Release> releases;
  std::string tag;  ///< as written, "" when none
};

/// Maps a container image ("[registry[:port]/]path[:tag][@sha256:...]") to releases by its tag.
/// A registry mirror or path prefix does not matter: the `v1-<sha>` tags are unique.
ImageMatch match_operator_image(std::string_view image);

/// The Trainer v2 release in an image tag ("ghcr.io/kubeflow/trainer/trainer-controller-manager:v2.1.0"
/// → "v2.1.0"); "" when the tag is not a v2 semver.
std::string trainer_version_from_image(std::string_view image);

/// "v1.9.0–v1.9.4", "v1.6.0", "v1.3.0, v1.5.0" (consecutive known releases collapse to a range).
std::string releases_text(const std::vector<model::pytorchjob::Release>& releases);

/// The releases in both lists (each sorted oldest first, as every function here returns them).
std::vector<model::pytorchjob::Release> intersect_releases(const std::vector<model::pytorchjob::Release>& a,
                                                           const std::vector<model::pytorchjob::Release>& b);

/// What the labels of one pod a v1 operator made imply (pkg/util/labels and common_types.go per tag): only
/// the old keys
/// (`group-name: kubeflow.org`, no `training.kubeflow.org/*`) → v1.3.0; old and new → v1.4.0–v1.5.0;
/// only `training.kubeflow.org/*` → v1.6.0+, and v1.8.0+ when a Worker carries `job-role: master`
/// (worker 0 of a job without Master). Empty for pods no operator made: our controller's carry
/// `app.kubernetes.io/name`, which no v1 operator sets.
std::vector<model::pytorchjob::Release> releases_from_pod_labels(
    const std::map<std::string, std::string>& labels);

/// The evidence doctor gathered; nullopt = that source was not available (not installed, not allowed).
/// kubectl-pytorch's own controller, seen reconciling the cluster's PyTorchJobs.
/// OurController::where of the local cluster's embedded controller.
inline constexpr const char* k_local_cluster_controller = "the local cluster";

struct OurController {
  std::string where;                  ///< k_local_cluster_controller, or "Deployment ns/name"
  model::pytorchjob::EnvStyle style;  ///< what it injects (its --env-style)
};

struct DetectionInput {
  std::optional<ImageMatch> image;                             ///< the operator Deployment's image
  std::optional<std::vector<model::pytorchjob::Release>> crd;  ///< releases_matching_crd of the installed CRD
  std::optional<bool> webhook;  ///< the v1.8+ ValidatingWebhookConfiguration exists
  /// The releases every job pod seen could come from (releases_from_pod_labels, intersected); only
  /// notes come of it, since pods can outlive an upgrade.
  std::optional<std::vector<model::pytorchjob::Release>> pod_labels;
};

struct Verdict {
  enum class Kind {
    agree,     ///< image and CRD point at a common release
    image,     ///< only the image says which release (no readable CRD)
    crd,       ///< only the CRD says (no Deployment, or an image tag that maps to nothing)
    disagree,  ///< both speak and have no release in common
    unknown,   ///< nothing says which release
    ours,      ///< kubectl-pytorch's controller runs the jobs, and no Training Operator does
  };
  Kind kind = Kind::unknown;
  std::optional<model::pytorchjob::Release>
      release;  ///< what validate and env default to; nullopt for unknown
  std::vector<model::pytorchjob::Release> candidates;  ///< every release the evidence allows (for the report)
  std::string summary;                                 ///< one line, lower-case, for the verdict line
  std::vector<std::string> notes;     ///< secondary findings (webhook mismatch, untagged image ...)
  std::optional<OurController> ours;  ///< set for Kind::ours: its env style is what pods get
};

/// Combines the evidence (rules in doctor_detect.cpp, each unit-tested):
/// - image and CRD intersect → agree, the newest common release;
/// - both speak but do not intersect → disagree, the image's release (the running controller decides
///   env and rules; live validate uses the installed CRD itself), with both named in the summary;
/// - one speaks → that one's newest release; neither → unknown.
/// The webhook only adds notes: present on a release before v1.8, or missing on v1.8+. So do job
/// pods whose labels another release made.
/// `ours`: our controller runs (the local cluster, or its Deployment); with no Training Operator
/// Deployment it decides, beside one it is a note.
Verdict combine(const DetectionInput& in, const std::optional<OurController>& ours = std::nullopt);

/// The env style pods of the detected release get: operator@<release>.
model::pytorchjob::EnvStyle style_for(const model::pytorchjob::Release& release);
/// The env style the verdict implies: our controller's, else the release's (a verdict with a release).
model::pytorchjob::EnvStyle style_for(const Verdict& verdict);

/// Our controller's Deployment, as `kubectl pytorch controller manifests` writes it.
bool is_our_controller_deployment(std::string_view name,
                                  const std::vector<std::pair<std::string, std::string>>& labels);
/// The env style a controller container's args choose (`--env-style X`, `--env-style=X`);
/// worker-only, the controller's default, when they do not or name no known style.
model::pytorchjob::EnvStyle style_from_controller_args(const std::vector<std::string>& args);
/// True for the /version of kubectl-pytorch's local cluster running its controller.
bool is_local_cluster_version(const std::string& version_json);
/// One-line description of what that release's env looks like.
std::string env_style_summary(const model::pytorchjob::Release& release);

/// Cluster add-ons recognised from CRD names.
struct AddOns {
  bool trainer_v2 = false;              ///< trainjobs.trainer.kubeflow.org
  bool v1_9_0_trainjob = false;         ///< trainjobs.kubeflow.org (v1.9.0's experimental v2alpha1)
  bool volcano = false;                 ///< podgroups.scheduling.volcano.sh
  bool scheduler_plugins = false;       ///< podgroups.scheduling.x-k8s.io or podgroups.scheduling.sigs.k8s.io
  std::string scheduler_plugins_group;  ///< which of the two groups
  bool kueue = false;                   ///< workloads.kueue.x-k8s.io or clusterqueues.kueue.x-k8s.io
  bool jobset = false;                  ///< jobsets.jobset.x-k8s.io (Trainer v2 runs TrainJobs as JobSets)
};
AddOns add_ons_from_crd_names(const std::vector<std::string>& crd_names);

/// Deployment recognition from its metadata (the names and labels of manifests/base/deployment.yaml).
bool is_training_operator_deployment(std::string_view name,
                                     const std::vector<std::pair<std::string, std::string>>& labels);
bool is_trainer_v2_deployment(std::string_view name,
                              const std::vector<std::pair<std::string, std::string>>& labels);

}  // namespace kpt::plugin
