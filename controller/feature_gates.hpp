#pragma once

#include "util/expected.hpp"

#include <string>

namespace kpt::controller {

/// The controller's feature gates, named and defaulted as Kubeflow Trainer's
/// (pkg/features/features.go): `--feature-gates TrainJobStatus=true`.
struct FeatureGates {
  /// Alpha, off by default: the status server and the progress env, volume and CA ConfigMap in the
  /// trainer pods (Trainer v2.2+), for TrainJobs and, ours, for PyTorchJobs.
  bool train_job_status = false;
};

/// Parses `Name=bool` pairs, comma-separated, over `defaults` (Go's strconv.ParseBool spellings:
/// 1, t, T, TRUE, true, True and their false forms). Errors name the gate as component-base does:
/// `unrecognized feature gate: X`.
Expected<FeatureGates> parse_feature_gates(const std::string& text, FeatureGates defaults = {});

/// The known gates with their stage and default, for --help: "TrainJobStatus=true|false (ALPHA -
/// default=false)".
std::string feature_gates_help();

}  // namespace kpt::controller
