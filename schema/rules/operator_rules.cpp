// The operator's own validation, release by release (v1.3-v1.7 in Reconcile, v1.8+ in the webhook). Older
// releases stop at the first failure in Go map order; we report every failure, each with the message that
// release gives.
#include "schema/rules/rule_helpers.hpp"
#include "schema/rules/rules.hpp"
#include "util/strings.hpp"

#include <string>
#include <vector>

namespace kpt::schema::rules {

namespace {

enum class Effect { logged, event, rejected };

class OperatorChecker {
 public:
  OperatorChecker(const yaml::Document& doc, const model::pytorchjob::Release& release)
      : m_doc(doc), m_release(release), m_effect(effect_of(release)) {}

  Diagnostics run() {
    check_name();
    check_replica_specs();
    check_nproc();
    if (m_release.at_least(9)) {
      check_elastic_needs_worker();
      check_managed_by();
    }
    return std::move(m_out);
  }

 private:
  static Effect effect_of(const model::pytorchjob::Release& r) {
    if (r.at_least(8)) return Effect::rejected;
    if (r.at_least(6)) return Effect::event;
    return Effect::logged;
  }

  [[nodiscard]] bool webhook() const { return m_effect == Effect::rejected; }

  [[nodiscard]] std::string prefix() const {
    const auto v = m_release.to_string();
    switch (m_effect) {
      case Effect::rejected:
        return "rejected by the operator " + v + " webhook: ";
      case Effect::event: {
        const char* reason = m_release.at_least(7) ? "PyTorchJobFailedValidation" : "JobFailedValidation";
        return "operator " + v + " does not start the job (event " + reason + "): ";
      }
      case Effect::logged:
        break;
    }
    return "operator " + v + " only logs: ";
  }

  void add(yaml::Position pos, std::string path, std::string rule, const std::string& operator_message,
           std::string hint, Severity severity = Severity::error) {
    if (m_effect == Effect::logged && severity == Severity::error) severity = Severity::warning;
    m_out.push_back(make_finding(m_doc, pos, severity, std::move(path), std::move(rule),
                                 prefix() + operator_message, std::move(hint)));
  }

  void check_name() {
    if (!m_release.at_least(6)) return;
    const yaml::Node* name = m_doc.root.at_path({"metadata", "name"});
    if (name == nullptr || !name->is_string()) return;
    const auto errs = dns1035_label_errors(name->text);
    if (errs.empty()) return;
    const std::string msg = webhook() ? "metadata.name: Invalid value: \"" + name->text +
                                            "\": should match: " + util::join(errs, ",")
                                      : "PyTorchJob name is invalid: [" + util::join(errs, " ") + "]";
    add(name->pos, "metadata.name", "operator.job-name", msg,
        "use lower-case letters, digits and '-', start with a letter, at most 63 characters");
  }

  void check_replica_specs() {
    const yaml::Node* spec = m_doc.root.find("spec");
    const yaml::Node* specs = spec != nullptr && spec->is_map() ? spec->find("pytorchReplicaSpecs") : nullptr;
    if (is_absent(specs)) {
      const yaml::Position at =
          key_pos_or(spec, "pytorchReplicaSpecs", key_pos_or(&m_doc.root, "spec", m_doc.start));
      add(at, "spec.pytorchReplicaSpecs", "operator.no-replica-specs",
          webhook() ? "spec.pytorchReplicaSpecs: Required value: must be required"
                    : "PyTorchJobSpec is not valid",
          "add spec.pytorchReplicaSpecs with a Worker (and optionally a Master) replica spec");
      return;
    }
    bool has_master = false;
    for (const auto& r : replica_entries(m_doc.root)) {
      check_replica(r);
      if (r.type == "Master") has_master = true;
    }
    if (!m_release.at_least(4) && !has_master && specs->is_map()) {
      add(key_pos_or(spec, "pytorchReplicaSpecs", m_doc.start), "spec.pytorchReplicaSpecs",
          "operator.master-required", "Master ReplicaSpec must be present",
          "add a Master replica spec with replicas: 1 (operator " + m_release.to_string() + " requires one)");
    }
  }

  void check_replica(const ReplicaEntry& r) {
    const std::string path = replica_path(r.type);
    const std::string go_path = "spec.pytorchReplicaSpecs[" + r.type + "]";
    const yaml::Node* containers = containers_of(r.spec);
    if (containers == nullptr || !containers->is_seq() || containers->items.empty()) {
      const yaml::Position at = pos_or(containers, r.key_pos);
      add(at, path + ".template.spec.containers", "operator.no-containers",
          webhook() ? go_path + ".template.spec.containers: Required value: must be specified"
                    : "PyTorchJobSpec is not valid: containers definition expected in " + r.type,
          "add a container named 'pytorch' under " + path + ".template.spec.containers");
    }
    if (r.type != "Master" && r.type != "Worker") {
      const auto guess = util::closest_match(r.type, {"Master", "Worker"});
      add(r.key_pos, path, "operator.replica-type",
          webhook()
              ? go_path + ": Unsupported value: \"" + r.type + "\": supported values: \"Master\", \"Worker\""
              : "PyTorchReplicaType is " + r.type + " but must be one of [Master Worker]",
          guess ? "did you mean '" + *guess + "'?" : "use 'Master' or 'Worker'");
    }
    if (containers != nullptr && containers->is_seq() && !containers->items.empty()) {
      check_containers(r, *containers, path, go_path);
    }
    check_replica_count(r, path, go_path);
  }

  void check_containers(const ReplicaEntry& r, const yaml::Node& containers, const std::string& path,
                        const std::string& go_path) {
    bool has_pytorch = false;
    for (const auto& c : container_entries(r, "containers")) {
      const yaml::Node* image = c.node->find("image");
      if (string_value(image).empty() &&
          (image == nullptr || image->kind == yaml::NodeKind::null || image->is_string())) {
        const std::string idx = "[" + std::to_string(c.index) + "]";
        add(key_pos_or(c.node, "image", pos_or(c.node, r.key_pos)), c.path + ".image", "operator.no-image",
            webhook()
                ? go_path + ".template.spec.containers" + idx + ".image: Required value: must be required"
                : "PyTorchJobSpec is not valid: Image is undefined in the container of " + r.type,
            "set the image of every container");
      }
      if (string_value(c.node->find("name")) == "pytorch") has_pytorch = true;
    }
    if (!has_pytorch) {
      const yaml::Node* pod = r.spec != nullptr ? r.spec->at_path({"template", "spec"}) : nullptr;
      add(key_pos_or(pod, "containers", containers.pos), path + ".template.spec.containers",
          "operator.no-pytorch-container",
          webhook() ? go_path +
                          ".template.spec.containers: Required value: must have at least one container with "
                          "name pytorch"
                    : "PyTorchJobSpec is not valid: There is no container named pytorch in " + r.type,
          "name the training container 'pytorch': the operator takes its port and exit code from it");
    }
  }

  void check_replica_count(const ReplicaEntry& r, const std::string& path, const std::string& go_path) {
    const yaml::Node* replicas = r.spec != nullptr && r.spec->is_map() ? r.spec->find("replicas") : nullptr;
    const bool is_int =
        replicas != nullptr && replicas->kind == yaml::NodeKind::integer && !replicas->int_overflow;
    if (r.type == "Master") {
      const bool bad = webhook() ? (is_absent(replicas) || (is_int && replicas->integer != 1))
                                 : (is_int && replicas->integer != 1);
      if (bad) {
        add(pos_or(replicas, r.key_pos), path + ".replicas", "operator.master-replicas",
            webhook() ? go_path + ".replicas: Forbidden: must be 1" : "There must be only 1 master replica",
            is_absent(replicas) ? "set replicas: 1 on the Master (the webhook does not default it)"
                                : "set replicas: 1 on the Master; add Workers for more nodes");
      }
    }
    if (r.type == "Worker" && m_release.at_least(9) && is_int && replicas->integer < 1) {
      add(replicas->pos, path + ".replicas", "operator.worker-replicas",
          go_path + ".replicas: Forbidden: must be at least 1",
          "set replicas to 1 or more, or remove the Worker replica spec");
    }
  }

  void check_nproc() {
    if (!m_release.at_least(7)) return;
    const yaml::Node* spec = m_doc.root.find("spec");
    if (spec == nullptr || !spec->is_map()) return;
    const yaml::Node* npn = spec->find("nprocPerNode");
    const yaml::Node* elastic = spec->find("elasticPolicy");
    const yaml::Node* old = elastic != nullptr && elastic->is_map() ? elastic->find("nProcPerNode") : nullptr;
    if (is_absent(old)) return;
    const bool both = !is_absent(npn);
    if (!webhook()) {
      if (both) {
        add(old->pos, "spec.elasticPolicy.nProcPerNode", "operator.nproc-conflict",
            ".spec.elasticPolicy.nProcPerNode is deprecated, use .spec.nprocPerNode instead",
            "remove spec.elasticPolicy.nProcPerNode");
      }
      return;
    }
    m_out.push_back(make_finding(
        m_doc, old->pos, Severity::warning, "spec.elasticPolicy.nProcPerNode", "operator.nproc-deprecated",
        "the operator " + m_release.to_string() +
            " webhook warns: spec.elasticPolicy.nProcPerNode is deprecated, use spec.nprocPerNode instead",
        "set spec.nprocPerNode (a string: 'auto', 'cpu', 'gpu' or a number) instead"));
    if (both) {
      add(old->pos, "spec.elasticPolicy.nProcPerNode", "operator.nproc-conflict",
          "spec.elasticPolicy.nProcPerNode: Forbidden: must not be used with spec.nprocPerNode",
          "remove spec.elasticPolicy.nProcPerNode");
    }
  }

  void check_elastic_needs_worker() {
    const yaml::Node* spec = m_doc.root.find("spec");
    if (spec == nullptr || !spec->is_map() || is_absent(spec->find("elasticPolicy"))) return;
    const yaml::Node* specs = spec->find("pytorchReplicaSpecs");
    if (specs == nullptr || !specs->is_map() || specs->find("Worker") != nullptr) return;
    add(key_pos_or(spec, "pytorchReplicaSpecs", specs->pos), "spec.pytorchReplicaSpecs.Worker",
        "operator.elastic-without-worker",
        "spec.pytorchReplicaSpecs[Worker]: Required value: must be configured if elastic policy is used",
        "add a Worker replica spec, or remove spec.elasticPolicy");
  }

  void check_managed_by() {
    const yaml::Node* managed = m_doc.root.at_path({"spec", "runPolicy", "managedBy"});
    if (managed == nullptr || !managed->is_string()) return;
    static const std::vector<std::string> k_allowed{"kubeflow.org/training-operator",
                                                    "kueue.x-k8s.io/multikueue"};
    if (managed->text == k_allowed[0] || managed->text == k_allowed[1]) return;
    const auto guess = util::closest_match(managed->text, k_allowed);
    add(managed->pos, "spec.runPolicy.managedBy", "operator.managed-by",
        "spec.runPolicy.managedBy: Unsupported value: \"" + managed->text +
            "\": supported values: \"kubeflow.org/training-operator\", \"kueue.x-k8s.io/multikueue\"",
        guess ? "did you mean '" + *guess + "'?"
              : "use 'kubeflow.org/training-operator' (the default) or 'kueue.x-k8s.io/multikueue'");
  }

  const yaml::Document& m_doc;
  model::pytorchjob::Release m_release;
  Effect m_effect;
  Diagnostics m_out;
};

}  // namespace

Diagnostics check_operator_rules(const yaml::Document& doc, const model::pytorchjob::Release& release) {
  if (!doc.root.is_map()) return {};
  return OperatorChecker(doc, release).run();
}

}  // namespace kpt::schema::rules
