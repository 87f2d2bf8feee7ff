#include "controller/feature_gates.hpp"

#include "util/strings.hpp"

#include <optional>

namespace kpt::controller {

namespace {

std::optional<bool> parse_go_bool(const std::string& text) {
  for (const char* yes : {"1", "t", "T", "TRUE", "true", "True"}) {
    if (text == yes) return true;
  }
  for (const char* no : {"0", "f", "F", "FALSE", "false", "False"}) {
    if (text == no) return false;
  }
  return std::nullopt;
}

std::string trimmed(const std::string& text) {
  const auto first = text.find_first_not_of(" \t");
  if (first == std::string::npos) return {};
  return text.substr(first, text.find_last_not_of(" \t") - first + 1);
}

}  // namespace

Expected<FeatureGates> parse_feature_gates(const std::string& text, FeatureGates defaults) {
  FeatureGates gates = defaults;
  for (const auto& raw : util::split(text, ',')) {
    const std::string pair = trimmed(raw);
    if (pair.empty()) continue;
    const auto eq = pair.find('=');
    if (eq == std::string::npos) {
      return make_error(ErrorCode::usage,
                        "missing bool value for " + util::quote(pair) + " in --feature-gates");
    }
    const std::string name = trimmed(pair.substr(0, eq));
    const auto value = parse_go_bool(trimmed(pair.substr(eq + 1)));
    if (!value) {
      return make_error(ErrorCode::usage, "invalid value of " + name + "=" +
                                              util::quote(trimmed(pair.substr(eq + 1))) +
                                              " in --feature-gates: use true or false");
    }
    if (name != "TrainJobStatus") return make_error(ErrorCode::usage, "unrecognized feature gate: " + name);
    gates.train_job_status = *value;
  }
  return gates;
}

std::string feature_gates_help() { return "TrainJobStatus=true|false (ALPHA - default=false)"; }

}  // namespace kpt::controller
