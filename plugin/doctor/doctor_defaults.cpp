#include "plugin/doctor/doctor_defaults.hpp"

#include "kube/rest_client.hpp"
#include "plugin/cluster_client.hpp"
#include "plugin/context.hpp"
#include "util/messages.hpp"
#include "util/strings.hpp"

#include <ostream>

namespace kpt::plugin {

ClusterDefaults consult_cluster(const Context& ctx) {
  ClusterDefaults out;
  auto api = connect_best_effort(ctx);
  if (!api) {
    if (ctx.verbosity > 0) ctx.err << "no cluster: " << api.error().message << "\n";
    return out;
  }
  const auto* rest = dynamic_cast<const kube::RestClient*>(api->get());
  out.server = rest != nullptr ? rest->config().server : std::string{};
  auto detection = detect_release(**api);
  if (!detection) {
    out.unreachable = detection.error().message;
    return out;
  }
  out.detection = std::move(*detection);
  out.api = std::move(*api);
  return out;
}

model::pytorchjob::Release default_release(const ClusterDefaults& cluster, const Context& ctx) {
  if (!cluster.unreachable.empty()) {
    util::print_warning(ctx.err, "cannot reach the cluster at " + util::quote(cluster.server) +
                                     ": using operator release " +
                                     model::pytorchjob::k_newest_release.to_string());
    return model::pytorchjob::k_newest_release;
  }
  if (cluster.detection && cluster.detection->verdict.ours) {
    ctx.err << "using " << cluster.detection->verdict.summary << ", detected in the cluster\n";
    return *cluster.detection->verdict.release;
  }
  if (cluster.detection && cluster.detection->verdict.release) {
    const auto r = *cluster.detection->verdict.release;
    ctx.err << "using operator release " << r.to_string() << " detected in the cluster\n";
    return r;
  }
  return model::pytorchjob::k_newest_release;
}

model::trainjob::TrainerRelease default_trainer_release(const ClusterDefaults& cluster, const Context& ctx) {
  if (cluster.detection && cluster.detection->trainer) {
    const auto r = *cluster.detection->trainer;
    ctx.err << "using Trainer release " << r.to_string() << " detected in the cluster\n";
    return r;
  }
  return model::trainjob::k_newest_trainer_release;
}

bool ours_worker_only(const ClusterDefaults& cluster) {
  return cluster.detection && cluster.detection->verdict.ours &&
         cluster.detection->verdict.ours->style.kind == model::pytorchjob::StyleKind::worker_only;
}

bool is_local_cluster(const ClusterDefaults& cluster) {
  return cluster.detection && cluster.detection->verdict.ours &&
         cluster.detection->verdict.ours->where == k_local_cluster_controller;
}

std::vector<std::string> lints_moot_for(const ClusterDefaults& cluster) {
  if (ours_worker_only(cluster)) return {"lint.worker-only-no-master-env"};
  return {};
}

}  // namespace kpt::plugin
