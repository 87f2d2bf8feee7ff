#include "controller/manifests.hpp"

#include "model/trainjob/runtime_catalog.hpp"
#include "schema/carried/carried_crds.hpp"
#include "schema/carried/crd_descriptions.hpp"
#include "yaml/yaml_writer.hpp"

#include <nlohmann/json.hpp>

#include <string_view>

namespace kpt::controller {

namespace {

constexpr const char* k_namespace = R"(apiVersion: v1
kind: Namespace
metadata:
  name: @NS@
---
)";

constexpr const char* k_service_account = R"(apiVersion: v1
kind: ServiceAccount
metadata:
  name: kubectl-pytorch-controller
  namespace: @NS@
---
)";

// Least privilege: exactly the verbs the controller uses, no wildcards. The finalizers rules are
// what the API server's OwnerReferencesPermissionEnforcement asks of a controller whose pods and
// Services set blockOwnerDeletion on their job (update on the owner's finalizers).
constexpr const char* k_job_rules = R"(- apiGroups: ["kubeflow.org"]
  resources: ["pytorchjobs"]
  verbs: ["get", "list", "watch", "patch", "delete"]
- apiGroups: ["kubeflow.org"]
  resources: ["pytorchjobs/status"]
  verbs: ["get", "update"]
- apiGroups: ["kubeflow.org"]
  resources: ["pytorchjobs/finalizers"]
  verbs: ["update"]
- apiGroups: [""]
  resources: ["pods", "services"]
  verbs: ["get", "list", "watch", "create", "delete"]
- apiGroups: [""]
  resources: ["events"]
  verbs: ["create"]
- apiGroups: ["scheduling.volcano.sh", "scheduling.x-k8s.io"]
  resources: ["podgroups"]
  verbs: ["create", "delete"]
)";

// The guard: the Deployments of a Training Operator, of Trainer or of another instance of ours, in
// any namespace (controller_guard.hpp). Read-only, and cluster-wide even for a namespaced install,
// since those controllers run elsewhere.
constexpr const char* k_guard_rules = R"(- apiGroups: ["apps"]
  resources: ["deployments"]
  verbs: ["get", "list"]
)";

constexpr const char* k_binding = R"(apiVersion: rbac.authorization.k8s.io/v1
kind: @KIND@Binding
metadata:
  name: @NAME@@META_NS@
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: @KIND@
  name: @NAME@
subjects:
- kind: ServiceAccount
  name: kubectl-pytorch-controller
  namespace: @NS@
---
)";

constexpr const char* k_lease_rules = R"(- apiGroups: ["coordination.k8s.io"]
  resources: ["leases"]
  verbs: ["get", "create", "update"]
)";

// Pod Security "restricted": non-root, no privilege escalation, no capabilities, the runtime's
// default seccomp profile. Two replicas behind a Lease, and a budget that keeps one through a
// node drain.
constexpr const char* k_deployment = R"(apiVersion: apps/v1
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
        seccompProfile:
          type: RuntimeDefault
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
---
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata:
  name: kubectl-pytorch-controller
  namespace: @NS@
spec:
  minAvailable: 1
  selector:
    matchLabels:
      app.kubernetes.io/name: kubectl-pytorch-controller
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
  resources: ["trainjobs/finalizers"]
  verbs: ["update"]
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

// The Service the pods reach the status server by (KUBEFLOW_TRAINER_SERVER_URL).
constexpr const char* k_status_service = R"(---
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
)";

// The status server's Role: the Secret holding the certificate every replica serves (created by the
// first one).
constexpr const char* k_status_server_rules = R"(- apiGroups: [""]
  resources: ["secrets"]
  resourceNames: ["kubectl-pytorch-controller-status-cert"]
  verbs: ["get"]
- apiGroups: [""]
  resources: ["secrets"]
  verbs: ["create"]
)";

std::string replace_all(std::string text, const std::string& from, const std::string& to) {
  for (auto pos = text.find(from); pos != std::string::npos; pos = text.find(from, pos + to.size())) {
    text.replace(pos, from.size(), to);
  }
  return text;
}

/// A ClusterRole (namespace "") or a Role in `ns`, with `rules`.
std::string role(const std::string& name, const std::string& ns, const std::string& rules) {
  std::string out =
      "apiVersion: rbac.authorization.k8s.io/v1\nkind: " + std::string(ns.empty() ? "ClusterRole" : "Role") +
      "\nmetadata:\n  name: " + name + "\n";
  if (!ns.empty()) out += "  namespace: " + ns + "\n";
  return out + "rules:\n" + rules + "---\n";
}

/// The binding of `role(name, ns)` to our ServiceAccount in `sa_ns`.
std::string binding(const std::string& name, const std::string& ns, const std::string& sa_ns) {
  auto out = replace_all(k_binding, "@KIND@", ns.empty() ? "ClusterRole" : "Role");
  out = replace_all(out, "@NAME@", name);
  out = replace_all(out, "@META_NS@", ns.empty() ? "" : "\n  namespace: " + ns);
  return replace_all(out, "@NS@", sa_ns);
}

/// The first lines: what the file holds, the command that prints it, and how to apply it.
std::string header_of(const ManifestOptions& options) {
  std::string flags;
  if (options.namespaced) flags += " -n " + options.namespace_;
  if (options.trainer) flags += " --trainer";
  if (options.via_jobset) flags += " --via-jobset";
  if (options.skip_crds) flags += " --skip-crds";
  const std::string command = "kubectl pytorch controller manifests" + flags;
  std::string what = options.namespaced ? "reconciling the jobs of namespace " + options.namespace_ + " only"
                                        : "reconciling the jobs of every namespace";
  if (options.via_jobset)
    what += ", TrainJobs into JobSets (the cluster runs JobSet and has the Trainer CRDs)";
  std::string out = "# kubectl-pytorch controller " + what + ": " +
                    (options.skip_crds ? std::string("RBAC and Deployment (no CRDs)")
                     : options.trainer ? "CRDs (PyTorchJob and Trainer v2), RBAC and Deployment"
                                       : "CRD, RBAC and Deployment") +
                    "\n# (" + command + "). Apply with: kubectl apply --server-side -f FILE\n";
  if (!options.skip_crds) {
    out +=
        "# The CRDs (with the upstream field descriptions, for kubectl explain) replace any of the same "
        "name\n"
        "# another installer (the Training Operator, Trainer) put there:\n"
        "# on such a cluster print these with --skip-crds.\n";
  }
  if (options.trainer) {
    out +=
        "# Then Trainer's default runtimes, once the CRDs are established:\n"
        "#   kubectl wait --for condition=established crd/clustertrainingruntimes.trainer.kubeflow.org\n"
        "#   kubectl pytorch controller manifests --runtimes | kubectl apply --server-side -f -\n";
  }
  return out + "---\n";
}

}  // namespace

std::string crd_manifest() { return yaml::to_yaml(schema::with_descriptions(schema::pytorchjob_crd())); }

std::string controller_manifests(const ManifestOptions& options) {
  const std::string& ns = options.namespace_;
  std::string out = header_of(options);
  if (!options.skip_crds) {
    out += crd_manifest() + "---\n";
    if (options.trainer) {
      for (auto& crd : schema::trainer_crds())
        out += yaml::to_yaml(schema::with_descriptions(std::move(crd))) + "---\n";
    }
  }
  if (!options.namespaced) out += replace_all(k_namespace, "@NS@", ns);
  out += replace_all(k_service_account, "@NS@", ns);
  std::string rules = k_job_rules;
  if (options.trainer || options.via_jobset) rules += k_trainer_rules;
  if (options.via_jobset) rules += k_jobset_rules;
  if (options.train_job_status) rules += k_status_rules;
  const std::string name = "kubectl-pytorch-controller";
  if (options.namespaced) {
    out += role(name, ns, rules) + binding(name, ns, ns);
    const std::string guard = name + "-guard-" + ns;
    out += role(guard, "", k_guard_rules) + binding(guard, "", ns);
  } else {
    out += role(name, "", rules + k_guard_rules) + binding(name, "", ns);
  }
  out += role(name + "-leader-election", ns, k_lease_rules) + binding(name + "-leader-election", ns, ns);
  std::string args = options.namespaced ? "        - --namespace=" + ns + "\n" : "";
  if (options.via_jobset) args += "        - --via-jobset\n";
  if (options.train_job_status) args += "        - --feature-gates=TrainJobStatus=true\n";
  auto deployment = replace_all(k_deployment, "@NS@", ns);
  deployment = replace_all(deployment, "@IMAGE@", options.image);
  deployment = replace_all(deployment, "@STATUS_PORT@", options.train_job_status ? k_status_port : "");
  out += replace_all(deployment, "@EXTRA_ARGS@", args);
  if (options.train_job_status) {
    const std::string status_server = name + "-status-server";
    out += replace_all(k_status_service, "@NS@", ns) + role(status_server, ns, k_status_server_rules) +
           binding(status_server, ns, ns);
    out.resize(out.size() - std::string_view("---\n").size());  // the stream's last document
  }
  return out;
}

std::string runtime_manifests() {
  std::string out = "# Kubeflow Trainer's default ClusterTrainingRuntimes (" +
                    model::trainjob::k_newest_trainer_release.to_string() +
                    "), for a cluster without Trainer\n# (kubectl pytorch controller manifests --runtimes), "
                    "applied once the CRDs of "
                    "'manifests --trainer' are established.\n";
  for (const auto& runtime : model::trainjob::carried_runtimes(model::trainjob::k_newest_trainer_release))
    out += "---\n" + yaml::to_yaml(runtime);
  return out;
}

}  // namespace kpt::controller
