#pragma once

#include "model/trainjob/release.hpp"

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kpt::model::trainjob {

/// The ClusterTrainingRuntimes a release's install manifests create (manifests/overlays/runtimes of
/// kubeflow/trainer at that tag: the base runtimes with the overlay's image tags and labels), as
/// the manifest writes them, before the API server's CRD defaulting. The data-cache runtime is not
/// carried: the default install does not create it.
std::vector<nlohmann::json> carried_runtimes(TrainerRelease release);

/// One carried runtime by name, or nothing when the release does not ship it.
std::optional<nlohmann::json> carried_runtime(TrainerRelease release, std::string_view name);

/// The names of carried_runtimes(release), in install order.
std::vector<std::string> carried_runtime_names(TrainerRelease release);

namespace detail {
/// The three torchtune runtimes of a release (runtime_catalog_torchtune.cpp).
std::vector<nlohmann::json> torchtune_runtimes(TrainerRelease release);
/// A ClusterTrainingRuntime object with the release's labels.
nlohmann::json cluster_runtime(TrainerRelease release, const std::string& name, const char* framework,
                               nlohmann::json spec);
/// `ghcr.io/kubeflow/trainer/<name>:<release>`, the tag the install overlay sets.
std::string trainer_image(TrainerRelease release, const std::string& name);
}  // namespace detail

}  // namespace kpt::model::trainjob
