#include "local/running_workloads.hpp"

#include "util/json_access.hpp"
#include "util/strings.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <map>

namespace kpt::local {

namespace {

using nlohmann::json;

std::string owner_of(const json& meta, const std::string& ns) {
  const json labels = meta.value("labels", json::object());
  if (const std::string job = util::string_at(labels, "training.kubeflow.org/job-name"); !job.empty())
    return "pytorchjob " + ns + "/" + job;
  if (const std::string job = util::string_at(labels, "jobset.sigs.k8s.io/jobset-name"); !job.empty())
    return "trainjob " + ns + "/" + job;
  for (const auto& ref : meta.value("ownerReferences", json::array())) {
    if (ref.is_object() && ref.value("controller", false))
      return util::to_lower(util::string_at(ref, "kind")) + " " + ns + "/" + util::string_at(ref, "name");
  }
  return "pod " + ns + "/" + util::string_at(meta, "name");
}

}  // namespace

RunningWorkloads running_workloads(const std::vector<nlohmann::json>& pods) {
  std::map<std::string, int> counts;
  RunningWorkloads out;
  for (const auto& pod : pods) {
    if (!pod.is_object()) continue;
    const json meta = pod.value("metadata", json::object());
    const json spec = pod.value("spec", json::object());
    const std::string phase = util::string_at(pod.value("status", json::object()), "phase");
    const bool taken = !util::string_at(spec, "nodeName").empty();
    if (phase != "Running" && !(phase == "Pending" && taken)) continue;
    const std::string ns = util::string_at(meta, "namespace");
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
