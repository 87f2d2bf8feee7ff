#pragma once

#include "local/container_security.hpp"
#include "local/env_sources.hpp"
#include "util/expected.hpp"

#include <nlohmann/json_fwd.hpp>

#include <map>
#include <string>
#include <vector>

namespace kpt::local {

/// Annotation through which `run --local` tells the node where a job's commands run (the
/// manifest's folder); the node's default is used when it is absent.
inline constexpr const char* k_workdir_annotation = "local.kubectl-pytorch.io/workdir";

/// How one container of a pod runs as a local process.
struct ContainerLaunch {
  std::string name;
  bool init = false;
  std::vector<std::string> argv;
  std::vector<std::string> env;  ///< KEY=VALUE, complete
  std::string workdir;
  ContainerSecurity security;  ///< what the node enforces, and what it cannot
};

/// What the node adds to every process: a container-like PATH, and the name resolution
/// that makes Service and pod names answer on loopback.
struct NodeEnvironment {
  std::string path = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";
  std::string home;                 ///< HOME for the processes (the user's)
  std::string nss_wrapper_library;  ///< LD_PRELOAD; empty when not available
  std::string hosts_file;           ///< NSS_WRAPPER_HOSTS
  std::string workdir;  ///< where commands run unless the pod says otherwise (workingDir, annotation)
  std::string node_name = "kubectl-pytorch-local";
  std::string pod_ip = "127.0.0.1";
  /// KEY=VALUE defaults for containers that torchrun is meant for (their env has PET_NNODES) and
  /// that do not set the key themselves: what the local torch needs (torchrun_workaround_env).
  std::vector<std::string> torchrun_env;
  NodeUser user;  ///< who the node runs as: what securityContext it can honour
};

/// The launches of a pod's init containers (in order) then its containers, with env as the
/// kubelet builds it: `envFrom` (ConfigMaps and Secrets of `sources`, with prefixes, optional
/// ones skipped when absent), then the container's `env` in order (later duplicates win),
/// `valueFrom.fieldRef` for metadata.name/namespace/uid/labels['k']/annotations['k'],
/// spec.nodeName, spec.serviceAccountName, status.podIP/hostIP, `configMapKeyRef` and
/// `secretKeyRef`, and `$(VAR)` references expanded in env values, command and args, and each
/// container's security as the node can honour it (plan_container_security). An error (a field
/// the API server would refuse, a missing source or key, a field the node cannot resolve,
/// runAsNonRoot that would run as root) keeps the pod from starting (CreateContainerConfigError).
Expected<std::vector<ContainerLaunch>> plan_launches(const nlohmann::json& pod, const NodeEnvironment& node,
                                                     const EnvSources& sources = {});

/// Kubernetes' `$(VAR)` expansion: defined names are replaced, `$$` escapes, unknown stay as written.
std::string expand_references(const std::string& text, const std::map<std::string, std::string>& vars);

}  // namespace kpt::local
