#pragma once

#include <nlohmann/json_fwd.hpp>

#include <optional>
#include <set>
#include <string>
#include <vector>

namespace kpt::local {

/// The ports a pod takes on the local node. Local pods are processes of one host, so they share
/// its network as `hostNetwork: true` pods do on a real node: two jobs that both listen on the
/// master port (23456 for PyTorchJobs, 29500 for TrainJobs) cannot run at once, and the second
/// would join the first one's rendezvous. The node therefore admits a pod as kube-scheduler's
/// NodePorts filter does: only when no running pod of another job declares one of its ports.
struct PortUse {
  std::string group;    ///< pods of one group share the ports (the pods of one job)
  std::string pod;      ///< "namespace/name", for the message
  std::set<int> ports;  ///< TCP containerPort and hostPort values of every container
};

/// The pod's port use: its declared TCP ports, and its group: the job it belongs to
/// (`training.kubeflow.org/job-name` for PyTorchJobs, `jobset.sigs.k8s.io/jobset-name` for
/// TrainJobs), else its controller's uid, else the pod alone.
PortUse port_use(const nlohmann::json& pod);

struct PortConflict {
  int port = 0;
  std::string holder;  ///< the pod that holds it, "namespace/name"
};

/// The first of `candidate`'s ports that a pod of another group in `holding` already takes.
std::optional<PortConflict> find_port_conflict(const PortUse& candidate, const std::vector<PortUse>& holding);

/// kube-scheduler's message for a pod no node has the ports for, with what the local node knows.
std::string unschedulable_message(const PortConflict& conflict);

}  // namespace kpt::local
