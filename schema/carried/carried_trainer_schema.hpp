#pragma once

#include "model/trainjob/release.hpp"
#include "schema/structural_schema.hpp"

#include <string_view>

namespace kpt::schema {

/// The carried Kubeflow Trainer v2 schemas of `release`: TrainJob, TrainingRuntime and
/// ClusterTrainingRuntime (trainer.kubeflow.org/v1alpha1) with their CEL rules, generated at build
/// time from each tag's Go types. A patch release that changed no API type shares its
/// predecessor's set (v2.0.1 is v2.0.0's, v2.2.1 v2.2.0's). Deserialized once per release, on
/// first use; safe to call from several threads.
const SchemaSet& carried_trainer_schema(model::trainjob::TrainerRelease release);

/// The newest carried release's CustomResourceDefinitions (TrainJob, TrainingRuntime,
/// ClusterTrainingRuntime) as YAML text: three JSON documents, each after a `---` line.
std::string_view carried_trainer_crds_yaml();

/// True for the kinds the carried Trainer schemas hold.
bool is_trainer_kind(std::string_view kind);

}  // namespace kpt::schema
