#pragma once

#include "model/trainjob/release.hpp"
#include "util/expected.hpp"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace kpt::model::trainjob {

/// What became of one PyTorchJob field in the TrainJob (or its TrainingRuntime).
struct ConvertNote {
  enum class Kind { carried, changed, dropped };
  Kind kind = Kind::carried;
  std::string field;  ///< the PyTorchJob field path
  std::string text;   ///< where it went, or why it has no equivalent
};

/// "carried", "changed", "no equivalent".
std::string to_string(ConvertNote::Kind kind);

struct Conversion {
  /// trainer.kubeflow.org/v1alpha1 TrainingRuntime `<job>-runtime` the TrainJob names, or null when
  /// the shipped torch-distributed with the TrainJob's own override fits.
  nlohmann::json runtime;
  nlohmann::json trainjob;  ///< trainer.kubeflow.org/v1alpha1 TrainJob
  std::vector<ConvertNote> notes;
};

/// A PyTorchJob as the TrainJob for Trainer `release` that gives torchrun the same rendezvous as
/// the operator's torchrun style: numNodes = all replicas, numProcPerNode from nprocPerNode, the
/// `pytorch` container's image, command (a bare `python X` becomes `torchrun X`), args, env and
/// resources as trainer fields, activeDeadlineSeconds (v2.2+) and suspend. The rest of the node
/// pods' template goes into the release's override of torch-distributed (convert_policy.hpp says
/// which fields it takes) unless anything needs a TrainingRuntime: pod or container fields no
/// override takes, sidecars, init containers, restartPolicy Never, runPolicy.backoffLimit, the
/// JobSet TTL (v2.0), a deadline before v2.2. Then all of it goes into the TrainingRuntime
/// `<job>-runtime` (training_runtime()) and the TrainJob names it. Fields neither holds are notes.
/// Errors (code invalid): no replica specs, or replica types other than Master/Worker.
Expected<Conversion> convert_pytorchjob(const nlohmann::json& job,
                                        TrainerRelease release = k_newest_trainer_release);

}  // namespace kpt::model::trainjob
