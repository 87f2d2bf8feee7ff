#pragma once

#include <string>
#include <vector>

namespace kpt::model::pytorchjob {

enum class Launcher {
  torchrun,      ///< torchrun, python -m torch.distributed.run/launch: reads the PET_* variables
  plain_python,  ///< visibly `python script.py` (or -m module) with no launcher: needs MASTER_ADDR etc.
  unknown,       ///< the image's entrypoint, a wrapper script, another launcher: cannot tell
};

struct LaunchInfo {
  Launcher launcher = Launcher::unknown;
  std::string shown;  ///< the part of the command that decided it, e.g. "python mnist.py"
  /// The command names its own rendezvous (--rdzv-*, --master-addr, --node-rank) or takes
  /// values from the environment (`$`): torchrun then needs no PET_MASTER_ADDR from the operator.
  bool names_rendezvous = false;
};

/// Classifies a container's `command` + `args` (shell `-c` strings are looked into).
LaunchInfo classify_launch(const std::vector<std::string>& argv);

}  // namespace kpt::model::pytorchjob
