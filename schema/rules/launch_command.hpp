#pragma once

#include "yaml/node.hpp"

#include <string>
#include <vector>

namespace kpt::schema::rules {

enum class Launcher {
  torchrun,      ///< torchrun, python -m torch.distributed.run/launch: reads the PET_* variables
  plain_python,  ///< visibly `python script.py` (or -m module) with no launcher: needs MASTER_ADDR etc.
  unknown,       ///< the image's entrypoint, a wrapper script, another launcher: cannot tell
};

struct LaunchInfo {
  Launcher launcher = Launcher::unknown;
  std::string shown;  ///< the part of the command that decided it, e.g. "python mnist.py"
};

/// Classifies a container's `command` + `args` (shell `-c` strings are looked into).
LaunchInfo classify_launch(const std::vector<std::string>& argv);

/// command + args of a container mapping, strings only.
std::vector<std::string> container_argv(const yaml::Node& container);

}  // namespace kpt::schema::rules
