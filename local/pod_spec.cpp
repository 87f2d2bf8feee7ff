#include "local/pod_spec.hpp"

#include "local/pod_validation.hpp"
#include "util/json_access.hpp"
#include "util/strings.hpp"

#include <nlohmann/json.hpp>

namespace kpt::local {

namespace {

using nlohmann::json;

// fieldRef paths as the downward API names them: metadata.labels['app'] and friends.
Expected<std::string> resolve_field_ref(const json& pod, const std::string& path,
                                        const NodeEnvironment& node) {
  const json& meta = pod.value("metadata", json::object());
  const json& spec = pod.value("spec", json::object());
  if (path == "metadata.name") return util::string_at(meta, "name");
  if (path == "metadata.namespace") return util::string_at(meta, "namespace");
  if (path == "metadata.uid") return util::string_at(meta, "uid");
  if (path == "spec.nodeName") return node.node_name;
  if (path == "spec.serviceAccountName") return util::string_at(spec, "serviceAccountName");
  if (path == "status.podIP" || path == "status.hostIP") return node.pod_ip;
  for (const char* map_name : {"labels", "annotations"}) {
    const std::string prefix = std::string("metadata.") + map_name + "['";
    if (path.rfind(prefix, 0) == 0 && path.size() > prefix.size() + 2 &&
        path.substr(path.size() - 2) == "']") {
      const std::string key = path.substr(prefix.size(), path.size() - prefix.size() - 2);
      return util::string_at(meta.value(map_name, json::object()), key.c_str());
    }
  }
  return make_error(ErrorCode::usage, "unsupported fieldRef " + util::quote(path));
}

Expected<ContainerLaunch> plan_container(const json& pod, const json& container, bool init,
                                         const NodeEnvironment& node, const EnvSources& sources) {
  ContainerLaunch launch;
  launch.name = util::string_at(container, "name");
  launch.init = init;
  const std::string where = std::string(init ? "init container " : "container ") + util::quote(launch.name);

  std::map<std::string, std::string> vars;
  std::vector<std::string> order;
  auto set_var = [&](const std::string& k, const std::string& v) {
    if (vars.find(k) == vars.end()) order.push_back(k);
    vars[k] = v;
  };
  set_var("PATH", node.path);
  if (!node.home.empty()) set_var("HOME", node.home);
  // The kubelet's hostname: spec.hostname when set (JobSet pods), else the pod's name.
  const std::string hostname = util::string_at(pod.value("spec", json::object()), "hostname");
  set_var("HOSTNAME",
          !hostname.empty() ? hostname : util::string_at(pod.value("metadata", json::object()), "name"));

  // envFrom first, then env, whose entries win (the kubelet's order).
  if (auto from = apply_env_from(container, sources, set_var); !from) return from.error();
  const std::string ns = util::string_at(pod.value("metadata", json::object()), "namespace");
  const json env = container.value("env", json::array());
  for (std::size_t i = 0; i < env.size(); ++i) {
    const json& e = env[i];
    const std::string name = util::string_at(e, "name");
    if (name.empty()) continue;
    if (!e.contains("valueFrom")) {
      set_var(name, expand_references(util::string_at(e, "value"), vars));
      continue;
    }
    const json& from = e["valueFrom"];
    if (from.contains("fieldRef")) {
      auto value = resolve_field_ref(pod, util::string_at(from["fieldRef"], "fieldPath"), node);
      if (!value)
        return value.error().context(where + ": env[" + std::to_string(i) + "] " + util::quote(name));
      set_var(name, *value);
    } else if (from.contains("configMapKeyRef") || from.contains("secretKeyRef")) {
      auto value = resolve_key_ref(from, ns.empty() ? "default" : ns, sources);
      if (!value) return value.error();
      if (*value) set_var(name, **value);
    } else {
      return make_error(ErrorCode::usage, where + ": env[" + std::to_string(i) + "] " + util::quote(name) +
                                              ": the local node resolves valueFrom.fieldRef, configMapKeyRef "
                                              "and secretKeyRef only");
    }
  }
  if (vars.count("PET_NNODES") != 0) {
    for (const auto& kv : node.torchrun_env) {
      const auto eq = kv.find('=');
      if (vars.count(kv.substr(0, eq)) == 0) set_var(kv.substr(0, eq), kv.substr(eq + 1));
    }
  }
  // Name resolution comes last so a job cannot switch it off by accident.
  if (!node.nss_wrapper_library.empty()) {
    const auto existing = vars.find("LD_PRELOAD");
    set_var("LD_PRELOAD", existing == vars.end() || existing->second.empty()
                              ? node.nss_wrapper_library
                              : node.nss_wrapper_library + ":" + existing->second);
    set_var("NSS_WRAPPER_HOSTS", node.hosts_file);
    set_var("NSS_WRAPPER_MAX_HOSTENTS", "65536");
  }
  for (const auto& k : order) launch.env.push_back(k + "=" + vars[k]);

  for (const char* field : {"command", "args"}) {
    const json list = container.value(field, json::array());
    for (const auto& item : list) {
      if (item.is_string()) launch.argv.push_back(expand_references(item.get<std::string>(), vars));
    }
  }
  auto security = plan_container_security(pod, container, node.user);
  if (!security) return security.error();
  launch.security = std::move(*security);
  if (launch.argv.empty()) {
    return make_error(ErrorCode::usage, where +
                                            " has no command: the local node runs `command` + `args` "
                                            "and cannot run an image's entrypoint");
  }
  // A container's workingDir wins; a relative one is taken from where the pod's commands run
  // otherwise (the manifest's folder for `run --local`, else the node's).
  const std::string wd = util::string_at(container, "workingDir");
  const std::string annotated = util::string_at(
      pod.value("metadata", json::object()).value("annotations", json::object()), k_workdir_annotation);
  const std::string base = !annotated.empty() ? annotated : node.workdir;
  if (wd.empty()) {
    launch.workdir = base;
  } else if (wd.front() == '/' || base.empty()) {
    launch.workdir = wd;
  } else {
    launch.workdir = base + (base.back() == '/' ? "" : "/") + wd;
  }
  return launch;
}

}  // namespace

std::string expand_references(const std::string& text, const std::map<std::string, std::string>& vars) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '$' || i + 1 >= text.size()) {
      out += text[i];
      continue;
    }
    if (text[i + 1] == '$') {  // "$$" is a literal "$"
      out += '$';
      ++i;
      continue;
    }
    if (text[i + 1] == '(') {
      const auto close = text.find(')', i + 2);
      if (close != std::string::npos) {
        const auto it = vars.find(text.substr(i + 2, close - i - 2));
        if (it != vars.end()) {
          out += it->second;
          i = close;
          continue;
        }
      }
    }
    out += text[i];
  }
  return out;
}

Expected<std::vector<ContainerLaunch>> plan_launches(const nlohmann::json& pod, const NodeEnvironment& node,
                                                     const EnvSources& sources) {
  std::vector<ContainerLaunch> out;
  if (auto invalid = invalid_pod_field(pod)) return make_error(ErrorCode::usage, *invalid);
  const json spec = pod.value("spec", json::object());
  for (const char* list : {"initContainers", "containers"}) {
    const bool init = std::string(list) == "initContainers";
    for (const auto& c : spec.value(list, json::array())) {
      auto launch = plan_container(pod, c, init, node, sources);
      if (!launch) return launch.error();
      out.push_back(std::move(*launch));
    }
  }
  if (out.empty()) return make_error(ErrorCode::usage, "pod has no containers");
  return out;
}

}  // namespace kpt::local
