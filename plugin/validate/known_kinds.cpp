// The kinds of the API groups kubectl-pytorch works with. A kind these groups do not have is a
// typo (`PytorchJob`): the API server would answer "no matches for kind", so validate says it
// first instead of skipping the document as someone else's custom resource.
#include "plugin/validate/known_kinds.hpp"

#include "util/strings.hpp"

#include <algorithm>
#include <map>

namespace kpt::plugin {

namespace {

const std::map<std::string, std::vector<std::string>, std::less<>>& known_group_kinds() {
  // Kubeflow's kubeflow.org holds the Training Operator's jobs and the other components' kinds
  // (Katib, Notebooks, Profiles, Pipelines' viewers), all of them real kinds to skip, not typos.
  static const std::map<std::string, std::vector<std::string>, std::less<>> k_kinds = {
      {"kubeflow.org",
       {"Experiment", "JAXJob", "MPIJob", "MXJob", "Notebook", "PaddleJob", "PodDefault", "Profile",
        "PVCViewer", "PyTorchJob", "ScheduledWorkflow", "Suggestion", "TFJob", "Trial", "Viewer",
        "XGBoostJob"}},
      {"trainer.kubeflow.org", {"ClusterTrainingRuntime", "TrainJob", "TrainingRuntime"}},
      {"jobset.x-k8s.io", {"JobSet"}},
      {"scheduling.volcano.sh", {"PodGroup", "Queue"}},
  };
  return k_kinds;
}

}  // namespace

std::string_view group_of(std::string_view api_version) {
  const auto slash = api_version.find('/');
  return slash == std::string_view::npos ? std::string_view{} : api_version.substr(0, slash);
}

bool is_known_group(std::string_view group) { return known_group_kinds().count(group) != 0; }

const std::vector<std::string>& kinds_of_group(std::string_view group) {
  static const std::vector<std::string> k_none;
  const auto& all = known_group_kinds();
  const auto it = all.find(group);
  return it == all.end() ? k_none : it->second;
}

UnservedKind judge_unserved_kind(std::string_view api_version, std::string_view kind,
                                 const std::vector<std::string>& also) {
  const std::string_view group = group_of(api_version);
  std::vector<std::string> kinds = kinds_of_group(group);
  kinds.insert(kinds.end(), also.begin(), also.end());
  std::sort(kinds.begin(), kinds.end());
  kinds.erase(std::unique(kinds.begin(), kinds.end()), kinds.end());
  UnservedKind out;
  const bool known = std::find(kinds.begin(), kinds.end(), kind) != kinds.end();
  if (!known) {
    // Case differences first (PytorchJob), then spelling.
    for (const auto& k : kinds) {
      if (util::to_lower(k) == util::to_lower(kind)) out.suggestion = k;
    }
    if (out.suggestion.empty()) out.suggestion = util::closest_match(kind, kinds).value_or("");
  }
  if (is_known_group(group) && !known) {
    out.typo = true;
    out.message = "unknown kind " + util::quote(kind) + " in group " + std::string(group) +
                  (out.suggestion.empty() ? "" : ": did you mean " + util::quote(out.suggestion) + "?");
    return out;
  }
  out.message = "no schema for " + std::string(api_version) + " " + std::string(kind);
  if (!out.suggestion.empty())
    out.message += " (did you mean " + util::quote(out.suggestion) + "?)";
  else if (!group.empty())
    out.message += ": --crd FILE with its CRD checks it";
  return out;
}

}  // namespace kpt::plugin
