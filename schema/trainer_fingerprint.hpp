#pragma once

#include "model/trainjob/release.hpp"

#include <nlohmann/json.hpp>

#include <vector>

namespace kpt::schema {

/// The Kubeflow Trainer releases whose TrainJob CRD (trainjobs.trainer.kubeflow.org, as JSON) could be
/// `crd`, oldest first, from the fields each release added to spec: podSpecOverrides (v2.0.x),
/// podTemplateOverrides (v2.1.0), runtimePatches (v2.2+), and in v2.3.0 the patches'
/// terminationGracePeriodSeconds and the initializers' storageUri rule. Patch releases that changed
/// no schema cannot be told apart (v2.0.0/v2.0.1, v2.2.0/v2.2.1). Empty when none matches.
std::vector<model::trainjob::TrainerRelease> trainer_releases_matching_crd(const nlohmann::json& crd);

}  // namespace kpt::schema
