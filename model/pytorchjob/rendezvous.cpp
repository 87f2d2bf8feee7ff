#include "model/pytorchjob/rendezvous.hpp"

#include "model/pytorchjob/names.hpp"
#include "util/strings.hpp"

namespace kpt::model::pytorchjob {

namespace {

RendezvousVerdict works(std::string message) {
  return {RendezvousOutcome::works, {}, std::move(message), {}};
}

/// No Master: from v1.4 the operator sets no MASTER_ADDR, MASTER_PORT, RANK or WORLD_SIZE, and
/// PET_MASTER_ADDR/PET_NODE_RANK neither; only the elastic block (PET_RDZV_*) gives torchrun a place.
RendezvousVerdict worker_only(const RendezvousInput& in, const Release& r) {
  const auto& launch = in.launch;
  if (launch.launcher == Launcher::torchrun) {
    if (in.elastic) {
      return works("the elastic block (PET_RDZV_*) lets " + util::quote(launch.shown) + " rendezvous at " +
                   in.rdzv_host + "; init_process_group(\"env://\") works in the processes it starts");
    }
    if (launch.names_rendezvous) {
      return works(util::quote(launch.shown) +
                   " names its own rendezvous; init_process_group(\"env://\") works in the processes it "
                   "starts");
    }
    if (in.workers < 2) {
      return works("one node: " + util::quote(launch.shown) +
                   " rendezvous on the pod itself; init_process_group(\"env://\") works in the processes it "
                   "starts");
    }
    return {
        RendezvousOutcome::may_fail, "lint.worker-only-no-master-env",
        "worker-only job without elasticPolicy: operator " + r.to_string() +
            " injects no PET_MASTER_ADDR or PET_NODE_RANK, so torchrun on every pod takes node rank 0 and "
            "rendezvous at 127.0.0.1 and the pods never form one job",
        "add a Master replica (replicas: 1), or set spec.elasticPolicy (rdzvBackend c10d), or pass "
        "--rdzv-endpoint and --node-rank to torchrun"};
  }
  const bool python = launch.launcher == Launcher::plain_python;
  const std::string what = python ? util::quote(launch.shown) + " fails" : "a script that calls it fails";
  const std::string torchrun = in.elastic
                                   ? "launch with torchrun (it reads the PET_RDZV_* variables the elastic "
                                     "block sets)"
                                   : "set spec.elasticPolicy (rdzvBackend c10d) and launch with torchrun";
  return {python && in.workers > 1 ? RendezvousOutcome::fails : RendezvousOutcome::may_fail,
          "lint.worker-only-no-master-env",
          "worker-only job: operator " + r.to_string() +
              " injects no MASTER_ADDR, MASTER_PORT, RANK or WORLD_SIZE without a Master, so " + what +
              " in init_process_group(\"env://\"): MASTER_ADDR not set",
          (in.nodes > 1 ? "add a Master replica (replicas: 1) and set Worker replicas to " +
                              std::to_string(in.nodes - 1)
                        : std::string("rename the Worker replica spec to Master")) +
              ", or " + torchrun + ", or run the job with kubectl pytorch's controller (worker-only style)"};
}

/// With a Master, from v1.7 WORLD_SIZE counts nprocPerNode processes per pod while RANK stays the
/// pod's rank: only a launcher that starts those processes (torchrun) makes the numbers true.
RendezvousVerdict with_master(const RendezvousInput& in, const Release& r) {
  const int k = r.at_least(7) ? in.nproc_per_node.value_or(1) : 1;
  const int world = in.nodes * k;
  if (k <= 1) {
    return works(
        "init_process_group(\"env://\") works with one process per pod: RANK is the pod's rank (master 0, "
        "worker i+1), WORLD_SIZE=" +
        std::to_string(world));
  }
  const std::string counts = "nprocPerNode is '" + std::to_string(k) +
                             "': WORLD_SIZE=" + std::to_string(world) + " counts processes (" +
                             std::to_string(in.nodes) + "x" + std::to_string(k) +
                             ") but RANK is the pod's rank";
  if (in.launch.launcher == Launcher::torchrun) {
    return works(counts + "; " + util::quote(in.launch.shown) + " starts " + std::to_string(k) +
                 " processes per pod and sets RANK, LOCAL_RANK and WORLD_SIZE for each, so "
                 "init_process_group(\"env://\") works in them");
  }
  const bool python = in.launch.launcher == Launcher::plain_python;
  return {
      python ? RendezvousOutcome::fails : RendezvousOutcome::may_fail, "lint.nproc-rank-is-node-rank",
      counts + ", so " +
          (python ? util::quote(in.launch.shown) : std::string("a script started without torchrun")) +
          " waits in init_process_group(\"env://\") for " + std::to_string(world) + " ranks that never come",
      "launch with torchrun, which starts " + std::to_string(k) +
          " processes per pod and sets RANK, LOCAL_RANK and WORLD_SIZE for each, or set spec.nprocPerNode: "
          "\"1\""};
}

}  // namespace

RendezvousInput rendezvous_input(const JobSpec& job) {
  RendezvousInput in;
  in.has_master = job.has_master();
  in.nodes = job.total_replicas();
  const ReplicaSpec* worker = job.find("Worker");
  in.workers = worker != nullptr ? worker->replicas : 0;
  in.elastic = job.elastic.has_value();
  if (job.elastic) in.rdzv_host = job.elastic->rdzv_host.value_or(replica_name(job.name, "worker", 0));
  if (job.nproc_per_node) in.nproc_per_node = numeric_nproc_per_node(*job.nproc_per_node);
  const ReplicaSpec* rank0 = in.has_master ? job.find("Master") : worker;
  if (rank0 == nullptr && !job.replica_specs.empty()) rank0 = &job.replica_specs.front();
  if (rank0 != nullptr) in.launch = classify_launch(rank0->argv);
  return in;
}

std::optional<int> numeric_nproc_per_node(std::string_view text) {
  if (text.empty() || text.size() > 9 || text.find_first_not_of("0123456789") != std::string_view::npos)
    return std::nullopt;
  return std::stoi(std::string(text));
}

std::optional<RendezvousVerdict> judge_rendezvous(const RendezvousInput& in, const Release& r) {
  if (in.nodes <= 0) return std::nullopt;
  if (!in.has_master) {
    if (!r.at_least(4)) return std::nullopt;  // v1.3.0 creates no pods: operator.master-required
    return worker_only(in, r);
  }
  return with_master(in, r);
}

}  // namespace kpt::model::pytorchjob
