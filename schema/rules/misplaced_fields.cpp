// lint.misplaced-field: a field the PyTorchJob has, written at the wrong level, as guides
// often show (`spec.cleanPodPolicy` instead of `spec.runPolicy.cleanPodPolicy`). Only names
// that are certainly not fields of the level they sit at are listed here.
#include "schema/rules/lint_checks.hpp"
#include "schema/rules/rule_helpers.hpp"

#include <array>
#include <string>
#include <string_view>
#include <vector>

namespace kpt::schema::rules {

namespace {

constexpr std::array<std::string_view, 7> k_run_policy_fields{
    "cleanPodPolicy", "ttlSecondsAfterFinished", "activeDeadlineSeconds",
    "backoffLimit",   "schedulingPolicy",        "suspend",
    "managedBy"};
constexpr std::array<std::string_view, 5> k_scheduling_fields{"minAvailable", "queue", "minResources",
                                                              "priorityClass", "scheduleTimeoutSeconds"};
constexpr std::array<std::string_view, 10> k_elastic_fields{
    "minReplicas", "maxReplicas", "rdzvBackend", "rdzvPort",    "rdzvHost",
    "rdzvId",      "rdzvConf",    "standalone",  "maxRestarts", "metrics"};
constexpr std::array<std::string_view, 3> k_replica_fields{"replicas", "restartPolicy", "template"};
constexpr std::array<std::string_view, 4> k_spec_fields{"pytorchReplicaSpecs", "runPolicy", "elasticPolicy",
                                                        "nprocPerNode"};
constexpr std::array<std::string_view, 16> k_pod_spec_fields{"containers",
                                                             "initContainers",
                                                             "volumes",
                                                             "nodeSelector",
                                                             "tolerations",
                                                             "affinity",
                                                             "serviceAccountName",
                                                             "imagePullSecrets",
                                                             "hostNetwork",
                                                             "schedulerName",
                                                             "priorityClassName",
                                                             "securityContext",
                                                             "dnsPolicy",
                                                             "runtimeClassName",
                                                             "hostIPC",
                                                             "topologySpreadConstraints"};

template <std::size_t N>
bool in(const std::array<std::string_view, N>& set, std::string_view key) {
  for (auto s : set) {
    if (s == key) return true;
  }
  return false;
}

class MisplacedChecker {
 public:
  MisplacedChecker(const yaml::Document& doc, const RuleOptions& opts)
      : m_doc(doc), m_severity(opts.strict ? Severity::error : Severity::warning) {
    for (const auto& r : replica_entries(doc.root)) m_types.push_back(r.type);
  }

  Diagnostics run() {
    const yaml::Node& root = m_doc.root;
    for_each_key(&root, [&](const std::string& key, yaml::Position pos) {
      if (in(k_spec_fields, key)) report(pos, key, "spec", "spec." + key);
    });
    const yaml::Node* spec = root.find("spec");
    for_each_key(spec, [&](const std::string& key, yaml::Position pos) { check_spec_key(key, pos); });
    const yaml::Node* run_policy = spec != nullptr ? spec->find("runPolicy") : nullptr;
    for_each_key(run_policy, [&](const std::string& key, yaml::Position pos) {
      if (in(k_scheduling_fields, key)) {
        report(pos, "spec.runPolicy." + key, "spec.runPolicy.schedulingPolicy",
               "spec.runPolicy.schedulingPolicy." + key);
      } else if (key == "replicas" || key == "restartPolicy") {
        report_replica_field(pos, "spec.runPolicy." + key, key);
      } else if (key == "nprocPerNode") {
        report(pos, "spec.runPolicy." + key, "spec", "spec.nprocPerNode");
      }
    });
    for (const auto& r : replica_entries(root)) check_replica(r);
    return std::move(m_out);
  }

 private:
  template <class F>
  void for_each_key(const yaml::Node* map, F&& f) {
    if (map == nullptr || !map->is_map()) return;
    for (std::size_t i = 0; i < map->keys.size(); ++i) {
      const yaml::Position p = i < map->key_positions.size() ? map->key_positions[i] : map->pos;
      f(map->keys[i], p);
    }
  }

  void check_spec_key(const std::string& key, yaml::Position pos) {
    const std::string path = "spec." + key;
    if (in(k_run_policy_fields, key)) {
      report(pos, path, "spec.runPolicy", "spec.runPolicy." + key);
    } else if (in(k_scheduling_fields, key)) {
      report(pos, path, "spec.runPolicy.schedulingPolicy", "spec.runPolicy.schedulingPolicy." + key);
    } else if (in(k_elastic_fields, key)) {
      report(pos, path, "spec.elasticPolicy", "spec.elasticPolicy." + key);
    } else if (in(k_replica_fields, key)) {
      report_replica_field(pos, path, key);
    } else if (key == "Master" || key == "Worker") {
      report(pos, path, "spec.pytorchReplicaSpecs", "spec.pytorchReplicaSpecs." + key);
    } else if (in(k_pod_spec_fields, key)) {
      report_replica_field(pos, path, "template.spec." + key);
    }
  }

  void check_replica(const ReplicaEntry& r) {
    if (r.spec == nullptr || !r.spec->is_map()) return;
    const std::string base = replica_path(r.type);
    for_each_key(r.spec, [&](const std::string& key, yaml::Position pos) {
      const std::string path = base + "." + key;
      if (in(k_run_policy_fields, key)) {
        report(pos, path, "spec.runPolicy", "spec.runPolicy." + key);
      } else if (key == "nprocPerNode" || key == "elasticPolicy") {
        report(pos, path, "spec", "spec." + key);
      } else if (in(k_pod_spec_fields, key)) {
        report(pos, path, base + ".template.spec", base + ".template.spec." + key);
      } else if (key == "spec" || key == "metadata") {
        report(pos, path, base + ".template", base + ".template." + key);
      }
    });
    const yaml::Node* tmpl = r.spec->find("template");
    for_each_key(tmpl, [&](const std::string& key, yaml::Position pos) {
      const std::string path = base + ".template." + key;
      if (in(k_pod_spec_fields, key)) {
        report(pos, path, base + ".template.spec", base + ".template.spec." + key);
      } else if (key == "replicas" || key == "restartPolicy") {
        report(pos, path, base, base + "." + key);
      }
    });
    const yaml::Node* pod = tmpl != nullptr && tmpl->is_map() ? tmpl->find("spec") : nullptr;
    for_each_key(pod, [&](const std::string& key, yaml::Position pos) {
      const std::string path = base + ".template.spec." + key;
      if (key == "replicas") {
        report(pos, path, base, base + ".replicas");
      } else if (key != "activeDeadlineSeconds" && in(k_run_policy_fields, key)) {
        report(pos, path, "spec.runPolicy", "spec.runPolicy." + key);
      }
    });
  }

  /// A replica-level field (`replicas`, `restartPolicy`, `template.spec.x`) at `path`.
  void report_replica_field(yaml::Position pos, const std::string& path, const std::string& rel) {
    const auto leaf = path.substr(path.rfind('.') + 1);
    std::string hint;
    if (m_types.size() == 1) {
      hint = "move it to " + replica_path(m_types.front()) + "." + rel;
    } else if (m_types.empty()) {
      hint = "move it to spec.pytorchReplicaSpecs.<Master|Worker>." + rel;
    } else {
      hint = "move it into each replica spec:";
      for (std::size_t i = 0; i < m_types.size(); ++i) {
        hint += (i == 0 ? " " : (i + 1 == m_types.size() ? " and " : ", ")) + replica_path(m_types[i]) + "." +
                rel;
      }
    }
    m_out.push_back(make_finding(m_doc, pos, m_severity, path, "lint.misplaced-field",
                                 "unknown field '" + leaf + "' (it belongs in each replica spec)", hint));
  }

  void report(yaml::Position pos, const std::string& path, const std::string& parent,
              const std::string& target) {
    const auto leaf = path.substr(path.rfind('.') + 1);
    m_out.push_back(make_finding(m_doc, pos, m_severity, path, "lint.misplaced-field",
                                 "unknown field '" + leaf + "' (it belongs in " + parent + ")",
                                 "move it to " + target));
  }

  const yaml::Document& m_doc;
  Severity m_severity;
  std::vector<std::string> m_types;
  Diagnostics m_out;
};

}  // namespace

Diagnostics check_misplaced_fields(const yaml::Document& doc, const RuleOptions& opts) {
  if (!doc.root.is_map()) return {};
  return MisplacedChecker(doc, opts).run();
}

}  // namespace kpt::schema::rules
