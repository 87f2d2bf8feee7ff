// PyTorchJob (kubeflow.org/v1, Training Operator) to TrainJob (trainer.kubeflow.org/v1alpha1):
// what carries over, what changes meaning and what Trainer has no field for.
#include "model/trainjob/from_pytorchjob.hpp"

#include "model/trainjob/json_access.hpp"

#include <algorithm>
#include <array>

namespace kpt::model::trainjob {

namespace {

using nlohmann::json;
using Kind = ConvertNote::Kind;

constexpr const char* k_patch_manager = "kubectl-pytorch.kubeflow.org/convert";
// Pod-level fields a runtime patch can carry (PodSpecPatch, kubeflow/trainer v2.3.0).
constexpr std::array<const char*, 6> k_patchable = {"serviceAccountName", "nodeSelector", "tolerations",
                                                    "affinity",           "volumes",      "imagePullSecrets"};

struct Converter {
  const json& job;
  Conversion out;

  void note(Kind kind, std::string field, std::string text) {
    out.notes.push_back({kind, std::move(field), std::move(text)});
  }
};

const json* pytorch_container(const json& pod_spec) {
  const json* c = detail::find_by(detail::array_at(pod_spec, "containers"), "name", "pytorch");
  const auto& all = detail::array_at(pod_spec, "containers");
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

void convert_container(Converter& c, const json& container, const std::string& path, json& trainer,
                       json& patch) {
  for (const char* key : {"image", "args", "env", "resources"}) {
    const json* v = detail::child(container, key);
    if (v == nullptr) continue;
    const std::string to = std::string(key) == "resources" ? "resourcesPerNode" : key;
    trainer[to] = *v;
    c.note(Kind::carried, path + "." + key, "spec.trainer." + to);
  }
  if (const json* cmd = detail::child(container, "command")) {
    trainer["command"] = torchrun_command(c, *cmd, path + ".command");
    c.note(Kind::carried, path + ".command", "spec.trainer.command");
  }
  if (const json* mounts = detail::child(container, "volumeMounts")) {
    patch["containers"] = json::array({{{"name", "node"}, {"volumeMounts", *mounts}}});
    c.note(Kind::carried, path + ".volumeMounts", "a runtime patch on container node");
  }
  for (const auto& [key, value] : container.items()) {
    if (key == "name" || key == "image" || key == "args" || key == "env" || key == "resources" ||
        key == "command" || key == "volumeMounts")
      continue;
    c.note(Kind::dropped, path + "." + key, "the runtime's container node defines it");
  }
}

void convert_pod(Converter& c, const json& replica, const std::string& path, json& trainer, json& patch) {
  const json& pod_spec = detail::object_at(replica, "template.spec");
  const json* container = pytorch_container(pod_spec);
  if (container != nullptr)
    convert_container(c, *container, path + ".template.spec.containers[pytorch]", trainer, patch);
  for (const char* key : k_patchable) {
    if (const json* v = detail::child(pod_spec, key)) {
      patch[key] = *v;
      c.note(Kind::carried, path + ".template.spec." + key, "a runtime patch on the node pods");
    }
  }
  for (const auto& item : pod_spec.items()) {
    // A named copy: clang 14 does not let a lambda capture a structured binding.
    const std::string& key = item.key();
    if (key == "containers" || std::find_if(k_patchable.begin(), k_patchable.end(),
                                            [&](const char* k) { return key == k; }) != k_patchable.end())
      continue;
    c.note(Kind::dropped, path + ".template.spec." + key,
           "no runtime patch field; set it in a TrainingRuntime");
  }
  if (detail::child(replica, "restartPolicy") != nullptr) {
    c.note(Kind::dropped, path + ".restartPolicy",
           "JobSet's Jobs restart pods OnFailure up to backoffLimit; set failurePolicy in a TrainingRuntime");
  }
}

void convert_run_policy(Converter& c, json& spec) {
  const json& run = detail::object_at(c.job, "spec.runPolicy");
  for (const auto& [key, value] : run.items()) {
    const std::string field = "spec.runPolicy." + key;
    if (key == "activeDeadlineSeconds") {
      spec["activeDeadlineSeconds"] = value;
      c.note(Kind::changed, field,
             "spec.activeDeadlineSeconds (Trainer v2.2+): counted from creation or resume");
    } else if (key == "suspend") {
      spec["suspend"] = value;
      c.note(Kind::carried, field, "spec.suspend");
    } else {
      c.note(Kind::dropped, field,
             key == "cleanPodPolicy"
                 ? "JobSet keeps finished pods until its ttlSecondsAfterFinished (runtime)"
                 : "set it in a TrainingRuntime's JobSet template");
    }
  }
}

/// A runtime patch that applies `pod_spec` to the trainer job's pods.
json node_patch(const json& pod_spec) {
  json job = {{"name", "node"}};
  job["template"]["spec"]["template"]["spec"] = pod_spec;
  json patch = {{"manager", k_patch_manager}};
  patch["trainingRuntimeSpec"]["template"]["spec"]["replicatedJobs"] = json::array({job});
  return patch;
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

Expected<Conversion> convert_pytorchjob(const json& job) {
  Converter c{job, {}};
  const json& replicas = detail::object_at(job, "spec.pytorchReplicaSpecs");
  if (replicas.empty()) return make_error(ErrorCode::invalid, "spec.pytorchReplicaSpecs: required");
  std::int64_t nodes = 0;
  for (const auto& [type, spec] : replicas.items()) {
    if (type != "Master" && type != "Worker")
      return make_error(ErrorCode::invalid, "spec.pytorchReplicaSpecs." + type + ": no TrainJob equivalent");
    const json* r = detail::child(spec, "replicas");
    nodes += r != nullptr && r->is_number_integer() ? r->get<std::int64_t>() : 1;
  }
  json meta = {{"name", detail::name_of(job)}};
  for (const char* key : {"namespace", "labels", "annotations"}) {
    if (const json* v = detail::at_path(job, std::string("metadata.") + key)) meta[key] = *v;
  }
  json trainer = {{"numNodes", nodes}};
  json patch = json::object();
  const bool master = replicas.contains("Master");
  const std::string from = replicas.contains("Worker") ? "Worker" : "Master";
  convert_pod(c, replicas[from], "spec.pytorchReplicaSpecs." + from, trainer, patch);
  if (master && replicas.contains("Worker") &&
      detail::object_at(replicas["Master"], "template") !=
          detail::object_at(replicas["Worker"], "template")) {
    c.note(Kind::changed, "spec.pytorchReplicaSpecs.Master.template",
           "differs from Worker's; a TrainJob has one node template, Worker's is used");
  }
  if (const json* nproc = detail::at_path(job, "spec.nprocPerNode"); nproc != nullptr && nproc->is_string()) {
    const std::string n = nproc->get<std::string>();
    if (!n.empty() && std::all_of(n.begin(), n.end(), [](char ch) { return ch >= '0' && ch <= '9'; })) {
      trainer["numProcPerNode"] = std::stoll(n);
      c.note(Kind::carried, "spec.nprocPerNode", "spec.trainer.numProcPerNode");
    } else {
      c.note(Kind::changed, "spec.nprocPerNode",
             "'" + n + "' is left unset: Trainer's auto counts GPUs, else the CPU requests");
    }
  }
  json spec = {{"runtimeRef", {{"name", "torch-distributed"}}}, {"trainer", trainer}};
  convert_run_policy(c, spec);
  for (const auto& [key, value] : detail::object_at(job, "spec").items()) {
    if (key == "pytorchReplicaSpecs" || key == "runPolicy" || key == "nprocPerNode") continue;
    c.note(Kind::dropped, "spec." + key,
           key == "elasticPolicy" ? "Trainer has no elastic training; numNodes is fixed"
                                  : "not a field the conversion knows; left out");
  }
  if (!patch.empty()) spec["runtimePatches"] = json::array({node_patch(patch)});
  meaning_notes(c, nodes, master);
  c.out.trainjob = {{"apiVersion", "trainer.kubeflow.org/v1alpha1"},
                    {"kind", "TrainJob"},
                    {"metadata", meta},
                    {"spec", spec}};
  return std::move(c.out);
}

}  // namespace kpt::model::trainjob
