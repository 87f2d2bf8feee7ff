#include "local/port_admission.hpp"

#include "util/json_access.hpp"

#include <nlohmann/json.hpp>

namespace kpt::local {

namespace {

using nlohmann::json;

std::string group_of(const json& meta, const std::string& ns) {
  const json labels = meta.value("labels", json::object());
  for (const char* label : {"training.kubeflow.org/job-name", "jobset.sigs.k8s.io/jobset-name"}) {
    if (const auto it = labels.find(label); it != labels.end() && it->is_string())
      return ns + "/" + label + "=" + it->get<std::string>();
  }
  for (const auto& ref : meta.value("ownerReferences", json::array())) {
    if (ref.is_object() && ref.value("controller", false)) return "uid=" + util::string_at(ref, "uid");
  }
  return "pod=" + ns + "/" + util::string_at(meta, "name");
}

void add_ports(const json& containers, std::set<int>& out) {
  if (!containers.is_array()) return;
  for (const auto& c : containers) {
    if (!c.is_object()) continue;
    for (const auto& p : c.value("ports", json::array())) {
      if (!p.is_object() || p.value("protocol", "TCP") != "TCP") continue;
      for (const char* field : {"containerPort", "hostPort"}) {
        if (const auto it = p.find(field); it != p.end() && it->is_number_integer()) {
          const auto port = it->get<long long>();
          if (port > 0 && port < 65536) out.insert(static_cast<int>(port));
        }
      }
    }
  }
}

}  // namespace

PortUse port_use(const nlohmann::json& pod) {
  PortUse use;
  const json meta = pod.value("metadata", json::object());
  const std::string ns = meta.value("namespace", "default");
  use.pod = ns + "/" + util::string_at(meta, "name");
  use.group = group_of(meta, ns);
  const json spec = pod.value("spec", json::object());
  add_ports(spec.value("initContainers", json::array()), use.ports);
  add_ports(spec.value("containers", json::array()), use.ports);
  return use;
}

std::optional<PortConflict> find_port_conflict(const PortUse& candidate,
                                               const std::vector<PortUse>& holding) {
  for (const int port : candidate.ports) {
    for (const auto& other : holding) {
      if (other.group != candidate.group && other.ports.count(port) > 0) return PortConflict{port, other.pod};
    }
  }
  return std::nullopt;
}

std::string unschedulable_message(const PortConflict& conflict) {
  return "0/1 nodes are available: 1 node(s) didn't have free ports for the requested pod ports. (local "
         "node: "
         "port " +
         std::to_string(conflict.port) + " is held by pod " + conflict.holder +
         " of another job; local pods share the host's network, so this pod starts when it ends)";
}

}  // namespace kpt::local
