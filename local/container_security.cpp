#include "local/container_security.hpp"

#include "apiserver/go_decode_error.hpp"
#include "model/k8s/object_meta.hpp"
#include "model/k8s/quantity.hpp"
#include "util/json_access.hpp"
#include "util/strings.hpp"

#include <nlohmann/json.hpp>

#include <array>
#include <string_view>

namespace kpt::local {

namespace {

using nlohmann::json;

std::optional<std::int64_t> int_field(const json& object, const char* key) {
  const json& v = util::member(object, key);
  if (!v.is_number_integer()) return std::nullopt;
  return v.get<std::int64_t>();
}

std::optional<bool> bool_field(const json& object, const char* key) {
  const json& v = util::member(object, key);
  if (!v.is_boolean()) return std::nullopt;
  return v.get<bool>();
}

/// The container's value of a securityContext field, else the pod's (the kubelet's
/// DetermineEffectiveSecurityContext).
template <typename Get>
auto effective(const json& pod_sc, const json& container_sc, const char* key, Get get) {
  if (auto v = get(container_sc, key)) return v;
  return get(pod_sc, key);
}

/// format.Pod: "name_namespace(uid)".
std::string pod_label(const json& pod) {
  const json& meta = util::member(pod, "metadata");
  const std::string ns = util::string_at(meta, "namespace");
  return util::string_at(meta, "name") + "_" + (ns.empty() ? "default" : ns) + "(" +
         util::string_at(meta, "uid") + ")";
}

constexpr std::array<std::string_view, 41> k_capabilities = {"CHOWN",
                                                             "DAC_OVERRIDE",
                                                             "DAC_READ_SEARCH",
                                                             "FOWNER",
                                                             "FSETID",
                                                             "KILL",
                                                             "SETGID",
                                                             "SETUID",
                                                             "SETPCAP",
                                                             "LINUX_IMMUTABLE",
                                                             "NET_BIND_SERVICE",
                                                             "NET_BROADCAST",
                                                             "NET_ADMIN",
                                                             "NET_RAW",
                                                             "IPC_LOCK",
                                                             "IPC_OWNER",
                                                             "SYS_MODULE",
                                                             "SYS_RAWIO",
                                                             "SYS_CHROOT",
                                                             "SYS_PTRACE",
                                                             "SYS_PACCT",
                                                             "SYS_ADMIN",
                                                             "SYS_BOOT",
                                                             "SYS_NICE",
                                                             "SYS_RESOURCE",
                                                             "SYS_TIME",
                                                             "SYS_TTY_CONFIG",
                                                             "MKNOD",
                                                             "LEASE",
                                                             "AUDIT_WRITE",
                                                             "AUDIT_CONTROL",
                                                             "SETFCAP",
                                                             "MAC_OVERRIDE",
                                                             "MAC_ADMIN",
                                                             "SYSLOG",
                                                             "WAKE_ALARM",
                                                             "BLOCK_SUSPEND",
                                                             "AUDIT_READ",
                                                             "PERFMON",
                                                             "BPF",
                                                             "CHECKPOINT_RESTORE"};

std::vector<std::string> string_list(const json& list) {
  std::vector<std::string> out;
  if (!list.is_array()) return out;
  for (const auto& item : list)
    if (item.is_string()) out.push_back(item.get<std::string>());
  return out;
}

void plan_capabilities(const json& caps, const NodeUser& node, ContainerSecurity& out) {
  if (const auto add = string_list(util::member(caps, "add")); !add.empty()) {
    out.not_enforced.push_back("securityContext.capabilities.add [" + util::join(add, " ") +
                               "] is not granted: processes have the local node's own capabilities");
  }
  const auto drop = string_list(util::member(caps, "drop"));
  if (drop.empty() || node.uid != 0) return;  // a node that is not root gives processes none
  std::vector<std::string> unknown;
  for (const auto& name : drop) {
    if (name == "ALL" || name == "all") {
      for (int cap = 0; cap < static_cast<int>(k_capabilities.size()); ++cap)
        out.drop_capabilities.push_back(cap);
    } else if (const auto cap = capability_number(name)) {
      out.drop_capabilities.push_back(*cap);
    } else {
      unknown.push_back(name);
    }
  }
  if (!unknown.empty())
    out.not_enforced.push_back("securityContext.capabilities.drop [" + util::join(unknown, " ") +
                               "]: unknown capabilities are not dropped");
}

void plan_identity(const json& pod_sc, const json& sc, const NodeUser& node, ContainerSecurity& out) {
  const auto run_as_user = effective(pod_sc, sc, "runAsUser", int_field);
  const auto run_as_group = effective(pod_sc, sc, "runAsGroup", int_field);
  std::vector<unsigned> groups;
  for (const auto& g : util::member(pod_sc, "supplementalGroups"))
    if (g.is_number_integer() && g.get<std::int64_t>() >= 0) groups.push_back(g.get<unsigned>());
  if (const auto fs_group = int_field(pod_sc, "fsGroup"); fs_group && *fs_group >= 0)
    groups.push_back(static_cast<unsigned>(*fs_group));
  if (node.uid == 0) {
    if (!run_as_user && !run_as_group && groups.empty()) return;
    out.set_identity = true;
    out.uid = run_as_user ? static_cast<unsigned>(*run_as_user) : 0U;
    std::optional<unsigned> gid;
    if (run_as_group) gid = static_cast<unsigned>(*run_as_group);
    if (!gid && run_as_user && node.primary_group) gid = node.primary_group(out.uid);
    out.gid = gid.value_or(out.uid);
    out.groups = std::move(groups);
    return;
  }
  const std::string why = ": the local node runs every process as uid " + std::to_string(node.uid) +
                          " (only a node that runs as root can switch users)";
  if (run_as_user && *run_as_user != static_cast<std::int64_t>(node.uid))
    out.not_enforced.push_back("securityContext.runAsUser " + std::to_string(*run_as_user) +
                               " is not honoured" + why);
  if (run_as_group && *run_as_group != static_cast<std::int64_t>(node.gid))
    out.not_enforced.push_back("securityContext.runAsGroup " + std::to_string(*run_as_group) +
                               " is not honoured" + why);
  if (!groups.empty()) out.not_enforced.push_back("supplementalGroups and fsGroup are not honoured" + why);
}

void plan_limits(const json& container, ContainerSecurity& out) {
  const json& limits = util::member(util::member(container, "resources"), "limits");
  if (!limits.is_object()) return;
  for (const auto& [name, value] : limits.items()) {
    if (name == "memory") {
      if (const auto bytes = model::k8s::json_quantity_value(value); bytes && *bytes > 0)
        out.memory_limit = static_cast<std::uint64_t>(*bytes);
      continue;
    }
    const std::string shown = value.is_string() ? value.get<std::string>() : value.dump();
    out.not_enforced.push_back("resources.limits." + name + " " + shown +
                               " is not enforced: the local node has no cgroup for its pods" +
                               (name == "cpu" ? "" : " and shares every device of the host"));
  }
}

}  // namespace

std::optional<int> capability_number(const std::string& name) {
  std::string_view n = name;
  if (n.substr(0, 4) == "CAP_") n.remove_prefix(4);
  for (std::size_t i = 0; i < k_capabilities.size(); ++i)
    if (k_capabilities[i] == n) return static_cast<int>(i);
  return std::nullopt;
}

Expected<ContainerSecurity> plan_container_security(const json& pod, const json& container,
                                                    const NodeUser& node) {
  const json& pod_sc = util::member(util::member(pod, "spec"), "securityContext");
  const json& sc = util::member(container, "securityContext");
  const std::string where = " (pod: " + apiserver::go_quote(pod_label(pod)) +
                            ", container: " + util::string_at(container, "name") + ")";
  const auto run_as_user = effective(pod_sc, sc, "runAsUser", int_field);
  if (effective(pod_sc, sc, "runAsNonRoot", bool_field).value_or(false)) {
    // The kubelet's verifyRunAsNonRoot, with the node's own user as the image's.
    if (run_as_user && *run_as_user == 0)
      return make_error(ErrorCode::usage, "container's runAsUser breaks non-root policy" + where);
    if (!run_as_user && node.uid == 0)
      return make_error(ErrorCode::usage, "container has runAsNonRoot and image will run as root" + where);
  }
  ContainerSecurity out;
  plan_identity(pod_sc, sc, node, out);
  if (bool_field(sc, "allowPrivilegeEscalation") == std::optional<bool>(false)) out.no_new_privs = true;
  if (bool_field(sc, "privileged").value_or(false))
    out.not_enforced.push_back(
        "securityContext.privileged is not honoured: processes run with the local node's "
        "own privileges");
  plan_capabilities(util::member(sc, "capabilities"), node, out);
  if (bool_field(sc, "readOnlyRootFilesystem").value_or(false))
    out.not_enforced.push_back(
        "securityContext.readOnlyRootFilesystem is not enforced: there is no image "
        "filesystem, processes see the host's files with the node user's rights");
  plan_limits(container, out);
  return out;
}

std::vector<std::string> pod_not_enforced(const json& pod, const std::set<std::string>& written_volumes) {
  std::vector<std::string> out;
  const json& spec = util::member(pod, "spec");
  for (const auto& volume : util::member(spec, "volumes")) {
    const std::string name = util::string_at(volume, "name");
    if (written_volumes.count(name) != 0) continue;
    std::vector<std::string> mounts;
    for (const char* list : {"initContainers", "containers"}) {
      for (const auto& c : util::member(spec, list)) {
        for (const auto& m : util::member(c, "volumeMounts"))
          if (util::string_at(m, "name") == name)
            mounts.push_back(util::quote(util::string_at(m, "mountPath")));
      }
    }
    std::string kind = "volume";
    if (const json& host = util::member(volume, "hostPath"); host.is_object()) {
      kind = "hostPath " + util::quote(util::string_at(host, "path"));
    } else if (volume.is_object()) {
      for (const auto& [key, value] : volume.items())
        if (key != "name" && value.is_object()) kind = key;
    }
    out.push_back("volume " + util::quote(name) + " (" + kind + ") is not mounted" +
                  (mounts.empty() ? std::string() : " at " + util::join(mounts, ", ")) +
                  ": local pods see the host's filesystem at its own paths");
  }
  return out;
}

}  // namespace kpt::local
