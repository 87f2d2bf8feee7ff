#include "controller/manifests.hpp"

namespace kpt::controller {

namespace {

// The pod template is `type: object` with preserve-unknown-fields, not an embedded resource:
// the API server requires apiVersion and kind on embedded resources, which templates lack.
constexpr const char* k_crd = R"(apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: pytorchjobs.kubeflow.org
  labels:
    app.kubernetes.io/name: kubectl-pytorch-controller
spec:
  group: kubeflow.org
  names:
    kind: PyTorchJob
    listKind: PyTorchJobList
    plural: pytorchjobs
    singular: pytorchjob
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    additionalPrinterColumns:
    - jsonPath: .status.conditions[-1:].type
      name: State
      type: string
    - jsonPath: .metadata.creationTimestamp
      name: Age
      type: date
    subresources:
      status: {}
      scale:
        specReplicasPath: .spec.pytorchReplicaSpecs.Worker.replicas
        statusReplicasPath: .status.replicaStatuses.Worker.active
        labelSelectorPath: .status.replicaStatuses.Worker.selector
    schema:
      openAPIV3Schema:
        type: object
        properties:
          apiVersion:
            type: string
          kind:
            type: string
          metadata:
            type: object
          spec:
            type: object
            required:
            - pytorchReplicaSpecs
            properties:
              runPolicy:
                type: object
                properties:
                  activeDeadlineSeconds:
                    type: integer
                    format: int64
                  backoffLimit:
                    type: integer
                    format: int32
                  cleanPodPolicy:
                    type: string
                  managedBy:
                    type: string
                  schedulingPolicy:
                    type: object
                    properties:
                      minAvailable:
                        type: integer
                        format: int32
                      minResources:
                        type: object
                        additionalProperties:
                          anyOf:
                          - type: integer
                          - type: string
                          x-kubernetes-int-or-string: true
                      priorityClass:
                        type: string
                      queue:
                        type: string
                      scheduleTimeoutSeconds:
                        type: integer
                        format: int32
                  suspend:
                    type: boolean
                    default: false
                  ttlSecondsAfterFinished:
                    type: integer
                    format: int32
              pytorchReplicaSpecs:
                type: object
                additionalProperties:
                  type: object
                  properties:
                    replicas:
                      type: integer
                      format: int32
                    restartPolicy:
                      type: string
                    template:
                      type: object
                      x-kubernetes-preserve-unknown-fields: true
                      properties:
                        metadata:
                          type: object
                          x-kubernetes-preserve-unknown-fields: true
                        spec:
                          type: object
                          x-kubernetes-preserve-unknown-fields: true
              nprocPerNode:
                type: string
              elasticPolicy:
                type: object
                properties:
                  maxReplicas:
                    type: integer
                    format: int32
                  maxRestarts:
                    type: integer
                    format: int32
                  metrics:
                    type: array
                    items:
                      type: object
                      x-kubernetes-preserve-unknown-fields: true
                  minReplicas:
                    type: integer
                    format: int32
                  nProcPerNode:
                    type: integer
                    format: int32
                  rdzvBackend:
                    type: string
                  rdzvConf:
                    type: array
                    items:
                      type: object
                      properties:
                        key:
                          type: string
                        value:
                          type: string
                  rdzvHost:
                    type: string
                  rdzvId:
                    type: string
                  rdzvPort:
                    type: integer
                    format: int32
                  standalone:
                    type: boolean
          status:
            type: object
            properties:
              completionTime:
                type: string
                format: date-time
              conditions:
                type: array
                items:
                  type: object
                  required:
                  - status
                  - type
                  properties:
                    lastTransitionTime:
                      type: string
                      format: date-time
                    lastUpdateTime:
                      type: string
                      format: date-time
                    message:
                      type: string
                    reason:
                      type: string
                    status:
                      type: string
                    type:
                      type: string
              lastReconcileTime:
                type: string
                format: date-time
              replicaStatuses:
                type: object
                additionalProperties:
                  type: object
                  properties:
                    active:
                      type: integer
                      format: int32
                    failed:
                      type: integer
                      format: int32
                    selector:
                      type: string
                    succeeded:
                      type: integer
                      format: int32
              startTime:
                type: string
                format: date-time
)";

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
---
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
        ports:
        - name: metrics
          containerPort: 8080
        livenessProbe:
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

std::string replace_all(std::string text, const std::string& from, const std::string& to) {
  for (auto pos = text.find(from); pos != std::string::npos; pos = text.find(from, pos + to.size())) {
    text.replace(pos, from.size(), to);
  }
  return text;
}

}  // namespace

std::string crd_manifest() { return k_crd; }

std::string controller_manifests(const ManifestOptions& options) {
  auto rest = replace_all(k_rest, "@NS@", options.namespace_);
  rest = replace_all(rest, "@IMAGE@", options.image);
  return std::string("# kubectl-pytorch controller: CRD, RBAC and Deployment (kubectl pytorch controller manifests)\n---\n") +
         k_crd + "---\n" + rest;
}

}  // namespace kpt::controller
