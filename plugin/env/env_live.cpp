#include "plugin/env/env_live.hpp"

#include "model/trainjob/status_protocol.hpp"
#include "plugin/env/env_output.hpp"
#include "util/json_access.hpp"
#include "util/strings.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <map>

namespace kpt::plugin {

namespace {

constexpr const char* k_value_from = "(valueFrom)";

/// Names in first-seen order with their effective (last) value.
struct EffectiveEnv {
  std::vector<std::string> names;
  std::map<std::string, std::string> values;
};

EffectiveEnv effective_env(const std::vector<model::pytorchjob::EnvVar>& env) {
  EffectiveEnv out;
  for (const auto& v : env) {
    if (out.values.find(v.name) == out.values.end()) out.names.push_back(v.name);
    out.values[v.name] = v.value;
  }
  return out;
}

// The progress protocol's variables come with the controller's TrainJobStatus gate, which the
// env model does not know (docs/progress.md): never an "extra".
bool progress_protocol_var(const std::string& name) {
  return name == model::trainjob::k_env_status_url || name == model::trainjob::k_env_status_ca_cert ||
         name == model::trainjob::k_env_status_token;
}

void compare_pod(const std::string& pod, const EffectiveEnv& want, const EffectiveEnv& have,
                 LiveComparison& out) {
  const auto before = out.lines.size();
  for (const auto& name : want.names) {
    const auto& value = want.values.at(name);
    const auto it = have.values.find(name);
    if (it == have.values.end()) {
      out.lines.push_back("pod " + pod + ": missing " + util::quote(name) + " (expected " +
                          util::quote(value) + ")");
    } else if (it->second != value) {
      out.lines.push_back("pod " + pod + ": " + util::quote(name) + " is " + util::quote(it->second) +
                          ", expected " + util::quote(value));
    }
  }
  for (const auto& name : have.names) {
    if (want.values.count(name) != 0 || progress_protocol_var(name)) continue;
    out.lines.push_back("pod " + pod + ": extra " + util::quote(name) + " = " +
                        util::quote(have.values.at(name)));
  }
  if (out.lines.size() == before)
    out.lines.push_back("pod " + pod + ": env matches");
  else
    out.differs = true;
}

}  // namespace

LivePod live_pod_from_json(const nlohmann::json& pod) {
  LivePod out;
  const auto metadata = pod.value("metadata", nlohmann::json::object());
  out.name = util::string_at(metadata, "name");
  const auto spec = pod.value("spec", nlohmann::json::object());
  const auto containers = spec.value("containers", nlohmann::json::array());
  if (!containers.is_array() || containers.empty()) return out;
  auto container = std::find_if(containers.begin(), containers.end(), [](const nlohmann::json& c) {
    return c.is_object() && util::string_at(c, "name") == "pytorch";
  });
  if (container == containers.end()) container = containers.begin();
  const auto env =
      container->is_object() ? container->value("env", nlohmann::json::array()) : nlohmann::json();
  if (!env.is_array()) return out;
  for (const auto& e : env) {
    if (!e.is_object()) continue;
    model::pytorchjob::EnvVar v{util::string_at(e, "name"), ""};
    if (e.contains("valueFrom"))
      v.value = k_value_from;
    else if (e.contains("value") && e["value"].is_string())
      v.value = e["value"].get<std::string>();
    out.env.push_back(std::move(v));
  }
  return out;
}

LiveComparison compare_live_env(const std::vector<EnvTablePod>& expected, const std::vector<LivePod>& live,
                                const std::string& expected_by) {
  LiveComparison out;
  for (const auto& plan : expected) {
    const auto it =
        std::find_if(live.begin(), live.end(), [&](const LivePod& p) { return p.name == plan.key; });
    if (it == live.end()) {
      out.lines.push_back("pod " + plan.key + ": not found in the cluster");
      out.differs = true;
      continue;
    }
    compare_pod(plan.key, effective_env(plan.env), effective_env(it->env), out);
  }
  for (const auto& pod : live) {
    const bool known = std::any_of(expected.begin(), expected.end(),
                                   [&](const EnvTablePod& p) { return p.key == pod.name; });
    if (known) continue;
    out.lines.push_back("pod " + pod.name + ": not expected by " + expected_by);
    out.differs = true;
  }
  return out;
}

LiveComparison compare_live_env(const std::vector<model::pytorchjob::ReplicaPodPlan>& expected,
                                const std::vector<LivePod>& live) {
  std::vector<EnvTablePod> pods;
  for (const auto& plan : expected) pods.push_back({plan.name, {}, full_env(plan)});
  return compare_live_env(pods, live, "the style");
}

}  // namespace kpt::plugin
