#pragma once

#include "util/expected.hpp"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace kpt::model::trainjob {

/// What became of one PyTorchJob field in the TrainJob.
struct ConvertNote {
  enum class Kind { carried, changed, dropped };
  Kind kind = Kind::carried;
  std::string field;  ///< the PyTorchJob field path
  std::string text;   ///< where it went, or why it has no equivalent
};

/// "carried", "changed", "no equivalent".
std::string to_string(ConvertNote::Kind kind);

struct Conversion {
  nlohmann::json trainjob;  ///< trainer.kubeflow.org/v1alpha1 TrainJob on torch-distributed
  std::vector<ConvertNote> notes;
};

/// A PyTorchJob as the TrainJob on Trainer's torch-distributed runtime that gives torchrun the same
/// rendezvous as the operator's torchrun style: numNodes = all replicas, numProcPerNode from
/// nprocPerNode, the `pytorch` container's image, command (a bare `python X` becomes `torchrun X`),
/// args, env and resources as trainer fields, its pod-level scheduling fields and volumeMounts as a
/// runtime patch, activeDeadlineSeconds and suspend; everything else is a note saying it has no
/// equivalent. Errors (code invalid): no replica specs, or replica types other than Master/Worker.
Expected<Conversion> convert_pytorchjob(const nlohmann::json& job);

}  // namespace kpt::model::trainjob
