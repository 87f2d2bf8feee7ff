#include "model/pytorchjob/gang.hpp"

#include "model/k8s/quantity.hpp"
#include "model/pytorchjob/desired_state.hpp"
#include "util/json_access.hpp"

#include <nlohmann/json.hpp>

#include <cctype>
#include <cmath>
#include <cstdio>
#include <map>
#include <optional>
#include <vector>

namespace kpt::model::pytorchjob {

namespace {

std::string format_quantity(long double value) {
  char out[48];
  const long double whole = std::round(value);
  if (std::fabs(value - whole) < 1e-9L) {
    std::snprintf(out, sizeof out, "%lld", static_cast<long long>(whole));
  } else {
    std::snprintf(out, sizeof out, "%lldm", static_cast<long long>(std::ceil(value * 1000 - 1e-6L)));
  }
  return out;
}

const nlohmann::json& field(const nlohmann::json& obj, const char* key) {
  static const nlohmann::json k_empty = nlohmann::json::object();
  if (!obj.is_object()) return k_empty;
  const auto it = obj.find(key);
  return it == obj.end() || !it->is_object() ? k_empty : *it;
}

/// One pod's resources: per name, the sum of its containers' requests (a limit where a container
/// has no request for that name).
std::map<std::string, std::string> pod_resources(const nlohmann::json& replica_spec) {
  std::map<std::string, std::string> sum;
  const auto& containers =
      field(field(replica_spec, "template"), "spec").value("containers", nlohmann::json::array());
  for (const auto& c : containers) {
    const auto& res = field(c, "resources");
    std::map<std::string, std::string> own;
    for (const char* kind : {"limits", "requests"}) {  // requests last: they win
      for (const auto& [name, q] : field(res, kind).items())
        own[name] = q.is_string() ? q.get<std::string>() : q.dump();
    }
    for (const auto& [name, q] : own) {
      const auto it = sum.find(name);
      sum[name] = it == sum.end() ? format_quantity(k8s::quantity_base_units(q).value_or(0))
                                  : add_quantities(it->second, q);
    }
  }
  return sum;
}

int replicas_of(const nlohmann::json& replica_spec) {
  return static_cast<int>(util::int_at(replica_spec, "replicas").value_or(1));
}

}  // namespace

std::string add_quantities(std::string_view a, std::string_view b) {
  const auto x = k8s::quantity_base_units(a);
  const auto y = k8s::quantity_base_units(b);
  if (!x || !y) return {};
  return format_quantity(static_cast<long double>(*x) + *y);
}

GangScheduler parse_gang_scheduler(std::string_view flag) {
  if (flag.empty() || flag == "none") return {};
  if (flag == "volcano") return {GangKind::volcano, "volcano"};
  return {GangKind::scheduler_plugins, std::string(flag)};
}

GangScheduler gang_for_job(const nlohmann::json& job, const GangScheduler& flag) {
  if (flag.kind != GangKind::none) return flag;
  const auto& run_policy = field(field(job, "spec"), "runPolicy");
  if (run_policy.contains("schedulingPolicy") && run_policy["schedulingPolicy"].is_object()) {
    return {GangKind::volcano, "volcano"};
  }
  return {};
}

PodGroupApi pod_group_api(GangKind kind) {
  PodGroupApi api;
  if (kind == GangKind::volcano) {
    api.group = "scheduling.volcano.sh";
    api.version = "v1beta1";
  } else {
    api.group = "scheduling.x-k8s.io";
    api.version = "v1alpha1";
  }
  api.crd_name = api.plural + "." + api.group;
  return api;
}

nlohmann::json desired_pod_group(const nlohmann::json& job, const GangScheduler& gang) {
  const auto& meta = field(job, "metadata");
  const auto& policy = field(field(field(job, "spec"), "runPolicy"), "schedulingPolicy");
  const auto& specs = field(field(job, "spec"), "pytorchReplicaSpecs");

  // Replica pods, Master first (the order the operator's priority sort keeps for equal priorities).
  std::vector<const nlohmann::json*> pods;
  int total = 0;
  auto add_type = [&](const nlohmann::json& spec) {
    const int n = replicas_of(spec);
    total += n;
    for (int i = 0; i < n; ++i) pods.push_back(&spec);
  };
  if (specs.contains("Master")) add_type(specs["Master"]);
  for (const auto& [type, spec] : specs.items()) {
    if (type != "Master") add_type(spec);
  }
  int min_member = total;
  if (const auto it = policy.find("minAvailable"); it != policy.end() && it->is_number_integer()) {
    min_member = it->get<int>();
  }

  nlohmann::json spec = {{"minMember", min_member}};
  if (policy.contains("minResources") && policy["minResources"].is_object()) {
    spec["minResources"] = policy["minResources"];
  } else {
    std::map<std::string, std::string> sum;
    for (std::size_t i = 0; i < pods.size() && static_cast<int>(i) < min_member; ++i) {
      for (const auto& [name, q] : pod_resources(*pods[i])) {
        const auto it = sum.find(name);
        sum[name] = it == sum.end() ? q : add_quantities(it->second, q);
      }
    }
    if (!sum.empty()) spec["minResources"] = sum;
  }
  const auto api = pod_group_api(gang.kind);
  if (gang.kind == GangKind::volcano) {
    spec["queue"] = policy.value("queue", std::string{"default"});
    if (policy.contains("priorityClass")) spec["priorityClassName"] = policy["priorityClass"];
  } else if (policy.contains("scheduleTimeoutSeconds")) {
    spec["scheduleTimeoutSeconds"] = policy["scheduleTimeoutSeconds"];
  }
  nlohmann::json pg_meta = {{"name", meta.value("name", std::string{})},
                            {"namespace", meta.value("namespace", std::string{})},
                            {"ownerReferences", nlohmann::json::array({owner_reference(job)})}};
  if (meta.contains("annotations") && meta["annotations"].is_object())
    pg_meta["annotations"] = meta["annotations"];
  return {{"apiVersion", api.group + "/" + api.version},
          {"kind", "PodGroup"},
          {"metadata", pg_meta},
          {"spec", spec}};
}

void decorate_gang_pod(nlohmann::json& pod, const std::string& job_name, const std::string& replica_type,
                       const GangScheduler& gang) {
  if (gang.kind == GangKind::none) return;
  auto& spec = pod["spec"];
  if (spec.value("schedulerName", std::string{}).empty()) spec["schedulerName"] = gang.scheduler_name;
  auto& meta = pod["metadata"];
  if (gang.kind == GangKind::volcano) {
    std::string lower = replica_type;
    for (auto& ch : lower) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    meta["annotations"]["scheduling.k8s.io/group-name"] = job_name;
    meta["annotations"]["volcano.sh/task-spec"] = lower;
  } else {
    meta["labels"]["scheduling.x-k8s.io/pod-group"] = job_name;
  }
}

}  // namespace kpt::model::pytorchjob
