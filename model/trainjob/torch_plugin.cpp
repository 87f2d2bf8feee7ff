#include "model/trainjob/torch_plugin.hpp"

#include "model/k8s/object_meta.hpp"
#include "model/k8s/quantity.hpp"
#include "model/trainjob/constants.hpp"
#include "model/trainjob/runtime_ref.hpp"
#include "util/json_access.hpp"
#include "util/strings.hpp"

#include <algorithm>

namespace kpt::model::trainjob {

namespace {

using nlohmann::json;
using util::child;

/// intstr.IntOrString: a JSON number is Int, a string is String.
struct IntOrString {
  bool is_int = false;
  std::int64_t i = 0;
  std::string s = "auto";
  [[nodiscard]] std::string str() const { return is_int ? std::to_string(i) : s; }
};

std::optional<IntOrString> int_or_string(const json* v) {
  if (v == nullptr) return std::nullopt;
  if (v->is_number_integer()) return IntOrString{true, v->get<std::int64_t>(), ""};
  if (v->is_string()) return IntOrString{false, 0, v->get<std::string>()};
  return std::nullopt;
}

/// A resource list is "set" (non-nil in Go) when its key is present and not null.
const json* resource_list(const json* resources, const char* key) {
  const json* list = resources != nullptr ? child(*resources, key) : nullptr;
  return list != nullptr && list->is_object() ? list : nullptr;
}

std::int64_t cpu_of(const json* list) {
  const json* cpu = list != nullptr ? child(*list, "cpu") : nullptr;
  return cpu != nullptr ? k8s::json_quantity_value(*cpu).value_or(0) : 0;
}

/// numGPU: the first gpu-named resource's value (0 when none).
std::int64_t gpu_in(const json* list, bool* ambiguous) {
  if (list == nullptr) return 0;
  std::optional<std::int64_t> found;
  int named = 0;
  for (const auto& [name, quantity] : list->items()) {
    if (util::to_lower(name).find("gpu") == std::string::npos) continue;
    ++named;
    if (!found) found = k8s::json_quantity_value(quantity).value_or(0);
  }
  if (ambiguous != nullptr && named > 1) *ambiguous = true;
  return found.value_or(0);
}

const json* trainjob_resources(const json& trainjob) {
  const json* trainer = trainer_of(trainjob);
  const json* resources = trainer != nullptr ? child(*trainer, "resourcesPerNode") : nullptr;
  return resources != nullptr && resources->is_object() ? resources : nullptr;
}

IntOrString requested_nproc(const json& trainjob, const json& ml_policy, const ReleaseFeatures& f) {
  IntOrString requested;
  if (f.runtime_num_proc_per_node) {
    if (auto v = int_or_string(util::at_path(ml_policy, "torch.numProcPerNode"))) requested = *v;
  }
  const json* trainer = trainer_of(trainjob);
  auto from_trainjob = int_or_string(trainer != nullptr ? child(*trainer, "numProcPerNode") : nullptr);
  if (from_trainjob && (from_trainjob->is_int || f.num_proc_int_or_string)) requested = *from_trainjob;
  return requested;
}

/// v2.0's calculateNumProcPerNode over one resource list.
std::pair<IntOrString, bool> v20_calculate(const IntOrString& fallback, const json* list,
                                           const std::string& mode) {
  if (list == nullptr) return {IntOrString{true, 1, ""}, false};
  bool use_cpu = false;
  if (mode == "auto") {
    use_cpu = true;
    for (const auto& [name, quantity] : list->items()) {
      if (util::to_lower(name).find("gpu") != std::string::npos) use_cpu = false;
    }
  } else if (mode == "cpu") {
    use_cpu = child(*list, "cpu") != nullptr;
  }
  if (!use_cpu) return {fallback, false};
  return {IntOrString{true, std::max<std::int64_t>(1, cpu_of(list)), ""}, true};
}

void decide_v20(NprocDecision& d, const IntOrString& requested, const json* resources) {
  d.value = requested.str();
  d.is_int = requested.is_int;
  if (resources == nullptr) return;
  d.resources_from = "trainer.resourcesPerNode";
  const std::string mode = requested.is_int ? "" : requested.s;
  IntOrString fallback = requested;
  if (mode == "auto") fallback = IntOrString{false, 0, "auto"};
  if (mode == "cpu") fallback = IntOrString{true, 1, ""};
  auto [value, used_cpu] = v20_calculate(fallback, resource_list(resources, "limits"), mode);
  d.cpus = used_cpu ? cpu_of(resource_list(resources, "limits")) : 0;
  if (!used_cpu) {
    std::tie(value, used_cpu) = v20_calculate(fallback, resource_list(resources, "requests"), mode);
    d.cpus = used_cpu ? cpu_of(resource_list(resources, "requests")) : 0;
  }
  d.value = value.str();
  d.is_int = value.is_int;
  d.gpus = gpus_of(*resources, &d.gpu_name_ambiguous);
}

void decide_v21(NprocDecision& d, const IntOrString& requested, const json* resources,
                const ReleaseFeatures& f) {
  static const json k_none = json::object();
  const json& r = resources != nullptr ? *resources : k_none;
  d.gpus = gpus_of(r, &d.gpu_name_ambiguous);
  const json* requests = resource_list(&r, "requests");
  const std::int64_t request_cpu = cpu_of(requests);
  d.cpus = request_cpu != 0 ? request_cpu : cpu_of(resource_list(&r, "limits"));
  const bool cpu_mode = f.accepts_cpu_num_proc && !requested.is_int && requested.s == "cpu";
  if (cpu_mode || (requested.str() == "auto" && d.gpus == 0)) {
    d.value = std::to_string(std::max<std::int64_t>(1, d.cpus));
    d.is_int = true;
  } else {
    d.value = requested.str();
    d.is_int = requested.is_int;
  }
}

}  // namespace

std::int64_t gpus_of(const json& resources, bool* ambiguous) {
  const std::int64_t from_requests = gpu_in(resource_list(&resources, "requests"), ambiguous);
  const std::int64_t from_limits = gpu_in(resource_list(&resources, "limits"), ambiguous);
  return from_requests == 0 && from_limits > 0 ? from_limits : from_requests;
}

NprocDecision decide_nproc(const json& trainjob, const json& ml_policy, const json* runtime_node_resources,
                           TrainerRelease release) {
  const ReleaseFeatures& f = features_of(release);
  NprocDecision d;
  const IntOrString requested = requested_nproc(trainjob, ml_policy, f);
  d.requested = requested.str();
  const json* from_trainjob = trainjob_resources(trainjob);
  if (f.nproc == NprocRule::trainjob_limits_first) {
    decide_v20(d, requested, from_trainjob);
  } else {
    const json* resources = from_trainjob != nullptr ? from_trainjob : runtime_node_resources;
    d.resources_from = from_trainjob != nullptr ? "trainer.resourcesPerNode"
                       : resources != nullptr   ? "runtime"
                                                : "";
    decide_v21(d, requested, resources, f);
  }
  d.runtime_gpu_ignored = from_trainjob != nullptr && runtime_node_resources != nullptr && d.gpus == 0 &&
                          gpus_of(*runtime_node_resources) > 0;
  return d;
}

std::vector<json> pet_env(const std::string& trainjob_name, std::int64_t nnodes, const NprocDecision& nproc,
                          bool with_master) {
  std::vector<json> env = {
      {{"name", "PET_NNODES"}, {"value", std::to_string(nnodes)}},
      {{"name", "PET_NPROC_PER_NODE"}, {"value", nproc.value}},
      {{"name", "PET_NODE_RANK"},
       {"valueFrom", {{"fieldRef", {{"fieldPath", k_completion_index_field_path}}}}}},
  };
  if (with_master) {
    env.push_back({{"name", "PET_MASTER_ADDR"}, {"value", trainjob_name + "-node-0-0." + trainjob_name}});
    env.push_back({{"name", "PET_MASTER_PORT"}, {"value", std::to_string(k_trainer_port)}});
  }
  return env;
}

bool is_torchtune_command(const json& trainjob) {
  const json* command = util::at_path(trainjob, "spec.trainer.command");
  return command != nullptr && *command == json::array({"tune", "run"});
}

std::string torchtune_model(const std::string& runtime_name) {
  const auto fields = util::split(runtime_name, '-');
  if (fields.size() != 3) return "";
  std::string family = fields[1];
  std::replace(family.begin(), family.end(), '.', '_');
  std::string size = fields[2];
  std::transform(size.begin(), size.end(), size.begin(), [](unsigned char c) { return std::toupper(c); });
  return family + "/" + size;
}

}  // namespace kpt::model::trainjob
