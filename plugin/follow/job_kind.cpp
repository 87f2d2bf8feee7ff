#include "plugin/follow/job_kind.hpp"

#include "util/json_access.hpp"
#include "util/strings.hpp"

#include <nlohmann/json.hpp>

#include <array>
#include <optional>
#include <string_view>

namespace kpt::plugin {

namespace {

using nlohmann::json;

// Both kinds, in the order a bare name is looked up.
std::array<const JobKind*, 2> all_kinds() { return {&pytorchjob_kind(), &trainjob_kind()}; }

// "pytorchjob", "pytorchjobs", "pytorchjob.kubeflow.org" and "PyTorchJob" all name the kind.
bool names_kind(const JobKind& kind, std::string_view word) {
  const std::string w = util::to_lower(std::string(word));
  const std::string singular = kind.singular;
  return w == singular || w == singular + "s" || w == kind.resource_name ||
         w == singular + "s." + kind.resource().group;
}

Expected<FoundJob> get_as(kube::ApiClient& api, const JobKind& kind, const std::string& ns,
                          const std::string& name) {
  auto got = api.get(kind.resource(), ns, name);
  if (!got) return got.error();
  return FoundJob{&kind, std::move(*got)};
}

}  // namespace

const JobKind& pytorchjob_kind() {
  static const JobKind k{"PyTorchJob",
                         "pytorchjob",
                         "pytorchjob.kubeflow.org",
                         &kube::resources::pytorchjobs,
                         "training.kubeflow.org/job-name",
                         "Succeeded",
                         "Failed"};
  return k;
}

const JobKind& trainjob_kind() {
  // JobSet labels every pod with its JobSet's name, which is the TrainJob's.
  static const JobKind k{"TrainJob",
                         "trainjob",
                         "trainjob.trainer.kubeflow.org",
                         &kube::resources::trainjobs,
                         "jobset.sigs.k8s.io/jobset-name",
                         "Complete",
                         "Failed"};
  return k;
}

const JobKind* kind_of(const json& object) {
  if (!object.is_object()) return nullptr;
  const std::string kind = util::string_at(object, "kind");
  for (const JobKind* k : all_kinds()) {
    if (kind == k->kind) return k;
  }
  return nullptr;
}

std::string resource_name(const JobKind& kind, const std::string& name) {
  return std::string(kind.resource_name) + "/" + name;
}

bool is_finished(const JobKind& kind, const json& job) {
  for (const auto& c : job.value("/status/conditions"_json_pointer, json::array())) {
    const auto type = util::string_at(c, "type");
    if ((type == kind.success_condition || type == kind.failure_condition) &&
        util::string_at(c, "status") == "True")
      return true;
  }
  return false;
}

Expected<FoundJob> find_job(kube::ApiClient& api, const std::string& ns, const std::string& ref) {
  if (const auto slash = ref.find('/'); slash != std::string::npos) {
    const std::string word = ref.substr(0, slash);
    for (const JobKind* k : all_kinds()) {
      if (names_kind(*k, word)) return get_as(api, *k, ns, ref.substr(slash + 1));
    }
    return make_error(ErrorCode::usage, "unknown kind " + util::quote(word) + " in " + util::quote(ref) +
                                            " (use pytorchjob/NAME or trainjob/NAME)");
  }
  std::optional<FoundJob> found;
  for (const JobKind* k : all_kinds()) {
    auto got = get_as(api, *k, ns, ref);
    // A kind the cluster does not serve answers 404 too: only the other kind can match.
    if (!got && kube::is_not_found(got.error())) continue;
    if (!got) return got.error();
    if (found) {
      return make_error(ErrorCode::usage, "both a pytorchjob and a trainjob are named " + util::quote(ref) +
                                              ": say pytorchjob/" + ref + " or trainjob/" + ref);
    }
    found = std::move(*got);
  }
  if (!found) {
    return make_api_error(
        404, "NotFound",
        "no pytorchjob or trainjob named " + util::quote(ref) + " in namespace " + util::quote(ns));
  }
  return std::move(*found);
}

Expected<kube::ListResult> list_job_pods(kube::ApiClient& api, const JobKind& kind, const std::string& ns,
                                         const std::string& name) {
  kube::ListOptions opts;
  opts.label_selector = std::string(kind.pod_label) + "=" + name;
  return api.list(kube::resources::pods(), ns, opts);
}

}  // namespace kpt::plugin
