#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace kpt::plugin {

/// The API group of an apiVersion: "kubeflow.org" of "kubeflow.org/v1", "" (core) of "v1".
std::string_view group_of(std::string_view api_version);

/// Whether kubectl-pytorch knows every kind of `group` (kubeflow.org, trainer.kubeflow.org,
/// jobset.x-k8s.io, scheduling.volcano.sh), so an unknown kind there is a typo, not a custom resource.
bool is_known_group(std::string_view group);

/// The kinds of a known group, sorted (empty for another group).
const std::vector<std::string>& kinds_of_group(std::string_view group);

/// Why a document that no schema serves is not checked, or why it is wrong.
struct UnservedKind {
  bool typo = false;       ///< a kind the group does not have: an error
  std::string message;     ///< the error, or the reason it was not checked
  std::string suggestion;  ///< the closest kind, "" when none is close
};

/// The verdict on `kind` of `api_version` that no schema of the run serves. `also` adds kinds the
/// run's schemas serve in that group, for the suggestion.
UnservedKind judge_unserved_kind(std::string_view api_version, std::string_view kind,
                                 const std::vector<std::string>& also);

}  // namespace kpt::plugin
