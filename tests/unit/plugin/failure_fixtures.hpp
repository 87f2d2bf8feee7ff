#pragma once

#include "plugin/follow/diagnosis_gather.hpp"

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace kpt::plugin::testing {

/// The lines of a real log kept in testdata/failures/logs (written by real scripts on the local
/// cluster, or by torch's own init with a bad env: see docs/failure-path.md).
inline std::vector<std::string> failure_log(const std::string& name) {
  std::ifstream in(std::string(KPT_SOURCE_DIR) + "/testdata/failures/logs/" + name);
  std::stringstream text;
  text << in.rdbuf();
  return split_log_lines(text.str());
}

}  // namespace kpt::plugin::testing
