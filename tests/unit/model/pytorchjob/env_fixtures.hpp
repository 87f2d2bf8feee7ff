#pragma once
// Small PyTorchJobs shared by the model's tests (written for these tests, not copied).

#include "model/pytorchjob/env.hpp"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace kpt::model::pytorchjob::testing {

/// A PyTorchJob with the given replica counts (0 = no such type) and extra spec fields.
inline nlohmann::json make_job(const std::string& name, int masters, int workers,
                               const nlohmann::json& extra_spec = nlohmann::json::object()) {
  auto replica = [](int n) {
    const nlohmann::json container = {{"name", "pytorch"}, {"image", "busybox"}};
    const nlohmann::json pod_spec = {{"containers", nlohmann::json::array({container})}};
    return nlohmann::json{{"replicas", n}, {"template", {{"spec", pod_spec}}}};
  };
  nlohmann::json job = {{"apiVersion", "kubeflow.org/v1"},
                        {"kind", "PyTorchJob"},
                        {"metadata", {{"name", name}, {"namespace", "team-a"}, {"uid", "uid-1"}}},
                        {"spec", {{"pytorchReplicaSpecs", nlohmann::json::object()}}}};
  if (masters > 0) job["spec"]["pytorchReplicaSpecs"]["Master"] = replica(masters);
  if (workers > 0) job["spec"]["pytorchReplicaSpecs"]["Worker"] = replica(workers);
  for (const auto& [k, v] : extra_spec.items()) job["spec"][k] = v;
  return job;
}

/// "A=1 B=2" for compact golden comparisons (order kept).
inline std::string env_line(const std::vector<EnvVar>& env) {
  std::string out;
  for (const auto& v : env) {
    if (!out.empty()) out += " ";
    out += v.name + "=" + v.value;
  }
  return out;
}

}  // namespace kpt::model::pytorchjob::testing
