#include "controller/manifests.hpp"

#include "controller/crd.hpp"
#include "model/trainjob/runtime_catalog.hpp"
#include "yaml/yaml_writer.hpp"

#include <nlohmann/json.hpp>

namespace kpt::controller {

namespace {

// Least privilege: exactly the verbs the controller uses, no wildcards.
constexpr const char* k_rest = R"(apiVersion: v1
kind: Namespace
metadata:
  name: @NS@
---
apiVersion: v1
kind: ServiceAccount
metadata:
  name: kubectl-pytorch-controller
  namespace: @NS@
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: kubectl-pytorch-controller
rules:
- apiGroups: ["kubeflow.org"]
  resources: ["pytorchjobs"]
  verbs: ["get", "list", "watch", "patch", "delete"]
- apiGroups: ["kubeflow.org"]
  resources: ["pytorchjobs/status"]
  verbs: ["get", "update"]
- apiGroups: [""]
  resources: ["pods", "services"]
  verbs: ["get", "list", "watch", "create", "delete"]
- apiGroups: [""]
  resources: ["events"]
  verbs: ["create"]
- apiGroups: ["apps"]
  resources: ["deployments"]
  verbs: ["get", "list"]
- apiGroups: ["scheduling.volcano.sh", "scheduling.x-k8s.io"]
  resources: ["podgroups"]
  verbs: ["create", "delete"]
@TRAINER_RULES@@STATUS_RULES@---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: kubectl-pytorch-controller
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: kubectl-pytorch-controller
subjects:
- kind: ServiceAccount
  name: kubectl-pytorch-controller
  namespace: @NS@
---
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata:
  name: kubectl-pytorch-controller-leader-election
  namespace: @NS@
rules:
- apiGroups: ["coordination.k8s.io"]
  resources: ["leases"]
  verbs: ["get", "create", "update"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata:
  name: kubectl-pytorch-controller-leader-election
  namespace: @NS@
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: Role
  name: kubectl-pytorch-controller-leader-election
subjects:
- kind: ServiceAccount
  name: kubectl-pytorch-controller
  namespace: @NS@
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: kubectl-pytorch-controller
  namespace: @NS@
  labels:
    app.kubernetes.io/name: kubectl-pytorch-controller
spec:
  replicas: 2
  selector:
    matchLabels:
      app.kubernetes.io/name: kubectl-pytorch-controller
  template:
    metadata:
      labels:
        app.kubernetes.io/name: kubectl-pytorch-controller
    spec:
      serviceAccountName: kubectl-pytorch-controller
      securityContext:
        runAsNonRoot: true
        runAsUser: 65532
      containers:
      - name: controller
        image: @IMAGE@
        args:
        - controller
        - --leader-elect
        - --lease-namespace=@NS@
        - --metrics-addr=:8080
        - --log-format=json
@EXTRA_ARGS@        ports:
        - name: metrics
          containerPort: 8080
@STATUS_PORT@        livenessProbe:
          httpGet:
            path: /healthz
            port: metrics
          initialDelaySeconds: 5
          periodSeconds: 10
        readinessProbe:
          httpGet:
            path: /readyz
            port: metrics
          periodSeconds: 5
        resources:
          requests:
            cpu: 50m
            memory: 64Mi
          limits:
            memory: 128Mi
        securityContext:
          allowPrivilegeEscalation: false
          readOnlyRootFilesystem: true
          capabilities:
            drop: ["ALL"]
)";

// What the TrainJob reconciler reads and writes: its jobs (the restart-count annotation by patch,
// conditions by status update), the runtimes, and the runtime snapshot ConfigMap it creates.
constexpr const char* k_trainer_rules = R"(- apiGroups: ["trainer.kubeflow.org"]
  resources: ["trainjobs"]
  verbs: ["get", "list", "watch", "patch"]
- apiGroups: ["trainer.kubeflow.org"]
  resources: ["trainjobs/status"]
  verbs: ["get", "update"]
- apiGroups: ["trainer.kubeflow.org"]
  resources: ["trainingruntimes", "clustertrainingruntimes"]
  verbs: ["get", "list", "watch"]
- apiGroups: [""]
  resources: ["configmaps"]
  verbs: ["get", "create"]
)";

// What --via-jobset adds for the JobSets: watched, server-side applied (an apply that creates is
// authorized as create too) and deleted past a TrainJob's active deadline.
constexpr const char* k_jobset_rules = R"(- apiGroups: ["jobset.x-k8s.io"]
  resources: ["jobsets"]
  verbs: ["list", "watch", "create", "patch", "delete"]
)";

// TrainJobStatus: the status server reviews the pods' tokens, writes each job's CA ConfigMap
// (server-side apply, which may create it) and a TrainJob's status by server-side apply.
constexpr const char* k_status_rules = R"(- apiGroups: ["authentication.k8s.io"]
  resources: ["tokenreviews"]
  verbs: ["create"]
- apiGroups: [""]
  resources: ["configmaps"]
  verbs: ["create", "patch"]
- apiGroups: ["trainer.kubeflow.org"]
  resources: ["trainjobs/status"]
  verbs: ["patch"]
)";

constexpr const char* k_status_port = R"(        - name: status-server
          containerPort: 10443
)";

// The Service the pods reach the status server by (KUBEFLOW_TRAINER_SERVER_URL), and the Secret
// holding the certificate every replica serves (created by the first one).
constexpr const char* k_status_objects = R"(---
apiVersion: v1
kind: Service
metadata:
  name: kubectl-pytorch-controller
  namespace: @NS@
  labels:
    app.kubernetes.io/name: kubectl-pytorch-controller
spec:
  selector:
    app.kubernetes.io/name: kubectl-pytorch-controller
  ports:
  - name: status-server
    port: 10443
    targetPort: status-server
---
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata:
  name: kubectl-pytorch-controller-status-server
  namespace: @NS@
rules:
- apiGroups: [""]
  resources: ["secrets"]
  resourceNames: ["kubectl-pytorch-controller-status-cert"]
  verbs: ["get"]
- apiGroups: [""]
  resources: ["secrets"]
  verbs: ["create"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata:
  name: kubectl-pytorch-controller-status-server
  namespace: @NS@
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: Role
  name: kubectl-pytorch-controller-status-server
subjects:
- kind: ServiceAccount
  name: kubectl-pytorch-controller
  namespace: @NS@
)";

std::string replace_all(std::string text, const std::string& from, const std::string& to) {
  for (auto pos = text.find(from); pos != std::string::npos; pos = text.find(from, pos + to.size())) {
    text.replace(pos, from.size(), to);
  }
  return text;
}

/// The first lines: what the file holds, the command that prints it, and how to apply it.
std::string header_of(const ManifestOptions& options) {
  const std::string flags =
      std::string(options.trainer ? " --trainer" : "") + (options.via_jobset ? " --via-jobset" : "");
  const std::string command = "kubectl pytorch controller manifests" + flags;
  if (options.trainer) {
    return "# kubectl-pytorch controller: CRDs (PyTorchJob and Trainer v2), Trainer's default runtimes, "
           "RBAC and Deployment\n# (" +
           command + "). Apply with: kubectl apply --server-side -f FILE\n---\n";
  }
  if (options.via_jobset) {
    return "# kubectl-pytorch controller reconciling TrainJobs into JobSets: CRD, RBAC and Deployment\n# (" +
           command + "; the cluster runs JobSet and has the Trainer CRDs)\n---\n";
  }
  return "# kubectl-pytorch controller: CRD, RBAC and Deployment (" + command + ")\n---\n";
}

}  // namespace

std::string crd_manifest() { return yaml::to_yaml(pytorchjob_crd()); }

std::string controller_manifests(const ManifestOptions& options) {
  auto rest = replace_all(k_rest, "@NS@", options.namespace_);
  rest = replace_all(rest, "@IMAGE@", options.image);
  std::string trainer_rules = options.trainer || options.via_jobset ? k_trainer_rules : "";
  if (options.via_jobset) trainer_rules += k_jobset_rules;
  rest = replace_all(rest, "@TRAINER_RULES@", trainer_rules);
  std::string extra_args = options.via_jobset ? "        - --via-jobset\n" : "";
  if (options.train_job_status) extra_args += "        - --feature-gates=TrainJobStatus=true\n";
  rest = replace_all(rest, "@EXTRA_ARGS@", extra_args);
  rest = replace_all(rest, "@STATUS_RULES@", options.train_job_status ? k_status_rules : "");
  rest = replace_all(rest, "@STATUS_PORT@", options.train_job_status ? k_status_port : "");
  if (options.train_job_status) rest += replace_all(k_status_objects, "@NS@", options.namespace_);
  // The Trainer CRDs are too large for client-side apply's last-applied annotation (256 KiB),
  // as with Trainer's own manifests: say so where the user reads first.
  std::string out = header_of(options);
  out += crd_manifest() + "---\n";
  if (options.trainer) {
    for (const auto& crd : trainer_crds()) out += yaml::to_yaml(crd) + "---\n";
  }
  out += rest;
  if (options.trainer) {
    for (const auto& runtime : model::trainjob::carried_runtimes(model::trainjob::k_newest_trainer_release))
      out += "---\n" + yaml::to_yaml(runtime);
  }
  return out;
}

}  // namespace kpt::controller
