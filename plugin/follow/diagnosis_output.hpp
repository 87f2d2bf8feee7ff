#pragma once

#include "plugin/follow/diagnosis.hpp"

#include <nlohmann/json_fwd.hpp>

#include <string>
#include <vector>

namespace kpt::plugin {

/// The diagnosis as `diagnose` and `run`'s ending print it: a verdict line, then at most about
/// nine indented `label: value` lines (the root cause's exit, exception and class, the ranks
/// that followed it, the next step, where its log is, pods left behind).
std::vector<std::string> diagnosis_lines(const Diagnosis& d, const StepContext& step);

/// `diagnose -o json`: the same facts for scripts (see docs/failure-path.md for the fields).
nlohmann::json diagnosis_json(const Diagnosis& d);

/// `run`'s last line for a failed job: which rank failed first and how, and the job's message:
/// "pytorchjob dg-fail failed after 12.3s: dg-fail-worker-1 (rank 1) exited with code 1, the
/// first of 2 failed ranks; PyTorchJob dg-fail is failed because ...".
std::string failure_summary(const Diagnosis& d, double seconds);

}  // namespace kpt::plugin
