#pragma once

#include "model/pytorchjob/env.hpp"

#include <iosfwd>
#include <string>
#include <vector>

namespace kpt::plugin {

/// One pod as the env table shows it: its row in the pod table, the key that heads its column in
/// the variable table (and that --pod and --live match), and its env in pod-spec order.
struct EnvTablePod {
  std::string key;
  std::vector<std::string> cells;  ///< one per header column of the pod table
  std::vector<model::pytorchjob::EnvVar> env;
};

/// The readable table of any kind of job: the pod table (`header`, then each pod's cells), then one row
/// per variable with a column per pod. Variables whose value differs between pods are highlighted
/// (colour) or marked '*'.
void write_env_table(std::ostream& out, const std::vector<std::string>& header,
                     const std::vector<EnvTablePod>& pods, bool colour);

/// NAME=value lines, ready for `env -i $(kubectl pytorch env ... -o dotenv)`.
void write_env_dotenv(std::ostream& out, const std::vector<model::pytorchjob::EnvVar>& env);

/// The env a pod's `pytorch` container ends up with: the user's own vars, then the injected
/// ones, in pod-spec order (duplicates kept; the later entry is the one Kubernetes uses).
std::vector<model::pytorchjob::EnvVar> full_env(const model::pytorchjob::ReplicaPodPlan& pod);

/// The readable table: one row per pod (type, index, rank, service), then one row per variable with a
/// column per pod. Variables whose value differs between pods are highlighted (colour) or marked '*'.
void write_env_table(std::ostream& out, const std::vector<model::pytorchjob::ReplicaPodPlan>& pods,
                     bool colour);

/// {"style": ..., "pods": [{"name", "replicaType", "index", "rank", "service", "env": [{"name", "value"}]}]}
void write_env_json(std::ostream& out, const model::pytorchjob::EnvStyle& style,
                    const std::vector<model::pytorchjob::ReplicaPodPlan>& pods);

/// NAME=value lines for one pod, ready for `env -i $(kubectl pytorch env ... -o dotenv)`.
void write_env_dotenv(std::ostream& out, const model::pytorchjob::ReplicaPodPlan& pod);

/// Notes on the pods themselves (user vars that the style injects again).
std::vector<std::string> duplicate_notes(const std::vector<model::pytorchjob::ReplicaPodPlan>& pods);

}  // namespace kpt::plugin
