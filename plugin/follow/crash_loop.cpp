#include "plugin/follow/crash_loop.hpp"

#include "plugin/follow/failure_class.hpp"
#include "plugin/follow/traceback.hpp"

#include <fmt/format.h>

namespace kpt::plugin {

std::string failure_signature(const std::vector<std::string>& lines, int exit_code) {
  FailureEvidence evidence;
  evidence.lines = lines;
  evidence.exit_code = exit_code;
  const auto error = cause_python_error(lines);
  if (error) evidence.exception_line = error->line;
  return fmt::format("{}|{}|{}", class_id(classify_failure(evidence)), exit_code, error ? error->line : "");
}

int CrashLoopTracker::record(const std::string& role, const std::string& signature) {
  auto& [last, repeats] = m_last[role];
  repeats = last == signature ? repeats + 1 : 1;
  last = signature;
  return repeats;
}

}  // namespace kpt::plugin
