#include "local/running_workloads.hpp"

#include "kube/json_fields.hpp"
#include "util/strings.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <map>

namespace kpt::local {

namespace {

using nlohmann::json;

std::string owner_of(const json& meta, const std::string& ns) {
  const json labels = meta.value("labels", json::object());
  if (const std::string job = kube::string_field(labels, "training.kubeflow.org/job-name"); !job.empty())
    return "pytorchjob " + ns + "/" + job;
  if (const std::string job = kube::string_field(labels, "jobset.sigs.k8s.io/jobset-name"); !job.empty())
    return "trainjob " + ns + "/" + job;
  for (const auto& ref : meta.value("ownerReferences", json::array())) {
    if (ref.is_object() && ref.value("controller", false))
      return util::to_lower(kube::string_field(ref, "kind")) + " " + ns + "/" +
             kube::string_field(ref, "name");
  }
  return "pod " + ns + "/" + kube::string_field(meta, "name");
}

}  // namespace

RunningWorkloads running_workloads(const std::vector<nlohmann::json>& pods) {
  std::map<std::string, int> counts;
  RunningWorkloads out;
  for (const auto& pod : pods) {
    if (!pod.is_object()) continue;
    const json meta = pod.value("metadata", json::object());
    const json spec = pod.value("spec", json::object());
    const std::string phase = kube::string_field(pod.value("status", json::object()), "phase");
    const bool taken = !kube::string_field(spec, "nodeName").empty();
    if (phase != "Running" && !(phase == "Pending" && taken)) continue;
    const std::string ns = kube::string_field(meta, "namespace");
    ++counts[owner_of(meta, ns.empty() ? "default" : ns)];
    const auto grace = spec.find("terminationGracePeriodSeconds");
    const int seconds = grace != spec.end() && grace->is_number_integer() ? grace->get<int>() : 30;
    out.longest_grace_seconds = std::max(out.longest_grace_seconds, seconds);
  }
  for (const auto& [name, n] : counts) {
    const bool alone = name.rfind("pod ", 0) == 0;
    out.lines.push_back(alone ? name : name + " (" + std::to_string(n) + (n == 1 ? " pod)" : " pods)"));
  }
  return out;
}

}  // namespace kpt::local
