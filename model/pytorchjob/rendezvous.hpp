#pragma once
// Whether a PyTorchJob's processes can find each other under the Training Operator: one verdict
// that `validate` reports as a finding and `env` prints as a note, so the two never disagree.
#include "model/pytorchjob/job_spec.hpp"
#include "model/pytorchjob/launch.hpp"
#include "model/pytorchjob/release.hpp"

#include <optional>
#include <string>
#include <string_view>

namespace kpt::model::pytorchjob {

/// The few facts the verdict depends on. validate reads them from the manifest as written
/// (so that a job the parser refuses still gets them), env from the parsed job.
struct RendezvousInput {
  bool has_master = false;
  int nodes = 0;    ///< pods over all replica types
  int workers = 0;  ///< Worker replicas
  bool elastic = false;
  std::string rdzv_host;              ///< where the elastic rendezvous is (elastic jobs only)
  std::optional<int> nproc_per_node;  ///< spec.nprocPerNode when it is a number
  LaunchInfo launch;                  ///< how the rank 0 replica's main container starts
};

RendezvousInput rendezvous_input(const JobSpec& job);

/// spec.nprocPerNode as a number of processes ("4"), none for "auto", "gpu", "" and the like.
std::optional<int> numeric_nproc_per_node(std::string_view text);

enum class RendezvousOutcome {
  works,
  fails,     ///< visibly fails: the command is known to need what the operator does not set
  may_fail,  ///< fails unless the image's entrypoint or the user's own env provides the missing part
};

struct RendezvousVerdict {
  RendezvousOutcome outcome = RendezvousOutcome::works;
  std::string rule;     ///< the lint id validate reports it under (empty when it works)
  std::string message;  ///< one sentence that stands on its own
  std::string fix;      ///< empty when it works
};

/// The verdict for the operator release `r`; none where another rule speaks (v1.3.0 refuses a job
/// without a Master) or where nothing depends on how the job launches.
std::optional<RendezvousVerdict> judge_rendezvous(const RendezvousInput& in, const Release& r);

}  // namespace kpt::model::pytorchjob
