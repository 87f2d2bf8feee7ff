#pragma once

#include "model/pytorchjob/launch.hpp"
#include "yaml/node.hpp"

#include <string>
#include <vector>

namespace kpt::schema::rules {

using model::pytorchjob::classify_launch;
using model::pytorchjob::Launcher;
using model::pytorchjob::LaunchInfo;

/// command + args of a container mapping, strings only.
std::vector<std::string> container_argv(const yaml::Node& container);

}  // namespace kpt::schema::rules
