#include "model/k8s/object_meta.hpp"
#include "model/trainjob/constants.hpp"
#include "model/trainjob/env_plan.hpp"
#include "model/trainjob/jobset_children.hpp"
#include "util/json_access.hpp"
#include "util/strings.hpp"

namespace kpt::model::trainjob {

namespace {

using nlohmann::json;

std::string trainer_job_name(const json& jobset) {
  for (const auto& rjob : util::array_at(jobset, "spec.replicatedJobs")) {
    if (k8s::label_of(util::object_at(rjob, "template"), k_label_ancestor) == k_ancestor_trainer) {
      return util::string_at(rjob, "name");
    }
  }
  return "";
}

void explain_nproc(std::vector<std::string>& notes, const BuildResult& b, TrainerRelease release) {
  const NprocDecision& n = *b.nproc;
  const std::string nnodes = std::to_string(b.num_nodes);
  if (n.is_int) {
    notes.push_back("world size = PET_NNODES x PET_NPROC_PER_NODE = " + nnodes + " x " + n.value + " = " +
                    std::to_string(b.num_nodes * std::stoll(n.value)));
  } else {
    notes.push_back("world size = PET_NNODES x the processes torchrun starts per node = " + nnodes + " x N");
  }
  if (n.value == "auto") {
    notes.push_back(
        n.gpus > 0 ? "PET_NPROC_PER_NODE=auto because the resources declare " + std::to_string(n.gpus) +
                         " GPU(s): torchrun starts one process per visible GPU"
                   : "PET_NPROC_PER_NODE=auto: torchrun starts one process per visible GPU, or one per CPU "
                     "core of the host when it sees none (release " +
                         release.to_string() + " passes auto through without resourcesPerNode)");
  } else if (n.is_int && n.requested == "auto") {
    notes.push_back("PET_NPROC_PER_NODE=" + n.value + ": numProcPerNode is auto and " +
                    (n.resources_from.empty() ? std::string("no resources are declared")
                                              : n.resources_from + " declares no GPU") +
                    ", so Trainer counts CPUs: max(1, " + std::to_string(n.cpus) + ") rounded up");
  }
  if (n.runtime_gpu_ignored) {
    notes.push_back(
        "warning: the runtime's node container requests a GPU but trainer.resourcesPerNode does not: Trainer "
        "reads only the TrainJob's resources, so PET_NPROC_PER_NODE=" +
        n.value + " instead of auto" +
        (features_of(release).resources == ResourcesMode::replace
             ? " (and " + release.to_string() + " replaces the runtime's resources, so the pod gets no GPU)"
             : ""));
  }
}

void explain_master(std::vector<std::string>& notes, const json& trainjob, const BuildResult& b) {
  const std::string name = k8s::name_of(trainjob);
  const std::string master = name + "-node-0-0." + name;
  const std::string subdomain = jobset_subdomain(b.jobset);
  notes.push_back("PET_MASTER_ADDR " + master + " is the hostname of node 0 in the headless Service " +
                  util::quote(subdomain) + "; the short name resolves only inside namespace " +
                  util::quote(k8s::namespace_of(trainjob)));
  if (subdomain != name) {
    notes.push_back("warning: PET_MASTER_ADDR is hard-coded to " + master +
                    " and ignores network.subdomain '" + subdomain + "': it will not resolve");
  }
  if (const std::string job = trainer_job_name(b.jobset); !job.empty() && job != k_node) {
    notes.push_back("warning: PET_MASTER_ADDR names the replicated job 'node' but the trainer job is '" +
                    job + "': it will not resolve");
  }
}

}  // namespace

std::vector<std::string> explain_env(const json& trainjob, const BuildResult& b, TrainerRelease release) {
  std::vector<std::string> notes;
  const bool has_trainer = util::at_path(trainjob, "spec.trainer") != nullptr;
  switch (b.framework) {
    case Framework::torch:
    case Framework::torchtune:
      if (!has_trainer) {
        notes.push_back(
            "spec.trainer is absent: Trainer injects no PET_* variables and no port into container node");
        break;
      }
      notes.push_back(
          "torchrun, not Trainer, sets RANK, LOCAL_RANK and WORLD_SIZE for each process it starts, from "
          "these PET_* variables; a plain `python train.py` sees none of them");
      explain_nproc(notes, b, release);
      if (b.framework == Framework::torchtune) {
        notes.push_back(
            "`tune run`: no PET_MASTER_* variables; the rendezvous endpoint, recipe and config are appended "
            "to the command instead");
      } else {
        explain_master(notes, trainjob, b);
      }
      break;
    case Framework::jax:
      notes.push_back(
          "JAX: JAX_NUM_PROCESSES = nodes = " + std::to_string(b.num_nodes) +
          ", JAX_PROCESS_ID = the completion index, JAX_COORDINATOR_ADDRESS = node 0 on port 29500");
      break;
    case Framework::xgboost:
      notes.push_back(
          "XGBoost: DMLC_NUM_WORKER = nodes x (GPUs per node, or 1), DMLC_TASK_ID = the completion index, "
          "the tracker on node 0 port 29500");
      break;
    case Framework::plain:
      notes.push_back("no framework policy: Trainer injects no distributed env, only the TrainJob's env");
      break;
    case Framework::mpi:
    case Framework::flux:
      notes.push_back("the " + to_string(b.framework) + " plugin's env is not modelled");
      break;
  }
  notes.push_back("JOB_COMPLETION_INDEX is added by the Job controller; it equals the node rank k");
  for (const auto& n : b.notes) notes.push_back(n);
  return notes;
}

}  // namespace kpt::model::trainjob
