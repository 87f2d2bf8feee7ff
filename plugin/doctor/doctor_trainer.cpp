#include "plugin/doctor/doctor_trainer.hpp"

#include "model/k8s/object_meta.hpp"
#include "model/trainjob/constants.hpp"
#include "plugin/doctor/doctor_gather.hpp"
#include "schema/trainer_fingerprint.hpp"

#include <algorithm>

namespace kpt::plugin {

namespace {

using model::trainjob::TrainerRelease;
using nlohmann::json;

constexpr const char* k_trainjob_crd = "trainjobs.trainer.kubeflow.org";

std::int64_t num_nodes_of(const json& runtime) {
  const json* p = &runtime;
  for (const char* key : {"spec", "mlPolicy", "numNodes"}) {
    if (!p->is_object() || !p->contains(key)) return 1;
    p = &(*p)[key];
  }
  return p->is_number_integer() ? p->get<std::int64_t>() : 1;
}

}  // namespace

std::optional<TrainerRelease> detected_trainer_release(const TrainerFindings& t) {
  if (t.image_release) return t.image_release;
  if (!t.crd_releases.empty()) return t.crd_releases.back();
  return std::nullopt;
}

std::string trainer_agreement(const TrainerFindings& t) {
  if (t.image_release && !t.crd_releases.empty()) {
    const bool inside =
        std::find(t.crd_releases.begin(), t.crd_releases.end(), *t.image_release) != t.crd_releases.end();
    return inside ? "agree" : "disagree";
  }
  if (t.image_release) return "image";
  if (!t.crd_releases.empty()) return "crd";
  return "unknown";
}

std::vector<ClusterRuntimeInfo> cluster_runtime_infos(const std::vector<json>& items) {
  std::vector<ClusterRuntimeInfo> out;
  for (const auto& item : items) {
    if (!item.is_object()) continue;
    out.push_back({model::k8s::meta_string(item, "name"),
                   model::k8s::label_of(item, model::trainjob::k_label_framework), num_nodes_of(item),
                   model::k8s::label_of(item, model::trainjob::k_label_support) == "deprecated"});
  }
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.name < b.name; });
  return out;
}

TrainerFindings gather_trainer(kube::ApiClient& api, const std::string& version) {
  TrainerFindings t{CheckState::not_installed, "", {}, model::trainjob::parse_trainer_release(version),
                    CheckState::not_installed, "", {}};
  auto crd = api.get(kube::resources::crds(), "", k_trainjob_crd);
  if (!crd) {
    t.crd = state_of(crd.error(), t.crd_message);
    return t;  // no Trainer: its runtimes cannot be listed either
  }
  t.crd = CheckState::found;
  t.crd_releases = schema::trainer_releases_matching_crd(*crd);
  auto runtimes = api.list(kube::resources::clustertrainingruntimes(), "", {});
  if (!runtimes) {
    t.runtimes = state_of(runtimes.error(), t.runtimes_message);
    return t;
  }
  t.runtimes = CheckState::found;
  t.cluster_runtimes = cluster_runtime_infos(runtimes->items);
  return t;
}

}  // namespace kpt::plugin
