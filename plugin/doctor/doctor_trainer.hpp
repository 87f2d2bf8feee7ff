#pragma once

#include "kube/api_client.hpp"
#include "model/trainjob/release.hpp"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace kpt::plugin {

enum class CheckState;

/// One installed ClusterTrainingRuntime as doctor lists it.
struct ClusterRuntimeInfo {
  std::string name;
  std::string framework;       ///< the trainer.kubeflow.org/framework label, "" when unlabelled
  std::int64_t num_nodes = 1;  ///< spec.mlPolicy.numNodes (Trainer treats unset as 1)
  bool deprecated = false;     ///< labelled trainer.kubeflow.org/support: deprecated
};

/// What doctor learns about Kubeflow Trainer v2 beyond its Deployment.
struct TrainerFindings {
  CheckState crd;  ///< the TrainJob CRD
  std::string crd_message;
  std::vector<model::trainjob::TrainerRelease> crd_releases;     ///< its schema fingerprint
  std::optional<model::trainjob::TrainerRelease> image_release;  ///< the Deployment's version, when known
  CheckState runtimes;
  std::string runtimes_message;
  std::vector<ClusterRuntimeInfo> cluster_runtimes;
};

/// The release env and validate default to: the Deployment's version when it names a known release,
/// else the newest release the CRD fingerprint allows; nothing when neither says.
std::optional<model::trainjob::TrainerRelease> detected_trainer_release(const TrainerFindings& t);

/// "agree", "image" (only the image says), "crd" (only the CRD), "disagree" or "unknown".
std::string trainer_agreement(const TrainerFindings& t);

/// The rows of a ClusterTrainingRuntime list, by name.
std::vector<ClusterRuntimeInfo> cluster_runtime_infos(const std::vector<nlohmann::json>& items);

/// Reads the TrainJob CRD and the ClusterTrainingRuntimes; `version` is the Deployment's.
TrainerFindings gather_trainer(kube::ApiClient& api, const std::string& version);

}  // namespace kpt::plugin
