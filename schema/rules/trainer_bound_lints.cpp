// The lower bounds kubeflow/trainer#3809 puts on numNodes and numProcPerNode (on master after v2.3.0:
// `minimum: 0` on trainer.numNodes, `self >= 1` on trainer.numProcPerNode and on a runtime's
// mlPolicy.mpi.numProcPerNode). Every release we carry admits these values and fails later, at the
// JobSet or in the pods, so they are lints for all of them, each naming the upstream change.
#include "schema/rules/rule_helpers.hpp"
#include "schema/rules/trainer_rules.hpp"

#include <string>

namespace kpt::schema::rules {

namespace {

namespace tj = model::trainjob;

constexpr const char* k_upstream_change = "kubeflow/trainer#3809";

/// The integer at `path`, unless absent, not an integer or past int64 (the schema reports those).
const yaml::Node* integer_at(const yaml::Document& doc, std::initializer_list<std::string_view> path) {
  const yaml::Node* node = doc.root.at_path(path);
  if (node == nullptr || node->kind != yaml::NodeKind::integer || node->int_overflow) return nullptr;
  return node;
}

}  // namespace

namespace detail {

std::string upstream_bound_note(std::string_view field, std::string_view bound) {
  return std::string(k_upstream_change) + " rejects " + std::string(field) + " " + std::string(bound) +
         " at admission after v2.3.0";
}

// The torch plugin makes numNodes the node Job's parallelism and completions and PET_NNODES
// (T:plugins/torch, jobset); the others its parallelism and completions. 0 stays admitted upstream
// (JobSet's replicas may be 0, kubernetes-sigs/jobset#1279) but runs no torch node pod.
void lint_num_nodes(const yaml::Document& doc, tj::Framework framework, Diagnostics& out) {
  const yaml::Node* nodes = integer_at(doc, {"spec", "trainer", "numNodes"});
  if (nodes == nullptr || nodes->integer > 0) return;
  const bool torch = framework == tj::Framework::torch;
  if (!torch && nodes->integer == 0) return;
  std::string message =
      "numNodes " + nodes->text +
      " is admitted (no CRD rule or webhook bounds it), but Trainer makes it the node Job's "
      "parallelism and completions" +
      (torch ? " and PET_NNODES" : "") + ": no node pod runs";
  if (nodes->integer < 0) message += " (" + upstream_bound_note("numNodes", "below 0") + ")";
  out.push_back(make_finding(
      doc, nodes->pos, Severity::error, "spec.trainer.numNodes", "lint.trainjob-num-nodes",
      std::move(message), "set numNodes to 1 or more, or remove it to take the runtime's mlPolicy.numNodes"));
}

// PET_NPROC_PER_NODE (torch) or the hostfile's slots (MPI) below 1 fail in the pods. Flux's own
// webhook rejects it (v2.2+), so a Flux TrainJob gets no lint on top.
void lint_num_proc_per_node(const yaml::Document& doc, tj::Framework framework, Diagnostics& out) {
  const yaml::Node* nproc = integer_at(doc, {"spec", "trainer", "numProcPerNode"});
  if (nproc == nullptr || nproc->integer >= 1 || framework == tj::Framework::flux) return;
  out.push_back(make_finding(
      doc, nproc->pos, Severity::error, "spec.trainer.numProcPerNode", "lint.trainjob-num-proc-per-node",
      "numProcPerNode " + nproc->text +
          " is admitted (no CRD rule or webhook bounds it), but Trainer passes it to every node as "
          "PET_NPROC_PER_NODE (torch) or its hostfile slots (MPI): the pods fail when they start (" +
          upstream_bound_note("numProcPerNode", "below 1") + ")",
      "set numProcPerNode to 1 or more, or remove it to take the runtime's"));
}

}  // namespace detail

Diagnostics check_runtime_lints(const yaml::Document& doc) {
  Diagnostics out;
  const yaml::Node* nproc = integer_at(doc, {"spec", "mlPolicy", "mpi", "numProcPerNode"});
  if (nproc == nullptr || nproc->integer >= 1) return out;
  out.push_back(make_finding(
      doc, nproc->pos, Severity::error, "spec.mlPolicy.mpi.numProcPerNode",
      "lint.runtime-mpi-num-proc-per-node",
      "numProcPerNode " + nproc->text +
          " is admitted (no CRD rule or webhook bounds it), but Trainer writes it into the OpenMPI hostfile "
          "as each node's slots and into OMPI_MCA_orte_set_default_slots: the hostfile is invalid and the "
          "TrainJobs of this runtime fail when their pods start (" +
          detail::upstream_bound_note("numProcPerNode", "below 1") + ")",
      "set numProcPerNode to 1 or more, or remove it to take the default 1"));
  return out;
}

}  // namespace kpt::schema::rules
