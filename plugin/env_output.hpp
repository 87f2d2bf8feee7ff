#pragma once

#include "model/pytorchjob/env.hpp"

#include <iosfwd>
#include <string>
#include <vector>

namespace kpt::plugin {

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
