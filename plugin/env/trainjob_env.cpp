#include "plugin/env/trainjob_env.hpp"

#include "model/k8s/object_meta.hpp"
#include "model/trainjob/build.hpp"
#include "util/json_access.hpp"
#include "util/strings.hpp"

#include <ostream>

namespace kpt::plugin {

namespace {

using model::pytorchjob::EnvVar;
using model::trainjob::ResolvedEnv;
using nlohmann::json;

std::string shown_value(const ResolvedEnv& e) { return e.resolved ? e.value : "(" + e.source + ")"; }

std::vector<EnvVar> shown_env(const std::vector<ResolvedEnv>& resolved) {
  std::vector<EnvVar> out;
  for (const auto& e : resolved) out.push_back({e.name, shown_value(e)});
  return out;
}

std::string runtime_text(const FoundRuntime& found) {
  const json meta = found.runtime.value("metadata", json::object());
  return found.runtime.value("kind", "ClusterTrainingRuntime") + "/" + util::string_at(meta, "name");
}

std::string master_text(const model::trainjob::EnvPlan& plan) {
  if (plan.master_addr.empty()) return "none";
  return plan.master_addr + ":" + std::to_string(plan.master_port);
}

}  // namespace

Expected<FoundRuntime> find_trainjob_runtime(const json& trainjob,
                                             const model::trainjob::AvailableRuntimes& given,
                                             const RuntimeLookup& cluster,
                                             model::trainjob::TrainerRelease release) {
  using model::trainjob::LookupBy;
  auto found = model::trainjob::resolve_runtime(trainjob, given, LookupBy::controller);
  if (found) return FoundRuntime{std::move(*found), "from the input"};
  if (found.error().code != ErrorCode::not_found) return found.error();
  if (cluster) {
    auto live = cluster(model::trainjob::runtime_ref_of(trainjob));
    if (live) return FoundRuntime{std::move(*live), "from the cluster"};
    if (live.error().code != ErrorCode::not_found) return live.error();
  }
  const auto carried = model::trainjob::with_carried_runtimes({}, release);
  auto shipped = model::trainjob::resolve_runtime(trainjob, carried, LookupBy::controller);
  if (!shipped) return shipped.error();
  return FoundRuntime{std::move(*shipped), "shipped with Trainer " + release.to_string()};
}

std::vector<std::string> trainjob_env_header() { return {"POD", "HOSTNAME", "NODE RANK", "SERVICE"}; }

std::vector<EnvTablePod> trainjob_env_rows(const model::trainjob::EnvPlan& plan) {
  std::vector<EnvTablePod> rows;
  for (const auto& p : plan.pods) {
    rows.push_back({p.hostname,
                    {p.generate_name + "xxxxx", p.hostname, std::to_string(p.index), p.subdomain},
                    shown_env(p.resolved)});
  }
  return rows;
}

std::vector<std::string> trainjob_env_heading(const model::trainjob::EnvPlan& plan,
                                              model::trainjob::TrainerRelease release, const json& trainjob,
                                              const FoundRuntime& runtime) {
  const json meta = trainjob.value("metadata", json::object());
  return {
      "trainjob: " + util::string_at(meta, "namespace") + "/" + util::string_at(meta, "name") + " (Trainer " +
          release.to_string() + ")",
      "runtime: " + runtime_text(runtime) + " " + runtime.from + ", framework " +
          model::trainjob::to_string(plan.build.framework),
      "master: " + master_text(plan),
  };
}

void write_trainjob_env_json(std::ostream& out, const model::trainjob::EnvPlan& plan,
                             model::trainjob::TrainerRelease release, const json& trainjob,
                             const FoundRuntime& runtime) {
  using ordered = nlohmann::ordered_json;  // keys in the documented order
  const json rmeta = runtime.runtime.value("metadata", json::object());
  ordered doc = {{"kind", "TrainJob"},
                 {"name", model::k8s::meta_string(trainjob, "name")},
                 {"trainer", release.to_string()},
                 {"runtime",
                  {{"kind", util::string_at(runtime.runtime, "kind")},
                   {"name", util::string_at(rmeta, "name")},
                   {"from", runtime.from}}},
                 {"framework", model::trainjob::to_string(plan.build.framework)},
                 {"masterAddr", plan.master_addr.empty() ? ordered() : ordered(plan.master_addr)},
                 {"masterPort", plan.master_port == 0 ? ordered() : ordered(plan.master_port)},
                 {"pods", ordered::array()}};
  for (const auto& p : plan.pods) {
    ordered env = ordered::array();
    for (const auto& e : p.resolved) {
      ordered v = {{"name", e.name}, {"value", e.resolved ? ordered(e.value) : ordered()}};
      if (!e.source.empty()) v["valueFrom"] = e.source;
      env.push_back(std::move(v));
    }
    doc["pods"].push_back({{"name", p.generate_name + "xxxxx"},
                           {"generateName", p.generate_name},
                           {"hostname", p.hostname},
                           {"subdomain", p.subdomain},
                           {"index", p.index},
                           {"env", std::move(env)}});
  }
  doc["notes"] = plan.notes;
  out << doc.dump(2) << "\n";
}

std::optional<LivePod> live_trainjob_pod(const json& pod) {
  if (!pod.is_object()) return std::nullopt;
  const json spec = pod.value("spec", json::object());
  const json containers = spec.is_object() ? spec.value("containers", json::array()) : json::array();
  if (!containers.is_array()) return std::nullopt;
  for (const auto& c : containers) {
    if (!c.is_object() || c.value("name", json()) != "node") continue;
    LivePod out;
    out.name = spec.value("hostname", json()).is_string() ? spec["hostname"].get<std::string>() : "";
    out.env = shown_env(model::trainjob::resolve_env(c.value("env", json::array()), pod));
    return out;
  }
  return std::nullopt;
}

}  // namespace kpt::plugin
