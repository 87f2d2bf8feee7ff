// The built-in kinds a job's file carries beside the job (volumes, RBAC, disruption budgets, network
// policies, scaling, quotas): each kind's common mistake is an error at the line and column of the
// field, as the real API server's strict field validation and its cross-field rules say.
#include "plugin/validate/validate_runner.hpp"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

namespace kpt::plugin {
namespace {

/// "line:col severity field rule: message" of every finding of the one document of `text`.
std::vector<std::string> builtin_findings(const std::string& text) {
  const auto report =
      validate_file(yaml::InputFile{"f.yaml", std::make_shared<const std::string>(text), false},
                    default_validate_settings());
  EXPECT_EQ(report.documents.size(), 1u);
  std::vector<std::string> out;
  for (const auto& doc : report.documents) {
    EXPECT_FALSE(doc.skipped) << doc.skip_reason;
    for (const auto& d : doc.findings) {
      out.push_back(std::to_string(d.location.line) + ":" + std::to_string(d.location.col) + " " +
                    to_string(d.severity) + " " + d.field_path + " " + d.rule_id + ": " + d.message);
    }
  }
  return out;
}

struct KindCase {
  const char* name;
  std::string text;
  std::vector<std::string> want;
};

const std::string k_pod_template =
    "  template:\n    metadata:\n      labels: {app: a}\n    spec:\n      containers:\n"
    "      - name: c\n        image: busybox:1.36\n";

TEST(ValidateBuiltinKinds, EachKindsCommonMistakeIsAnErrorAtItsField) {
  const std::vector<KindCase> cases{
      {"pvc storage in GB",
       "apiVersion: v1\nkind: PersistentVolumeClaim\nmetadata:\n  name: data\nspec:\n"
       "  accessModes: [ReadWriteOnce]\n  resources:\n    requests:\n      storage: 10GB\n",
       {"9:16 error spec.resources.requests.storage schema.quantity: invalid quantity '10GB'"}},
      {"statefulset replicas in words",
       "apiVersion: apps/v1\nkind: StatefulSet\nmetadata:\n  name: s\nspec:\n  replicas: two\n"
       "  serviceName: s\n  selector:\n    matchLabels: {app: a}\n" +
           k_pod_template,
       {"6:13 error spec.replicas schema.type: expected integer, got string 'two'"}},
      {"serviceaccount automount as a string",
       "apiVersion: v1\nkind: ServiceAccount\nmetadata:\n  name: sa\nautomountServiceAccountToken: "
       "\"false\"\n",
       {"5:31 error automountServiceAccountToken schema.type: expected boolean, got string 'false'"}},
      {"role verbs as a string",
       "apiVersion: rbac.authorization.k8s.io/v1\nkind: Role\nmetadata:\n  name: r\nrules:\n"
       "- apiGroups: [\"\"]\n  resources: [pods]\n  verbs: get\n",
       {"8:10 error rules[0].verbs schema.type: expected array, got string 'get'"}},
      {"rolebinding without roleRef",
       "apiVersion: rbac.authorization.k8s.io/v1\nkind: RoleBinding\nmetadata:\n  name: rb\nsubjects:\n"
       "- kind: ServiceAccount\n  name: sa\n",
       {"1:1 error roleRef schema.required: missing required field 'roleRef'"}},
      {"clusterrole apiGroup in the singular",
       "apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata:\n  name: cr\nrules:\n"
       "- apiGroup: [\"\"]\n  resources: [pods]\n  verbs: [get]\n",
       {"6:3 error rules[0].apiGroup schema.unknown-field: unknown field 'apiGroup'"}},
      {"clusterrolebinding subject without a name",
       "apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRoleBinding\nmetadata:\n  name: crb\n"
       "roleRef:\n  apiGroup: rbac.authorization.k8s.io\n  kind: ClusterRole\n  name: cr\nsubjects:\n"
       "- kind: ServiceAccount\n  namespace: ns\n",
       {"10:3 error subjects[0].name schema.required: missing required field 'name'"}},
      {"pdb with both budgets",
       "apiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata:\n  name: p\nspec:\n  minAvailable: 1\n"
       "  maxUnavailable: 1\n  selector:\n    matchLabels: {app: a}\n",
       {"6:3 error spec schema.cel: minAvailable and maxUnavailable cannot be both set"}},
      {"networkpolicy policyTypes as a string",
       "apiVersion: networking.k8s.io/v1\nkind: NetworkPolicy\nmetadata:\n  name: np\nspec:\n"
       "  podSelector: {}\n  policyTypes: Ingress\n",
       {"7:16 error spec.policyTypes schema.type: expected array, got string 'Ingress'"}},
      {"cronjob template straight under spec",
       "apiVersion: batch/v1\nkind: CronJob\nmetadata:\n  name: cj\nspec:\n  schedule: '*/5 * * * *'\n"
       "  jobTemplate:\n    spec:\n      template:\n        spec:\n          restartPolicy: Never\n"
       "          containers:\n          - name: c\n            image: busybox:1.36\n"
       "  template: {}\n",
       {"15:3 error spec.template schema.unknown-field: unknown field 'template'"}},
      {"ingress with the v1beta1 backend",
       "apiVersion: networking.k8s.io/v1\nkind: Ingress\nmetadata:\n  name: i\nspec:\n  rules:\n"
       "  - http:\n      paths:\n      - path: /\n        pathType: Prefix\n        backend:\n"
       "          serviceName: web\n          servicePort: 80\n",
       {"12:11 error spec.rules[0].http.paths[0].backend.serviceName schema.unknown-field: unknown field "
        "'serviceName'",
        "13:11 error spec.rules[0].http.paths[0].backend.servicePort schema.unknown-field: unknown field "
        "'servicePort'"}},
      {"hpa v1 field in autoscaling/v2",
       "apiVersion: autoscaling/v2\nkind: HorizontalPodAutoscaler\nmetadata:\n  name: h\nspec:\n"
       "  scaleTargetRef:\n    apiVersion: apps/v1\n    kind: Deployment\n    name: web\n"
       "  minReplicas: 1\n  maxReplicas: 4\n  targetCPUUtilizationPercentage: 80\n",
       {"12:3 error spec.targetCPUUtilizationPercentage schema.unknown-field: unknown field "
        "'targetCPUUtilizationPercentage'"}},
      {"resourcequota in words",
       "apiVersion: v1\nkind: ResourceQuota\nmetadata:\n  name: q\nspec:\n  hard:\n    requests.cpu: 4 "
       "cores\n",
       {"7:19 error spec.hard.requests.cpu schema.quantity: invalid quantity '4 cores'"}},
      {"limitrange limits as one mapping",
       "apiVersion: v1\nkind: LimitRange\nmetadata:\n  name: l\nspec:\n  limits:\n    type: Container\n",
       {"6:3 error spec.limits schema.type: expected array, got object"}},
      {"priorityclass value as a string",
       "apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata:\n  name: high\nvalue: \"1000\"\n",
       {"5:8 error value schema.type: expected integer, got string '1000'"}},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    EXPECT_EQ(builtin_findings(c.text), c.want);
  }
}

TEST(ValidateBuiltinKinds, TheCleanFormOfEachKindIsClean) {
  const std::vector<std::string> clean{
      "apiVersion: v1\nkind: PersistentVolumeClaim\nmetadata:\n  name: data\nspec:\n"
      "  accessModes: [ReadWriteOnce]\n  resources:\n    requests:\n      storage: 10Gi\n",
      "apiVersion: apps/v1\nkind: StatefulSet\nmetadata:\n  name: s\nspec:\n  replicas: 2\n"
      "  serviceName: s\n  selector:\n    matchLabels: {app: a}\n" +
          k_pod_template +
          "  volumeClaimTemplates:\n  - metadata:\n      name: data\n    spec:\n"
          "      accessModes: [ReadWriteOnce]\n      resources:\n        requests:\n          storage: 1Gi\n",
      "apiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata:\n  name: p\nspec:\n  minAvailable: 50%\n"
      "  selector:\n    matchLabels: {app: a}\n",
      "apiVersion: networking.k8s.io/v1\nkind: NetworkPolicy\nmetadata:\n  name: np\nspec:\n"
      "  podSelector:\n    matchLabels: {app: a}\n  policyTypes: [Ingress]\n  ingress:\n  - from:\n"
      "    - podSelector:\n        matchLabels: {app: a}\n    ports:\n    - port: 29500\n      protocol: "
      "TCP\n",
      "apiVersion: networking.k8s.io/v1\nkind: Ingress\nmetadata:\n  name: i\nspec:\n  rules:\n"
      "  - http:\n      paths:\n      - path: /\n        pathType: Prefix\n        backend:\n"
      "          service:\n            name: web\n            port:\n              number: 80\n",
      "apiVersion: autoscaling/v2\nkind: HorizontalPodAutoscaler\nmetadata:\n  name: h\nspec:\n"
      "  scaleTargetRef:\n    apiVersion: apps/v1\n    kind: Deployment\n    name: web\n  maxReplicas: 4\n"
      "  metrics:\n  - type: Resource\n    resource:\n      name: cpu\n      target:\n"
      "        type: Utilization\n        averageUtilization: 80\n",
      "apiVersion: v1\nkind: ResourceQuota\nmetadata:\n  name: q\nspec:\n  hard:\n    requests.cpu: '4'\n"
      "    requests.nvidia.com/gpu: 8\n",
      "apiVersion: v1\nkind: LimitRange\nmetadata:\n  name: l\nspec:\n  limits:\n  - type: Container\n"
      "    max:\n      cpu: '2'\n",
      "apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata:\n  name: high\nvalue: 1000\n"
      "preemptionPolicy: Never\n",
      "apiVersion: rbac.authorization.k8s.io/v1\nkind: RoleBinding\nmetadata:\n  name: rb\nroleRef:\n"
      "  apiGroup: rbac.authorization.k8s.io\n  kind: Role\n  name: r\nsubjects:\n"
      "- kind: ServiceAccount\n  name: sa\n",
  };
  for (const auto& text : clean) {
    SCOPED_TRACE(text);
    EXPECT_EQ(builtin_findings(text), std::vector<std::string>{});
  }
}

}  // namespace
}  // namespace kpt::plugin
