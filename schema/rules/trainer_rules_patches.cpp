// runtimePatches as Trainer's JobSet plugin validates them (kubeflow/trainer v2.3.0
// pkg/runtime/framework/plugins/jobset/jobset.go Validate): the manager must be a domain-prefixed
// path, and a patch may only name replicated jobs and containers the runtime has. The webhook
// reports them all at `spec.runtimePatches`; each finding here points at the entry at fault.
#include "schema/k8s_names.hpp"
#include "schema/rules/rule_helpers.hpp"
#include "schema/rules/trainer_rules.hpp"
#include "util/json_access.hpp"
#include "util/strings.hpp"

#include <algorithm>
#include <set>
#include <string_view>

namespace kpt::schema::rules {

namespace {

namespace tj = model::trainjob;
using nlohmann::json;

// apimachinery's httpPathFmt, the RFC 3986 path characters IsDomainPrefixedPath allows.
constexpr const char* k_http_path_fmt = R"([A-Za-z0-9/\-._~%!$&'()*+,;=:]+)";

/// IsDomainPrefixedPath's first error for `manager`, or "".
std::string manager_error(std::string_view manager) {
  const auto slash = manager.find('/');
  if (slash == std::string_view::npos || slash == 0 || slash + 1 == manager.size())
    return "must be a domain-prefixed path (such as \"acme.io/foo\")";
  const auto host_errors = dns1123_subdomain_errors(manager.substr(0, slash));
  if (!host_errors.empty()) return host_errors.front();
  // The format is one character class repeated: checked character by character, since
  // std::regex recurses per character and a long value would overflow the stack.
  constexpr std::string_view k_path_chars = "/-._~%!$&'()*+,;=:";
  const auto path = manager.substr(slash);
  const bool ok = std::all_of(path.begin(), path.end(), [&](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           k_path_chars.find(c) != std::string_view::npos;
  });
  if (!ok) return std::string("Invalid path (regex used for validation is '") + k_http_path_fmt + "')";
  return "";
}

/// The names of a runtime job's containers and initContainers, as one set (as the webhook keeps them).
std::set<std::string, std::less<>> container_names(const json& rjob) {
  std::set<std::string, std::less<>> out;
  const json& pod = util::object_at(rjob, "template.spec.template.spec");
  for (const char* list : {"initContainers", "containers"}) {
    for (const auto& c : util::array_at(pod, list)) out.insert(util::string_at(c, "name"));
  }
  return out;
}

std::set<std::string, std::less<>> job_names(const json& rjobs) {
  std::set<std::string, std::less<>> out;
  for (const auto& rjob : rjobs) out.insert(util::string_at(rjob, "name"));
  return out;
}

std::string joined(const std::set<std::string, std::less<>>& names) {
  return util::join(std::vector<std::string>(names.begin(), names.end()), ", ");
}

bool env_forbidden(std::string_view container) {
  return container == "node" || container == "dataset-initializer" || container == "model-initializer";
}

struct PatchContext {
  const yaml::Document& doc;
  Diagnostics& out;
};

void check_patch_containers(PatchContext& c, const yaml::Node& pod, const std::string& path,
                            const std::string& rjob, const std::set<std::string, std::less<>>& known) {
  for (const auto& [list, what] :
       {std::pair{"initContainers", "initContainer"}, std::pair{"containers", "container"}}) {
    const yaml::Node* items = pod.find(list);
    if (items == nullptr || !items->is_seq()) continue;
    for (std::size_t k = 0; k < items->items.size(); ++k) {
      const yaml::Node& entry = items->items[k];
      const std::string name(string_value(entry.find("name")));
      const std::string at = path + "." + list + "[" + std::to_string(k) + "]";
      if (known.count(name) == 0) {
        c.out.push_back(make_finding(
            c.doc, pos_or(entry.find("name"), entry.pos), Severity::error, at + ".name",
            "trainer.patch-container",
            std::string("must not have ") + what + " that doesn't exist in the runtime job " + rjob,
            "a patch changes containers the runtime has: " + joined(known)));
      } else if (std::string_view(list) == "containers" && env_forbidden(name) &&
                 entry.find("env") != nullptr) {
        c.out.push_back(
            make_finding(c.doc, entry.find("env")->pos, Severity::error, at + ".env", "trainer.patch-env",
                         "must not have envs for the dataset-initializer, model-initializer, node "
                         "containers",
                         "set the node's env in spec.trainer.env, an initializer's in "
                         "spec.initializer"));
      }
    }
  }
}

}  // namespace

namespace detail {

Diagnostics check_patch_rules(const yaml::Document& doc, const json& runtime) {
  Diagnostics out;
  PatchContext c{doc, out};
  const yaml::Node* patches = doc.root.at_path({"spec", "runtimePatches"});
  if (patches == nullptr || !patches->is_seq()) return out;
  const json& rjobs = util::array_at(runtime, "spec.template.spec.replicatedJobs");
  for (std::size_t i = 0; i < patches->items.size(); ++i) {
    const yaml::Node& patch = patches->items[i];
    const std::string path = "spec.runtimePatches[" + std::to_string(i) + "]";
    if (const yaml::Node* manager = patch.find("manager"); manager != nullptr && manager->is_string()) {
      if (const std::string err = manager_error(manager->text); !err.empty()) {
        out.push_back(
            make_finding(doc, manager->pos, Severity::error, path + ".manager", "trainer.patch-manager", err,
                         "name the patch's owner as <domain>/<name>, e.g. example.io/platform-team"));
      }
    }
    const yaml::Node* jobs = patch.at_path({"trainingRuntimeSpec", "template", "spec", "replicatedJobs"});
    if (jobs == nullptr || !jobs->is_seq()) continue;
    for (std::size_t j = 0; j < jobs->items.size(); ++j) {
      const yaml::Node& job = jobs->items[j];
      const std::string at =
          path + ".trainingRuntimeSpec.template.spec.replicatedJobs[" + std::to_string(j) + "]";
      const std::string name(string_value(job.find("name")));
      const json* rjob = util::find_by(rjobs, "name", name);
      if (rjob == nullptr) {
        out.push_back(make_finding(
            doc, pos_or(job.find("name"), job.pos), Severity::error, at + ".name", "trainer.patch-job",
            "must not have replicated job that doesn't exist in the runtime job template",
            "the runtime's jobs: " + joined(job_names(rjobs))));
        continue;
      }
      if (const yaml::Node* pod = job.at_path({"template", "spec", "template", "spec"}); pod != nullptr)
        check_patch_containers(c, *pod, at + ".template.spec.template.spec", name, container_names(*rjob));
    }
  }
  return out;
}

}  // namespace detail

}  // namespace kpt::schema::rules
