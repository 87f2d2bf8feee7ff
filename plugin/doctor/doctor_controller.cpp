#include "plugin/doctor/doctor_controller.hpp"

#include "model/k8s/object_meta.hpp"
#include "plugin/doctor/doctor_gather.hpp"
#include "util/json_access.hpp"
#include "util/strings.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <ctime>

namespace kpt::plugin {

namespace {

using nlohmann::json;

constexpr std::int64_t k_pending_minutes = 5;
constexpr std::int64_t k_stalled_minutes = 15;

/// The value of "--flag=v" or "--flag v" in a Deployment's container args, else `fallback`.
std::string arg_value(const json& deployment, const std::string& flag, const std::string& fallback) {
  std::string out = fallback;
  for (const auto& c : util::array_at(deployment, "spec.template.spec.containers")) {
    const auto& args = util::array_at(c, "args");
    for (std::size_t i = 0; i < args.size(); ++i) {
      if (!args[i].is_string()) continue;
      const auto a = args[i].get<std::string>();
      if (a == flag && i + 1 < args.size() && args[i + 1].is_string()) out = args[i + 1].get<std::string>();
      if (a.rfind(flag + "=", 0) == 0) out = a.substr(flag.size() + 1);
    }
  }
  return out;
}

}  // namespace

std::int64_t seconds_since(const std::string& rfc3339, std::chrono::system_clock::time_point now) {
  int y = 0, mo = 0, d = 0, h = 0, mi = 0, s = 0;
  if (std::sscanf(rfc3339.c_str(), "%4d-%2d-%2dT%2d:%2d:%2d", &y, &mo, &d, &h, &mi, &s) != 6) return -1;
  const std::chrono::sys_days day{std::chrono::year{y} / mo / d};
  const auto at = day + std::chrono::hours{h} + std::chrono::minutes{mi} + std::chrono::seconds{s};
  return std::chrono::duration_cast<std::chrono::seconds>(now - at).count();
}

std::vector<StuckJob> stuck_jobs(const std::vector<json>& jobs, std::chrono::system_clock::time_point now) {
  std::vector<StuckJob> out;
  for (const auto& job : jobs) {
    const auto& conditions = util::array_at(job, "status.conditions");
    std::string phase = "Pending";
    std::int64_t since = seconds_since(model::k8s::meta_string(job, "creationTimestamp"), now);
    std::int64_t limit = k_pending_minutes;
    if (!conditions.empty()) {
      phase = util::string_at(conditions.back(), "type");
      since = seconds_since(util::string_at(conditions.back(), "lastTransitionTime"), now);
      limit = k_stalled_minutes;
      if (phase != "Created" && phase != "Restarting") continue;
    }
    if (since < limit * 60) continue;
    out.push_back({model::k8s::namespace_of(job) + "/" + model::k8s::name_of(job), phase, since / 60});
  }
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.key < b.key; });
  return out;
}

std::vector<std::string> controller_problems(const ControllerHealthInfo& info) {
  std::vector<std::string> out;
  if (info.deployment == CheckState::found && info.ready < std::max<std::int64_t>(1, info.desired)) {
    out.push_back("the controller Deployment " + util::quote(info.where) + " has " +
                  std::to_string(info.ready) + "/" + std::to_string(info.desired) + " ready replicas");
  }
  const bool runs = info.deployment == CheckState::found || !info.lease_key.empty();
  if (runs && info.lease == CheckState::found && !info.lease_live) {
    out.push_back("the controller's Lease " + util::quote(info.lease_key) +
                  (info.holder.empty() ? std::string(" has no holder")
                                       : " was last renewed " + std::to_string(info.renewed_seconds_ago) +
                                             "s ago by " + util::quote(info.holder)) +
                  ": no controller leads");
  }
  if (runs && info.lease == CheckState::not_installed && info.deployment == CheckState::found)
    out.push_back("the controller's Lease " + util::quote(info.lease_key) +
                  " does not exist: no controller ever led");
  for (const auto& s : info.stuck) {
    out.push_back("PyTorchJob " + util::quote(s.key) + " is " + s.phase + " for " +
                  std::to_string(s.minutes) + " minutes" +
                  (s.phase == "Pending" ? ": no controller takes it" : ""));
  }
  return out;
}

ControllerHealthInfo gather_controller_health(kube::ApiClient& api, bool local_cluster,
                                              std::chrono::system_clock::time_point now) {
  ControllerHealthInfo info{
      CheckState::not_installed, "", "", 0, 0, CheckState::not_installed, "", "", "", -1, false,
      CheckState::not_installed, "", {}};
  std::string lease_ns = "default";
  std::string lease_name = "kubectl-pytorch-controller";
  kube::ListOptions by_label;
  by_label.label_selector = "app.kubernetes.io/name=kubectl-pytorch-controller";
  auto deployments = api.list(kube::resources::deployments(), "", by_label);
  if (!deployments) {
    info.deployment = state_of(deployments.error(), info.deployment_message);
  } else if (!deployments->items.empty()) {
    const auto& d = deployments->items.front();
    info.deployment = CheckState::found;
    info.where = model::k8s::namespace_of(d) + "/" + model::k8s::name_of(d);
    info.desired = util::int_at(util::object_at(d, "spec"), "replicas").value_or(1);
    info.ready = util::int_at(util::object_at(d, "status"), "readyReplicas").value_or(0);
    lease_ns = arg_value(d, "--lease-namespace", "default");
    lease_name = arg_value(d, "--lease-name", lease_name);
  }
  if (info.deployment == CheckState::found || local_cluster) {
    info.lease_key = lease_ns + "/" + lease_name;
    auto lease = api.get(kube::resources::leases(), lease_ns, lease_name);
    if (!lease) {
      info.lease = state_of(lease.error(), info.lease_message);
    } else {
      info.lease = CheckState::found;
      const auto& spec = util::object_at(*lease, "spec");
      info.holder = util::string_at(spec, "holderIdentity");
      info.renewed_seconds_ago = seconds_since(util::string_at(spec, "renewTime"), now);
      const auto duration = util::int_at(spec, "leaseDurationSeconds").value_or(15);
      info.lease_live =
          !info.holder.empty() && info.renewed_seconds_ago >= 0 && info.renewed_seconds_ago <= duration;
    }
  }
  kube::ListOptions some;
  some.limit = 500;
  auto jobs = api.list(kube::resources::pytorchjobs(), "", some);
  if (!jobs) {
    info.jobs = state_of(jobs.error(), info.jobs_message);
  } else {
    info.jobs = CheckState::found;
    info.stuck = stuck_jobs(jobs->items, now);
  }
  return info;
}

}  // namespace kpt::plugin
