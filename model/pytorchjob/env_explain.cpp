// explain_env: the few lines `kubectl pytorch env` prints under its table.
#include "model/pytorchjob/env.hpp"
#include "model/pytorchjob/names.hpp"
#include "model/pytorchjob/rendezvous.hpp"
#include "util/strings.hpp"

namespace kpt::model::pytorchjob {

namespace {

std::string torchrun_flags() {
  return "torchrun --nnodes=$WORLD_SIZE --node_rank=$RANK --master_addr=$MASTER_ADDR "
         "--master_port=$MASTER_PORT";
}

/// The verdict as notes: what happens, then how to fix it.
void add_verdict(const RendezvousVerdict& v, std::vector<std::string>& out) {
  out.push_back(v.message);
  if (!v.fix.empty()) out.push_back("fix: " + v.fix);
}

void explain_operator(const JobSpec& job, const Release& r, std::vector<std::string>& out) {
  const auto input = rendezvous_input(job);
  const auto verdict = judge_rendezvous(input, r);
  const std::string rel = "operator " + r.to_string();
  if (!job.has_master()) {
    if (!verdict) return;  // plan_replica_pods reports the error
    if (verdict->outcome == RendezvousOutcome::works) {
      out.push_back(rel +
                    " sets no MASTER_ADDR, MASTER_PORT, RANK or WORLD_SIZE on a job without a Master "
                    "(kubeflow/trainer#1991)");
    }
    add_verdict(*verdict, out);
    if (input.launch.launcher != Launcher::torchrun) {
      if (job.elastic) {
        out.push_back("the elastic block (PET_RDZV_*) lets a bare 'torchrun train.py' rendezvous at " +
                      input.rdzv_host);
      } else {
        out.push_back("torchrun without flags cannot rendezvous either: no PET_NODE_RANK or PET_MASTER_ADDR");
      }
    }
    if (r.at_least(8)) out.push_back("worker 0 carries the label job-role=master, but no env comes with it");
    return;
  }
  if (!r.at_least(4)) {
    out.push_back("MASTER_ADDR is 'localhost' on the master pod and '" + replica_name(job.name, "master", 0) +
                  "' on the workers");
  }
  if (verdict) add_verdict(*verdict, out);
  if (r.at_least(7)) {
    out.push_back(
        "a bare 'torchrun train.py' works: PET_NNODES, PET_NODE_RANK, PET_MASTER_ADDR, PET_MASTER_PORT "
        "and PET_NPROC_PER_NODE are set");
  } else if (!job.elastic) {
    out.push_back("torchrun needs flags (no PET_* vars in this release): " + torchrun_flags());
  }
  out.push_back(
      "LOCAL_RANK and NODE_RANK are never set by the operator; torchrun sets LOCAL_RANK for its workers");
}

}  // namespace

std::vector<std::string> explain_env(const JobSpec& job, const EnvStyle& style) {
  std::vector<std::string> out;
  if (job.replica_specs.empty()) return out;
  if (style.is_operator()) {
    explain_operator(job, style.release, out);
    return out;
  }
  const int n = job.total_replicas();
  const auto& first = job.replica_specs.front();
  const std::string rank0 = replica_name(job.name, first.type, 0);
  out.push_back("rank 0 is " + util::quote(rank0) + " (" +
                (job.has_master() ? "the Master" : "Worker 0, no Master needed") +
                "): MASTER_ADDR names its Service, MASTER_PORT=" + std::to_string(first.port));
  out.push_back("init_process_group(\"env://\") works with one process per pod: RANK is the pod's rank 0.." +
                std::to_string(n - 1) + ", WORLD_SIZE=" + std::to_string(n));
  if (style.kind == StyleKind::legacy) {
    out.push_back("torchrun needs flags (legacy sets no PET_* vars): " + torchrun_flags());
    return out;
  }
  out.push_back(
      "a bare 'torchrun train.py' works: it reads PET_NNODES, PET_NODE_RANK, PET_MASTER_ADDR, "
      "PET_MASTER_PORT and PET_NPROC_PER_NODE, and sets RANK, LOCAL_RANK and WORLD_SIZE for its workers");
  if (const auto k = numeric_nproc_per_node(job.nproc_per_node.value_or("")); k && *k > 1) {
    out.push_back("nprocPerNode is '" + *job.nproc_per_node +
                  "': RANK and WORLD_SIZE describe one process per pod; "
                  "to run " +
                  std::to_string(*k) + " per pod use torchrun (world size " + std::to_string(n * *k) + ")");
  } else if (!job.nproc_per_node) {
    out.push_back(
        "nprocPerNode is unset: torchrun's 'auto' starts one process per GPU, or per CPU without GPUs; "
        "set spec.nprocPerNode: \"1\" for one");
  }
  return out;
}

}  // namespace kpt::model::pytorchjob
