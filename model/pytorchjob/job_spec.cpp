#include "model/pytorchjob/job_spec.hpp"

#include "model/pytorchjob/names.hpp"
#include "util/strings.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>

namespace kpt::model::pytorchjob {

namespace {

using nlohmann::json;

Error field_error(const std::string& path, const std::string& what) {
  return make_error(ErrorCode::parse, path + ": " + what);
}

/// An optional integer field: absent/null is nothing, a non-integer is an error.
Expected<std::optional<int>> optional_int(const json& obj, const char* key, const std::string& path) {
  const auto it = obj.find(key);
  if (it == obj.end() || it->is_null()) return std::optional<int>{};
  if (!it->is_number_integer()) return field_error(path + "." + key, "must be an integer");
  const auto v = it->get<long long>();
  if (v < -2147483648LL || v > 2147483647LL) return field_error(path + "." + key, "out of range");
  return std::optional<int>{static_cast<int>(v)};
}

std::optional<std::string> optional_string(const json& obj, const char* key) {
  const auto it = obj.find(key);
  if (it == obj.end() || it->is_null()) return std::nullopt;
  if (it->is_string()) return it->get<std::string>();
  return it->dump();  // nprocPerNode: 4 (a number) reads as "4", as the user meant
}

/// The operator's setTypeNameToCamelCase: only the two known types are renamed.
std::string canonical_type(const std::string& key) {
  const std::string lower = util::to_lower(key);
  if (lower == "master") return "Master";
  if (lower == "worker") return "Worker";
  return key;
}

int type_order(const std::string& type) {
  if (type == "Master") return 0;
  if (type == "Worker") return 1;
  return 2;
}

std::vector<std::string> container_argv(const json& container) {
  std::vector<std::string> out;
  if (!container.is_object()) return out;
  for (const char* key : {"command", "args"}) {
    const auto list = container.find(key);
    if (list == container.end() || !list->is_array()) continue;
    for (const auto& item : *list) {
      if (item.is_string()) out.push_back(item.get<std::string>());
    }
  }
  return out;
}

Expected<ReplicaSpec> parse_replica(const std::string& key, const json& value) {
  const std::string path = "spec.pytorchReplicaSpecs." + key;
  if (!value.is_object()) return field_error(path, "must be an object");
  ReplicaSpec spec;
  spec.key = key;
  spec.type = canonical_type(key);
  auto replicas = optional_int(value, "replicas", path);
  if (!replicas) return replicas.error();
  if (replicas->has_value()) {
    spec.replicas = **replicas;
    spec.replicas_set = true;
  }
  if (spec.replicas < 0) return field_error(path + ".replicas", "must not be negative");
  if (const auto policy = optional_string(value, "restartPolicy")) spec.restart_policy = *policy;
  const json* containers = nullptr;
  if (const auto t = value.find("template"); t != value.end() && t->is_object()) {
    if (const auto s = t->find("spec"); s != t->end() && s->is_object()) {
      if (const auto c = s->find("containers"); c != s->end() && c->is_array()) containers = &*c;
    }
  }
  if (containers == nullptr) return spec;
  if (!containers->empty()) spec.argv = container_argv(containers->front());
  for (const auto& container : *containers) {
    if (!container.is_object() || container.value("name", json()) != k_container_name) continue;
    spec.has_pytorch_container = true;
    spec.argv = container_argv(container);
    const auto ports = container.find("ports");
    if (ports == container.end() || !ports->is_array()) break;
    for (const auto& port : *ports) {
      if (!port.is_object() || port.value("name", json()) != k_port_name) continue;
      const auto cp = port.find("containerPort");
      if (cp == port.end() || !cp->is_number_integer()) {
        return field_error(path + ".template.spec.containers[pytorch].ports[pytorchjob-port].containerPort",
                           "must be an integer");
      }
      spec.port = cp->get<int>();
      spec.port_set = true;
      break;
    }
    break;
  }
  return spec;
}

Expected<ElasticPolicy> parse_elastic(const json& value) {
  const std::string path = "spec.elasticPolicy";
  if (!value.is_object()) return field_error(path, "must be an object");
  ElasticPolicy e;
  for (auto [key, target] :
       {std::pair{"minReplicas", &e.min_replicas}, std::pair{"maxReplicas", &e.max_replicas},
        std::pair{"rdzvPort", &e.rdzv_port}, std::pair{"nProcPerNode", &e.n_proc_per_node},
        std::pair{"maxRestarts", &e.max_restarts}}) {
    auto v = optional_int(value, key, path);
    if (!v) return v.error();
    *target = *v;
  }
  e.rdzv_backend = optional_string(value, "rdzvBackend");
  e.rdzv_host = optional_string(value, "rdzvHost");
  e.rdzv_id = optional_string(value, "rdzvId");
  if (const auto conf = value.find("rdzvConf"); conf != value.end() && conf->is_array()) {
    for (const auto& kv : *conf) {
      if (!kv.is_object()) continue;
      e.rdzv_conf.emplace_back(optional_string(kv, "key").value_or(""),
                               optional_string(kv, "value").value_or(""));
    }
  }
  if (const auto s = value.find("standalone"); s != value.end() && s->is_boolean())
    e.standalone = s->get<bool>();
  return e;
}

}  // namespace

const ReplicaSpec* JobSpec::find(std::string_view type) const {
  for (const auto& r : replica_specs) {
    if (r.type == type) return &r;
  }
  return nullptr;
}

int JobSpec::total_replicas() const {
  int n = 0;
  for (const auto& r : replica_specs) n += r.replicas;
  return n;
}

Expected<JobSpec> parse_job(const json& job) {
  if (!job.is_object()) return field_error("<job>", "must be an object");
  JobSpec out;
  const json metadata = job.value("metadata", json::object());
  if (!metadata.is_object()) return field_error("metadata", "must be an object");
  const auto name = optional_string(metadata, "name");
  if (!name || name->empty()) return field_error("metadata.name", "required");
  out.name = *name;
  out.namespace_ = optional_string(metadata, "namespace").value_or("");
  out.uid = optional_string(metadata, "uid").value_or("");

  const auto spec = job.find("spec");
  if (spec == job.end() || !spec->is_object()) return field_error("spec", "required");
  const auto replicas = spec->find("pytorchReplicaSpecs");
  if (replicas == spec->end() || !replicas->is_object() || replicas->empty()) {
    return field_error("spec.pytorchReplicaSpecs", "required");
  }
  for (const auto& [key, value] : replicas->items()) {
    auto r = parse_replica(key, value);
    if (!r) return r.error();
    if (out.find(r->type) != nullptr) {
      return field_error("spec.pytorchReplicaSpecs",
                         util::quote(key) + " names the replica type " + util::quote(r->type) + " twice");
    }
    out.replica_specs.push_back(std::move(*r));
  }
  std::stable_sort(out.replica_specs.begin(), out.replica_specs.end(), [](const auto& a, const auto& b) {
    return type_order(a.type) != type_order(b.type) ? type_order(a.type) < type_order(b.type)
                                                    : a.type < b.type;
  });

  out.nproc_per_node = optional_string(*spec, "nprocPerNode");
  if (const auto e = spec->find("elasticPolicy"); e != spec->end() && !e->is_null()) {
    auto elastic = parse_elastic(*e);
    if (!elastic) return elastic.error();
    out.elastic = std::move(*elastic);
    // setElasticPolicy: min and max fill each other, or both come from Worker.replicas.
    auto& ep = *out.elastic;
    if (!ep.min_replicas && ep.max_replicas) ep.min_replicas = ep.max_replicas;
    if (!ep.max_replicas && ep.min_replicas) ep.max_replicas = ep.min_replicas;
    if (!ep.min_replicas && !ep.max_replicas) {
      if (const auto* worker = out.find("Worker")) ep.min_replicas = ep.max_replicas = worker->replicas;
    }
  }
  // setDefaultNprocPerNode (v1.7+): "auto" unless the deprecated elasticPolicy.nProcPerNode is set.
  out.nproc_per_node_defaulted = out.nproc_per_node;
  if (!out.nproc_per_node && (!out.elastic || !out.elastic->n_proc_per_node))
    out.nproc_per_node_defaulted = "auto";
  return out;
}

}  // namespace kpt::model::pytorchjob
