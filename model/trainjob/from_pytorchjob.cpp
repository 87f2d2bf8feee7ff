// PyTorchJob (kubeflow.org/v1, Training Operator) to TrainJob (trainer.kubeflow.org/v1alpha1), and
// a TrainingRuntime when torch-distributed cannot hold the job: what carries over, what changes
// meaning and what Trainer has no field for. The run policy's part is from_pytorchjob_policy.cpp.
#include "model/trainjob/from_pytorchjob.hpp"

#include "model/k8s/object_meta.hpp"
#include "model/trainjob/constants.hpp"
#include "model/trainjob/convert_detail.hpp"
#include "model/trainjob/convert_policy.hpp"
#include "util/json_access.hpp"
#include "util/strings.hpp"

#include <algorithm>

namespace kpt::model::trainjob {

namespace detail {

void Converter::note(Kind kind, std::string field, std::string text) {
  pending.push_back({kind, std::move(field), text, std::move(text)});
}

void Converter::note_runtime_only(Kind kind, std::string field, const std::string& where) {
  pending.push_back({kind, std::move(field), in_runtime(where), ""});
}

void Converter::note_overridable(std::string field, const std::string& where, bool overridable) {
  pending.push_back({Kind::carried, std::move(field), in_runtime(where),
                     overridable ? override_name(release) + " on " + where : ""});
}

std::string Converter::in_runtime(const std::string& where) const {
  return "runtime " + runtime_name + ", " + where;
}

bool Converter::needs_runtime() const {
  return std::any_of(pending.begin(), pending.end(),
                     [](const PendingNote& n) { return n.elsewhere.empty(); });
}

}  // namespace detail

namespace {

using nlohmann::json;
using Kind = ConvertNote::Kind;
using detail::Converter;

constexpr const char* k_operator_port_name = "pytorchjob-port";
constexpr int k_operator_port = 23456;

const json* pytorch_container(const json& pod_spec) {
  const json* c = util::find_by(util::array_at(pod_spec, "containers"), "name", "pytorch");
  const auto& all = util::array_at(pod_spec, "containers");
  return c != nullptr ? c : (all.empty() ? nullptr : &all.front());
}

/// `python X ...` -> `torchrun X ...`: Trainer sets only PET_*, which torchrun turns into RANK etc.
json torchrun_command(Converter& c, const json& command, const std::string& field) {
  if (!command.is_array() || command.empty() || !command[0].is_string()) return command;
  const std::string first = command[0].get<std::string>();
  if (first.rfind("python", 0) != 0 || command.size() < 2) return command;
  json out = command;
  out.erase(out.begin());
  if (out[0] == "-u") out.erase(out.begin());
  out.insert(out.begin(), "torchrun");
  c.note(Kind::changed, field,
         "'" + first +
             " ...' becomes 'torchrun ...': Trainer sets only PET_* variables, and torchrun turns "
             "them into RANK, LOCAL_RANK and WORLD_SIZE");
  return out;
}

/// The operator's rendezvous port, whose meaning the `port 23456` note gives: Trainer adds 29500.
bool operator_port(const json& port) {
  return util::string_at(port, "name") == k_operator_port_name ||
         (port.is_object() && port.value("containerPort", json()) == k_operator_port);
}

void carry_ports(Converter& c, const json& ports, const std::string& field) {
  json kept = json::array();
  bool unnamed = false;
  for (const auto& port : ports.is_array() ? ports : json::array()) {
    if (operator_port(port)) continue;
    unnamed = unnamed || util::string_at(port, "name").empty();
    kept.push_back(port);
  }
  if (ports.is_array() && kept.size() < ports.size())
    c.note(Kind::changed, field, "the operator's port 23456 is left out: Trainer adds port 29500 to node");
  if (kept.empty()) return;
  c.carry.node_container["ports"] = kept;
  // Trainer upserts its unnamed port 29500 by containerPort or by name, and two missing names match.
  c.note_runtime_only(Kind::carried, field,
                      unnamed ? "container node (name the unnamed port: Trainer's unnamed port 29500 "
                                "replaces it)"
                              : "container node");
}

void convert_trainer_field(Converter& c, const std::string& key, const json& value,
                           const std::string& field) {
  if (key == "command") {
    c.trainer["command"] = torchrun_command(c, value, field);
    c.note(Kind::carried, field, "spec.trainer.command");
    return;
  }
  const std::string to = key == "resources" ? "resourcesPerNode" : key;
  c.trainer[to] = value;
  c.note(Kind::carried, field, "spec.trainer." + to);
}

void convert_container(Converter& c, const json& container, const std::string& path) {
  for (const auto& [key, value] : container.items()) {
    const std::string field = path + "." + key;
    switch (container_field_carrier(key, c.release)) {
      case Carrier::trainer:
        convert_trainer_field(c, key, value, field);
        break;
      case Carrier::trainjob_override:
        c.carry.node_container[key] = value;
        c.note_overridable(field, "container node", true);
        break;
      case Carrier::runtime:
        if (key == "ports") {
          carry_ports(c, value, field);
        } else {
          c.carry.node_container[key] = value;
          c.note_runtime_only(Kind::carried, field, "container node");
        }
        break;
      case Carrier::not_carried:
        break;
    }
  }
  if (!container.contains("command") && !c.release.at_least(1)) {
    // v2.0's torch-distributed gives `node` a command that prints its env, which would run instead.
    c.carry.image_entrypoint = true;
    c.note_runtime_only(Kind::carried, path + ".command",
                        "container node without torch-distributed's echo command: the image's entrypoint "
                        "runs");
  }
}

void convert_pod_metadata(Converter& c, const json& replica, const std::string& path) {
  for (const char* key : {"labels", "annotations"}) {
    const json* value = util::at_path(replica, std::string("template.metadata.") + key);
    if (value == nullptr || !value->is_object() || value->empty()) continue;
    c.carry.pod_metadata[key] = *value;
    c.note_overridable(path + ".template.metadata." + key, "the node pods",
                       pod_metadata_overridable(c.release));
  }
}

void not_carried_pod_field(Converter& c, const std::string& key, const std::string& field) {
  if (key == "restartPolicy") {
    c.note(Kind::dropped, field, "the replica's restartPolicy decides, as in the operator");
  } else {
    c.note(Kind::changed, field,
           "JobSet sets it: hostname <job>-node-0-<i>, subdomain <job> (the headless Service)");
  }
}

void convert_pod(Converter& c, const json& replica, const std::string& path) {
  convert_pod_metadata(c, replica, path);
  const json& pod_spec = util::object_at(replica, "template.spec");
  const json* primary = pytorch_container(pod_spec);
  for (const auto& container : util::array_at(pod_spec, "containers")) {
    if (&container == primary) continue;
    c.carry.sidecars.push_back(container);
    c.note_runtime_only(Kind::carried,
                        path + ".template.spec.containers[" + util::string_at(container, "name") + "]",
                        "a container of the node pods beside node (Trainer sets PET_* only in node; the "
                        "operator set its env in every container)");
  }
  if (primary != nullptr) convert_container(c, *primary, path + ".template.spec.containers[pytorch]");
  for (const auto& [key, value] : pod_spec.items()) {
    if (key == "containers") continue;
    const std::string field = path + ".template.spec." + key;
    switch (pod_field_carrier(key, c.release)) {
      case Carrier::trainjob_override:
        c.carry.pod_spec[key] = value;
        c.note_overridable(field, "the node pods", true);
        break;
      case Carrier::runtime:
      case Carrier::trainer:  // never for a pod field
        c.carry.pod_spec[key] = value;
        c.note_runtime_only(Kind::carried, field, "the node pods");
        break;
      case Carrier::not_carried:
        not_carried_pod_field(c, key, field);
        break;
    }
  }
}

void meaning_notes(Converter& c, std::int64_t nodes, bool had_master) {
  c.note(Kind::changed, "spec.pytorchReplicaSpecs",
         std::string(had_master ? "Master and Worker pods" : "Worker pods") + " become " +
             std::to_string(nodes) + " node pods of one Job, node 0 holding the rendezvous");
  c.note(
      Kind::changed, "master Service",
      "<job>-master-0 (or worker-0) becomes PET_MASTER_ADDR <job>-node-0-0.<job>, one headless Service for "
      "all pods");
  c.note(Kind::changed, "port 23456", "the rendezvous port is 29500 (PET_MASTER_PORT)");
  c.note(Kind::changed, "WORLD_SIZE, RANK",
         "not set by Trainer: torchrun computes them (world size = numNodes x numProcPerNode)");
}

std::optional<std::int64_t> numeric_nproc(Converter& c) {
  const json* nproc = util::at_path(c.job, "spec.nprocPerNode");
  if (nproc == nullptr || !nproc->is_string()) return std::nullopt;
  const std::string n = nproc->get<std::string>();
  if (!n.empty() && n.size() < 10 &&
      std::all_of(n.begin(), n.end(), [](char ch) { return ch >= '0' && ch <= '9'; })) {
    c.note(Kind::carried, "spec.nprocPerNode", "spec.trainer.numProcPerNode");
    return std::stoll(n);
  }
  c.note(Kind::changed, "spec.nprocPerNode",
         util::quote(n) + " is left unset: Trainer's auto counts GPUs, else the CPU requests");
  return std::nullopt;
}

ConvertNote resolved(const detail::PendingNote& n, bool runtime) {
  return {n.kind, n.field, runtime ? n.in_runtime : n.elsewhere};
}

}  // namespace

std::string to_string(ConvertNote::Kind kind) {
  switch (kind) {
    case Kind::carried:
      return "carried";
    case Kind::changed:
      return "changed";
    case Kind::dropped:
      return "no equivalent";
  }
  return "carried";
}

Expected<Conversion> convert_pytorchjob(const json& job, TrainerRelease release) {
  const json& replicas = util::object_at(job, "spec.pytorchReplicaSpecs");
  if (replicas.empty()) return make_error(ErrorCode::invalid, "spec.pytorchReplicaSpecs: required");
  std::int64_t nodes = 0;
  for (const auto& [type, spec] : replicas.items()) {
    if (type != "Master" && type != "Worker")
      return make_error(ErrorCode::invalid, "spec.pytorchReplicaSpecs." + type + ": no TrainJob equivalent");
    const json* r = util::child(spec, "replicas");
    nodes += r != nullptr && r->is_number_integer() ? r->get<std::int64_t>() : 1;
  }
  Converter c{job, release, k8s::name_of(job) + "-runtime"};
  c.trainer = {{"numNodes", nodes}};
  json meta = {{"name", k8s::name_of(job)}};
  for (const char* key : {"namespace", "labels", "annotations"}) {
    if (const json* v = util::at_path(job, std::string("metadata.") + key)) meta[key] = *v;
  }
  const bool master = replicas.contains("Master");
  const std::string from = replicas.contains("Worker") ? "Worker" : "Master";
  convert_pod(c, replicas[from], "spec.pytorchReplicaSpecs." + from);
  if (master && replicas.contains("Worker") &&
      util::object_at(replicas["Master"], "template") != util::object_at(replicas["Worker"], "template")) {
    c.note(Kind::changed, "spec.pytorchReplicaSpecs.Master.template",
           "differs from Worker's; a TrainJob has one node template, Worker's is used");
  }
  const std::optional<std::int64_t> nproc = numeric_nproc(c);
  if (nproc) c.trainer["numProcPerNode"] = *nproc;
  json spec = {{"trainer", c.trainer}};
  detail::convert_run_policy(c, replicas[from], "spec.pytorchReplicaSpecs." + from, spec);
  for (const auto& [key, value] : util::object_at(job, "spec").items()) {
    if (key == "pytorchReplicaSpecs" || key == "runPolicy" || key == "nprocPerNode") continue;
    c.note(Kind::dropped, "spec." + key,
           key == "elasticPolicy" ? "Trainer has no elastic training; numNodes is fixed"
                                  : "not a field the conversion knows; left out");
  }
  meaning_notes(c, nodes, master);
  Conversion out;
  const bool runtime = c.needs_runtime();
  if (runtime) {
    spec["runtimeRef"] = {{"name", c.runtime_name}, {"kind", k_kind_training_runtime}};
    out.runtime =
        training_runtime(c.runtime_name, util::string_at(meta, "namespace"), c.carry, nodes, nproc, release);
  } else {
    spec["runtimeRef"] = {{"name", "torch-distributed"}};
    if (json o = node_override(c.carry, release); !o.is_null()) spec[override_field(release)] = std::move(o);
  }
  out.trainjob = {
      {"apiVersion", k_api_version}, {"kind", k_kind_trainjob}, {"metadata", meta}, {"spec", spec}};
  for (const auto& n : c.pending) out.notes.push_back(resolved(n, runtime));
  return out;
}

}  // namespace kpt::model::trainjob
