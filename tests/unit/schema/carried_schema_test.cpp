#include "schema/carried/carried_schema.hpp"

#include "schema/structural_schema.hpp"
#include "yaml/manifest_reader.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <memory>
#include <string>
#include <vector>

namespace kpt::schema {
namespace {

// A job of our own that uses a wide part of the pod template, valid for the carried schema.
constexpr const char* k_valid_job = R"(apiVersion: kubeflow.org/v1
kind: PyTorchJob
metadata:
  name: resnet
  labels: {team: vision}
spec:
  nprocPerNode: auto
  runPolicy:
    cleanPodPolicy: Running
    backoffLimit: 3
    suspend: false
    managedBy: kubeflow.org/training-operator
    schedulingPolicy: {minAvailable: 3, queue: research, minResources: {cpu: "24", memory: 96Gi}}
  elasticPolicy: {minReplicas: 1, maxReplicas: 4, rdzvBackend: c10d, rdzvConf: [{key: timeout, value: "900"}]}
  pytorchReplicaSpecs:
    Master:
      replicas: 1
      restartPolicy: OnFailure
      template:
        metadata: {labels: {role: master}}
        spec:
          containers:
          - name: pytorch
            image: registry.example.com/resnet:1.0
            command: [torchrun, train.py]
            env:
            - {name: NCCL_DEBUG, value: INFO}
            - name: POD_IP
              valueFrom: {fieldRef: {fieldPath: status.podIP}}
            ports: [{containerPort: 23456, name: pytorchjob-port}, {containerPort: 23456, protocol: UDP}]
            resources:
              limits: {cpu: 8, memory: 32Gi, nvidia.com/gpu: 1}
              requests: {cpu: 3500m, memory: 1.5Gi}
            volumeMounts: [{name: dshm, mountPath: /dev/shm}]
            startupProbe: {grpc: {port: 9000}, failureThreshold: 30}
            livenessProbe: {httpGet: {path: /healthz, port: http}}
            lifecycle: {preStop: {sleep: {seconds: 5}}, stopSignal: SIGTERM}
            securityContext: {seccompProfile: {type: RuntimeDefault}, allowPrivilegeEscalation: false}
            restartPolicyRules: [{action: Restart, exitCodes: {operator: In, values: [42]}}]
          initContainers:
          - {name: sidecar, image: busybox, restartPolicy: Always}
          volumes:
          - {name: dshm, emptyDir: {medium: Memory, sizeLimit: 8Gi}}
          - name: scratch
            ephemeral:
              volumeClaimTemplate:
                spec: {accessModes: [ReadWriteOnce], resources: {requests: {storage: 100Gi}}}
          topologySpreadConstraints:
          - {maxSkew: 1, topologyKey: zone, whenUnsatisfiable: DoNotSchedule, labelSelector: {matchLabels: {a: b}}}
          schedulingGates: [{name: wait}]
          os: {name: linux}
          tolerations: [{key: nvidia.com/gpu, operator: Exists, effect: NoSchedule, tolerationSeconds: 60}]
)";

yaml::Document parse_one(const std::string& yaml) {
  auto result = yaml::read_manifests("job.yaml", std::make_shared<const std::string>(yaml));
  EXPECT_TRUE(result.findings.empty()) << result.findings.front().message;
  EXPECT_EQ(result.documents.size(), 1u);
  return result.documents.front();
}

Diagnostics errors_of(const std::string& yaml) {
  const StructuralSchema* schema = carried_schema().find("kubeflow.org/v1", "PyTorchJob");
  EXPECT_NE(schema, nullptr);
  if (schema == nullptr) return {};
  Diagnostics out;
  for (auto& d : validate_structure(parse_one(yaml), *schema, StructuralOptions{})) {
    if (d.severity == Severity::error) out.push_back(std::move(d));
  }
  return out;
}

std::string replaced(std::string text, const std::string& from, const std::string& to) {
  const auto at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos) text.replace(at, from.size(), to);
  return text;
}

TEST(CarriedSchema, ServesPyTorchJobV1AndSaysWhereItCameFrom) {
  EXPECT_NE(carried_schema().find("kubeflow.org/v1", "PyTorchJob"), nullptr);
  EXPECT_EQ(carried_schema().find("kubeflow.org/v1", "TFJob"), nullptr);
  EXPECT_EQ(carried_schema().api_versions("PyTorchJob"), std::vector<std::string>{"kubeflow.org/v1"});
  EXPECT_EQ(carried_schema().origin(), "carried v1.9.4");
  EXPECT_EQ(&carried_schema(), &carried_schema());
}

TEST(CarriedSchema, AcceptsAJobUsingTheNewestFieldSet) {
  for (const auto& d : errors_of(k_valid_job)) ADD_FAILURE() << d.field_path << ": " << d.message;
}

TEST(CarriedSchema, ChecksThePodTemplateOffline) {
  const std::string c = "spec.pytorchReplicaSpecs.Master.template.spec.containers[0].";
  struct Case {
    const char* name;
    std::string from, to;
    std::string field;  // field path of the one expected error
  };
  const std::vector<Case> cases = {
      {"misspelled container field", "command: [torchrun", "comand: [torchrun", c + "comand"},
      {"port name where a number goes", "{containerPort: 23456, name: pytorchjob-port}",
       "{containerPort: \"http\", name: pytorchjob-port}", c + "ports[0].containerPort"},
      {"env value that is a number", "value: INFO}", "value: 5}", c + "env[0].value"},
      {"bad quantity", "memory: 32Gi", "memory: 16GB", c + "resources.limits.memory"},
      {"duplicate container port", "{containerPort: 23456, protocol: UDP}",
       "{containerPort: 23456, protocol: TCP}", c + "ports[1]"},
      {"int32 overflow", "replicas: 1\n", "replicas: 3000000000\n",
       "spec.pytorchReplicaSpecs.Master.replicas"},
      {"missing required grpc port", "grpc: {port: 9000}", "grpc: {service: x}",
       c + "startupProbe.grpc.port"},
      {"unknown field in the job spec", "nprocPerNode: auto", "nprocPerNodes: auto", "spec.nprocPerNodes"},
  };
  for (const auto& k : cases) {
    SCOPED_TRACE(k.name);
    const auto errors = errors_of(replaced(k_valid_job, k.from, k.to));
    ASSERT_EQ(errors.size(), 1u);
    EXPECT_EQ(errors.front().field_path.rfind(k.field, 0), 0u) << errors.front().field_path;
  }
}

TEST(CarriedSchema, TheImmutableQueueRuleIsSkippedOnCreate) {
  // v1.8+ marks spec.runPolicy.schedulingPolicy.queue immutable with the transition rule
  // self == oldSelf, which the API server does not evaluate on create.
  const StructuralSchema* schema = carried_schema().find("kubeflow.org/v1", "PyTorchJob");
  ASSERT_NE(schema, nullptr);
  std::vector<std::string> infos;
  for (const auto& d : validate_structure(parse_one(k_valid_job), *schema, StructuralOptions{})) {
    if (d.rule_id == "schema.cel-transition") infos.push_back(d.message);
  }
  EXPECT_EQ(infos, std::vector<std::string>{"1 transition rule (oldSelf) not evaluated on create: "
                                            "spec.runPolicy.schedulingPolicy.queue: 'self == oldSelf'"});
}

TEST(CarriedSchema, RequiresReplicaSpecsAndContainers) {
  const auto errors =
      errors_of("apiVersion: kubeflow.org/v1\nkind: PyTorchJob\nmetadata: {name: j}\nspec: {}\n");
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors.front().rule_id, "schema.required");
}

TEST(CarriedOpenapiJson, IsTheCompactSortedSchemaWithControllerGenConventions) {
  const auto json = nlohmann::json::parse(carried_openapi_json());
  EXPECT_EQ(json.dump(), std::string(carried_openapi_json().substr(0, carried_openapi_json().size() - 1)));
  const auto& spec = json["properties"]["spec"];
  EXPECT_EQ(spec["required"], nlohmann::json::array({"pytorchReplicaSpecs"}));
  EXPECT_EQ(spec["properties"]["runPolicy"]["properties"]["suspend"]["default"], false);
  EXPECT_EQ(spec["properties"]["runPolicy"]["properties"]["schedulingPolicy"]["properties"]["queue"]
                ["x-kubernetes-validations"][0]["rule"],
            "self == oldSelf");
  const auto& pod = spec["properties"]["pytorchReplicaSpecs"]["additionalProperties"]["properties"]
                        ["template"]["properties"]["spec"];
  EXPECT_EQ(pod["required"], nlohmann::json::array({"containers"}));
  EXPECT_EQ(pod["properties"]["containers"]["x-kubernetes-list-map-keys"], nlohmann::json::array({"name"}));
  const auto& container = pod["properties"]["containers"]["items"];
  EXPECT_EQ(container["properties"]["ports"]["x-kubernetes-list-map-keys"],
            nlohmann::json::array({"containerPort", "protocol"}));
  EXPECT_EQ(container["properties"]["ports"]["items"]["properties"]["protocol"]["default"], "TCP");
  const auto& memory = container["properties"]["resources"]["properties"]["limits"]["additionalProperties"];
  EXPECT_EQ(memory["x-kubernetes-int-or-string"], true);
  EXPECT_TRUE(memory.contains("pattern"));
  EXPECT_EQ(container["properties"]["livenessProbe"]["properties"]["httpGet"]["properties"]["port"]
                     ["x-kubernetes-int-or-string"],
            true);
  EXPECT_FALSE(carried_openapi_json().find("\"description\"") != std::string_view::npos);
}

}  // namespace
}  // namespace kpt::schema
