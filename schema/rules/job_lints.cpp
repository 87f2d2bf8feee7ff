// Lints about how the job will run: each names what happens and how to fix it.
#include "model/pytorchjob/names.hpp"
#include "model/pytorchjob/rendezvous.hpp"
#include "schema/rules/launch_command.hpp"
#include "schema/rules/lint_checks.hpp"
#include "schema/rules/rule_helpers.hpp"
#include "util/strings.hpp"

#include <string>
#include <vector>

namespace kpt::schema::rules {

namespace {

class JobLints {
 public:
  JobLints(const yaml::Document& doc, const RuleOptions& opts)
      : m_doc(doc), m_release(opts.release), m_replicas(replica_entries(doc.root)) {
    for (const auto& r : m_replicas) {
      if (r.type == "Master") m_master = &r;
      if (r.type == "Worker") m_worker = &r;
    }
  }

  Diagnostics run() {
    rendezvous();
    template_restart_policy();
    backoff_limit();
    clean_pod_policy();
    zero_workers();
    long_name();
    nproc_per_node();
    return std::move(m_out);
  }

 private:
  void add(yaml::Position pos, Severity severity, std::string path, std::string rule, std::string message,
           std::string hint) {
    m_out.push_back(make_finding(m_doc, pos, severity, std::move(path), std::move(rule), std::move(message),
                                 std::move(hint)));
  }

  /// The `pytorch` container of a replica, else its first container.
  static const ContainerEntry* main_container(const std::vector<ContainerEntry>& cs) {
    for (const auto& c : cs) {
      if (string_value(c.node->find("name")) == "pytorch") return &c;
    }
    return cs.empty() ? nullptr : &cs.front();
  }

  /// judge_rendezvous on the manifest as written; `env` prints the same verdict as a note.
  void rendezvous() {
    const ReplicaEntry* rank0 = m_master != nullptr ? m_master : m_worker;
    if (rank0 == nullptr) return;
    const auto containers = container_entries(*rank0, "containers");
    const ContainerEntry* c = main_container(containers);
    if (c == nullptr) return;
    model::pytorchjob::RendezvousInput in;
    in.has_master = m_master != nullptr;
    in.workers = m_worker != nullptr ? replicas_or(*m_worker, 1) : 0;
    for (const auto& r : m_replicas) in.nodes += replicas_or(r, 1);
    const yaml::Node* elastic = m_doc.root.at_path({"spec", "elasticPolicy"});
    in.elastic = !is_absent(elastic);
    const yaml::Node* name = m_doc.root.at_path({"metadata", "name"});
    const yaml::Node* host = in.elastic && elastic->is_map() ? elastic->find("rdzvHost") : nullptr;
    in.rdzv_host = host != nullptr && host->is_string()
                       ? host->text
                       : model::pytorchjob::replica_name(string_value(name), "worker", 0);
    if (const yaml::Node* npn = m_doc.root.at_path({"spec", "nprocPerNode"});
        npn != nullptr && npn->is_string()) {
      in.nproc_per_node = model::pytorchjob::numeric_nproc_per_node(npn->text);
    }
    in.launch = classify_launch(container_argv(*c->node));
    const auto verdict = model::pytorchjob::judge_rendezvous(in, m_release);
    if (!verdict || verdict->outcome == model::pytorchjob::RendezvousOutcome::works) return;
    const yaml::Node* command = c->node->find("command");
    const yaml::Node* args = c->node->find("args");
    const yaml::Node* at = command != nullptr ? command : args;
    const std::string path = c->path + (command != nullptr ? ".command" : (args != nullptr ? ".args" : ""));
    // The finding is about the field: its key, not its first item.
    add(at == nullptr ? pos_or(c->node, rank0->key_pos)
                      : key_pos_or(c->node, command != nullptr ? "command" : "args", at->pos),
        verdict->outcome == model::pytorchjob::RendezvousOutcome::fails ? Severity::error : Severity::warning,
        path, verdict->rule, verdict->message, verdict->fix);
  }

  void template_restart_policy() {
    const char* event =
        m_release.at_least(8) ? "SetPodTemplateRestartPolicy" : "SettedPodTemplateRestartPolicy";
    for (const auto& r : m_replicas) {
      if (r.spec == nullptr || !r.spec->is_map()) continue;
      const yaml::Node* pod_policy = r.spec->at_path({"template", "spec", "restartPolicy"});
      if (pod_policy == nullptr) continue;
      const yaml::Node* replica_policy = r.spec->find("restartPolicy");
      const std::string used = replica_policy != nullptr && replica_policy->is_string()
                                   ? util::quote(replica_policy->text)
                                   : "'OnFailure' (the default)";
      const std::string base = replica_path(r.type);
      add(pod_policy->pos, Severity::warning, base + ".template.spec.restartPolicy",
          "lint.template-restart-policy",
          "the operator overrides the pod template's restartPolicy with the replica's " + used +
              " and records a " + event + " warning event",
          "set " + base + ".restartPolicy instead and remove this one");
    }
  }

  /// A replica that restarts on failure with no backoffLimit restarts a failing job forever: a
  /// typo leaves it Running and restarting. Said once per job, at the first such replica.
  void backoff_limit() {
    const yaml::Node* run_policy = m_doc.root.at_path({"spec", "runPolicy"});
    if (run_policy != nullptr && run_policy->is_map() && run_policy->find("backoffLimit") != nullptr) return;
    for (const auto& r : m_replicas) {
      const yaml::Node* policy =
          r.spec != nullptr && r.spec->is_map() ? r.spec->find("restartPolicy") : nullptr;
      if (policy == nullptr || !policy->is_string()) continue;
      const bool exit_code = policy->text == "ExitCode";
      if (policy->text != "OnFailure" && !exit_code) continue;
      const std::string message =
          exit_code
              ? "restartPolicy 'ExitCode' recreates a pod that exits with 128 or more (137: killed, often "
                "out of memory) again and again while spec.runPolicy.backoffLimit is not set"
              : "restartPolicy 'OnFailure' restarts a failing pod again and again while "
                "spec.runPolicy.backoffLimit is not set: a typo keeps the job Running and restarting";
      std::string hint =
          "set spec.runPolicy.backoffLimit (e.g. 3) so that the job fails after that many restarts";
      if (exit_code) {
        hint +=
            "; the Training Operator does not count ExitCode re-creations against it "
            "(kubeflow/trainer#2045), "
            "so bound the job with spec.runPolicy.activeDeadlineSeconds too";
      }
      add(policy->pos, Severity::warning, replica_path(r.type) + ".restartPolicy", "lint.no-backoff-limit",
          message, hint);
      return;
    }
  }

  void clean_pod_policy() {
    if (m_master == nullptr || m_worker == nullptr || replicas_or(*m_worker, 1) < 1) return;
    const yaml::Node* spec = m_doc.root.find("spec");
    const yaml::Node* run_policy = spec != nullptr ? spec->find("runPolicy") : nullptr;
    const yaml::Node* policy =
        run_policy != nullptr && run_policy->is_map() ? run_policy->find("cleanPodPolicy") : nullptr;
    if (policy != nullptr && !(policy->is_string() && policy->text == "None")) return;
    const yaml::Position at =
        policy != nullptr ? policy->pos : key_pos_or(spec, "runPolicy", m_master->key_pos);
    const std::string path = policy != nullptr
                                 ? "spec.runPolicy.cleanPodPolicy"
                                 : (run_policy != nullptr ? "spec.runPolicy" : replica_path("Master"));
    add(at, Severity::warning, path, "lint.clean-pod-policy-none",
        std::string("the job succeeds as soon as the Master succeeds, and with cleanPodPolicy 'None'") +
            (policy == nullptr ? " (the default)" : "") +
            " the Worker pods keep running (kubeflow/trainer#1982)",
        "set spec.runPolicy.cleanPodPolicy: Running (or All) so the remaining pods are deleted when the job "
        "ends");
  }

  void zero_workers() {
    if (m_worker == nullptr || m_release.at_least(9)) return;  // v1.9+ rejects it: operator.worker-replicas
    const yaml::Node* replicas = m_worker->spec != nullptr ? m_worker->spec->find("replicas") : nullptr;
    if (replicas == nullptr || replicas->kind != yaml::NodeKind::integer || replicas->int_overflow ||
        replicas->integer > 0) {
      return;
    }
    add(replicas->pos, Severity::error, replica_path("Worker") + ".replicas", "lint.zero-workers",
        "Worker replicas " + util::quote(replicas->text) + " makes operator " + m_release.to_string() +
            " create and delete a worker pod in an endless loop (kubeflow/trainer#1709)",
        "remove the Worker replica spec for a Master-only job, or set replicas to 1 or more");
  }

  void long_name() {
    const yaml::Node* name = m_doc.root.at_path({"metadata", "name"});
    if (name == nullptr || !name->is_string() || name->text.empty()) return;
    const bool name_ok = dns1035_label_errors(name->text).empty();
    if (!name_ok && m_release.at_least(6)) return;  // operator.job-name says it
    std::string longest;
    for (const auto& r : m_replicas) {
      if (r.type != "Master" && r.type != "Worker") continue;
      const auto n = replicas_or(r, 1);
      const std::string pod =
          name->text + "-" + util::to_lower(r.type) + "-" + std::to_string(n > 0 ? n - 1 : 0);
      if (pod.size() > longest.size()) longest = pod;
    }
    if (longest.empty()) return;
    const auto errs = dns1035_label_errors(longest);
    if (errs.empty()) return;
    const bool too_long = longest.size() > 63;
    add(name->pos, Severity::error, "metadata.name", "lint.long-name",
        "the operator names a pod and its Service " + util::quote(longest) +
            (too_long ? ", longer than 63 characters," : ", not a DNS-1035 label,") +
            " so the Service cannot be created",
        too_long ? "shorten the job name to at most " +
                       std::to_string(63 - (longest.size() - name->text.size())) + " characters"
                 : "use lower-case letters, digits and '-', starting with a letter");
  }

  void nproc_per_node() {
    if (!m_release.at_least(7)) return;  // the field is unknown before v1.7 (release.unknown-field)
    const yaml::Node* npn = m_doc.root.at_path({"spec", "nprocPerNode"});
    if (npn == nullptr || !npn->is_string()) return;
    const auto& v = npn->text;
    if (v == "auto" || v == "cpu" || v == "gpu") return;
    bool digits = !v.empty() && v.size() < 10;
    for (char ch : v) digits = digits && ch >= '0' && ch <= '9';
    if (digits && std::stol(v) > 0) return;
    const auto guess = util::closest_match(v, {"auto", "cpu", "gpu"});
    add(npn->pos, Severity::warning, "spec.nprocPerNode", "lint.nproc-per-node",
        "nprocPerNode " + util::quote(v) +
            " is not 'auto', 'cpu', 'gpu' or a positive integer: the operator counts 1 process per node in "
            "WORLD_SIZE and passes it to torchrun as PET_NPROC_PER_NODE, which torchrun rejects",
        guess ? "did you mean '" + *guess + "'?"
              : "use 'auto', 'cpu', 'gpu' or a number of processes such as '4'");
  }

  const yaml::Document& m_doc;
  model::pytorchjob::Release m_release;
  std::vector<ReplicaEntry> m_replicas;
  const ReplicaEntry* m_master = nullptr;
  const ReplicaEntry* m_worker = nullptr;
  Diagnostics m_out;
};

}  // namespace

Diagnostics check_job_lints(const yaml::Document& doc, const RuleOptions& opts) {
  if (!doc.root.is_map()) return {};
  return JobLints(doc, opts).run();
}

}  // namespace kpt::schema::rules
