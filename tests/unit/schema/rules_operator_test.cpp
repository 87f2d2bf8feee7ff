#include "model/pytorchjob/release.hpp"
#include "schema/rules/rules.hpp"
#include "tests/unit/schema/rules_fixtures.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace kpt::schema::rules {
namespace {

using test::read_one;
using test::show_all;

model::pytorchjob::Release rel(const char* text) { return *model::pytorchjob::parse_release(text); }

const char* const k_broken = R"(apiVersion: kubeflow.org/v1
kind: PyTorchJob
metadata:
  name: My_Job
spec:
  pytorchReplicaSpecs:
    Master:
      replicas: 2
      template:
        spec:
          containers:
          - name: main
            image: ""
    chief:
      template:
        spec:
          containers: []
)";

const std::string k_dns1035 =
    "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic "
    "character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for "
    "validation is '[a-z]([-a-z0-9]*[a-z0-9])?')";
const std::string k_name_hint =
    " | hint: use lower-case letters, digits and '-', start with a letter, at most 63 characters";
const std::string k_image_hint = " | hint: set the image of every container";
const std::string k_pytorch_hint =
    " | hint: name the training container 'pytorch': the operator takes its port and exit code from it";
const std::string k_replicas_hint = " | hint: set replicas: 1 on the Master; add Workers for more nodes";
const std::string k_containers_hint =
    " | hint: add a container named 'pytorch' under spec.pytorchReplicaSpecs.chief.template.spec.containers";
const std::string k_type_hint = " | hint: use 'Master' or 'Worker'";

TEST(OperatorRules, WebhookReleasesRejectWithTheWebhookMessages) {
  const auto doc = read_one(k_broken);
  const std::string p = "rejected by the operator v1.9.4 webhook: ";
  const std::vector<std::string> want{
      "4:9 error metadata.name [operator.job-name]: " + p +
          "metadata.name: Invalid value: \"My_Job\": should match: " + k_dns1035 + k_name_hint,
      "13:13 error spec.pytorchReplicaSpecs.Master.template.spec.containers[0].image [operator.no-image]: " +
          p +
          "spec.pytorchReplicaSpecs[Master].template.spec.containers[0].image: Required value: must be "
          "required" +
          k_image_hint,
      "11:11 error spec.pytorchReplicaSpecs.Master.template.spec.containers "
      "[operator.no-pytorch-container]: " +
          p +
          "spec.pytorchReplicaSpecs[Master].template.spec.containers: Required value: must have at least one "
          "container with name pytorch" +
          k_pytorch_hint,
      "8:17 error spec.pytorchReplicaSpecs.Master.replicas [operator.master-replicas]: " + p +
          "spec.pytorchReplicaSpecs[Master].replicas: Forbidden: must be 1" + k_replicas_hint,
      "17:23 error spec.pytorchReplicaSpecs.chief.template.spec.containers [operator.no-containers]: " + p +
          "spec.pytorchReplicaSpecs[chief].template.spec.containers: Required value: must be specified" +
          k_containers_hint,
      "14:5 error spec.pytorchReplicaSpecs.chief [operator.replica-type]: " + p +
          "spec.pytorchReplicaSpecs[chief]: Unsupported value: \"chief\": supported values: \"Master\", "
          "\"Worker\"" +
          k_type_hint,
  };
  EXPECT_EQ(show_all(check_operator_rules(doc, rel("v1.9.4"))), want);
}

TEST(OperatorRules, ReleasesSixAndSevenRecordAnEventAndDoNotStartTheJob) {
  const auto doc = read_one(k_broken);
  const std::string p = "operator v1.7.0 does not start the job (event PyTorchJobFailedValidation): ";
  const std::vector<std::string> want{
      "4:9 error metadata.name [operator.job-name]: " + p + "PyTorchJob name is invalid: [" + k_dns1035 +
          "]" + k_name_hint,
      "13:13 error spec.pytorchReplicaSpecs.Master.template.spec.containers[0].image [operator.no-image]: " +
          p + "PyTorchJobSpec is not valid: Image is undefined in the container of Master" + k_image_hint,
      "11:11 error spec.pytorchReplicaSpecs.Master.template.spec.containers "
      "[operator.no-pytorch-container]: " +
          p + "PyTorchJobSpec is not valid: There is no container named pytorch in Master" + k_pytorch_hint,
      "8:17 error spec.pytorchReplicaSpecs.Master.replicas [operator.master-replicas]: " + p +
          "There must be only 1 master replica" + k_replicas_hint,
      "17:23 error spec.pytorchReplicaSpecs.chief.template.spec.containers [operator.no-containers]: " + p +
          "PyTorchJobSpec is not valid: containers definition expected in chief" + k_containers_hint,
      "14:5 error spec.pytorchReplicaSpecs.chief [operator.replica-type]: " + p +
          "PyTorchReplicaType is chief but must be one of [Master Worker]" + k_type_hint,
  };
  EXPECT_EQ(show_all(check_operator_rules(doc, rel("v1.7.0"))), want);
  const auto v16 = check_operator_rules(doc, rel("v1.6.0"));
  ASSERT_FALSE(v16.empty());
  EXPECT_EQ(v16.front().message.substr(0, 61),
            "operator v1.6.0 does not start the job (event JobFailedValida");
}

TEST(OperatorRules, ReleasesBeforeSixOnlyLogSoTheFindingsAreWarnings) {
  const auto doc = read_one(k_broken);
  const auto found = check_operator_rules(doc, rel("v1.4.0"));
  ASSERT_EQ(found.size(), 5u);  // no name check before v1.6
  for (const auto& d : found) {
    SCOPED_TRACE(d.rule_id);
    EXPECT_EQ(d.severity, Severity::warning);
    EXPECT_EQ(d.message.rfind("operator v1.4.0 only logs: ", 0), 0u);
  }
  EXPECT_EQ(found[2].message, "operator v1.4.0 only logs: There must be only 1 master replica");
}

struct Case {
  const char* name;
  const char* release;
  std::string yaml;
  std::vector<std::string> want;
};

std::string job(const std::string& spec_body, const std::string& name = "job") {
  return "apiVersion: kubeflow.org/v1\nkind: PyTorchJob\nmetadata:\n  name: " + name + "\nspec:\n" +
         spec_body;
}

const std::string k_worker =  // lines 6-12 of job(...) when it comes first under pytorchReplicaSpecs
    "    Worker:\n"
    "      replicas: 2\n"
    "      template:\n"
    "        spec:\n"
    "          containers:\n"
    "          - name: pytorch\n"
    "            image: repo/train:1.0\n";

TEST(OperatorRules, EachReleaseAppliesItsOwnChecks) {
  const std::vector<Case> cases{
      {"v1.8 requires Master replicas to be set",
       "v1.8.0",
       job("  pytorchReplicaSpecs:\n    Master:\n      template:\n        spec:\n          containers:\n"
           "          - name: pytorch\n            image: repo/train:1.0\n"),
       {"7:5 error spec.pytorchReplicaSpecs.Master.replicas [operator.master-replicas]: rejected by the "
        "operator "
        "v1.8.0 webhook: spec.pytorchReplicaSpecs[Master].replicas: Forbidden: must be 1 | hint: set "
        "replicas: 1 "
        "on the Master (the webhook does not default it)"}},
      {"v1.7 accepts an omitted Master replicas",
       "v1.7.0",
       job("  pytorchReplicaSpecs:\n    Master:\n      template:\n        spec:\n          containers:\n"
           "          - name: pytorch\n            image: repo/train:1.0\n"),
       {}},
      {"v1.3 requires a Master",
       "v1.3.0",
       job("  pytorchReplicaSpecs:\n" + k_worker),
       {"6:3 warning spec.pytorchReplicaSpecs [operator.master-required]: operator v1.3.0 only logs: Master "
        "ReplicaSpec must be present | hint: add a Master replica spec with replicas: 1 (operator v1.3.0 "
        "requires one)"}},
      {"v1.4 allows worker-only jobs", "v1.4.0", job("  pytorchReplicaSpecs:\n" + k_worker), {}},
      {"missing replica specs on v1.9",
       "v1.9.4",
       job("  runPolicy: {}\n"),
       {"5:1 error spec.pytorchReplicaSpecs [operator.no-replica-specs]: rejected by the operator v1.9.4 "
        "webhook: "
        "spec.pytorchReplicaSpecs: Required value: must be required | hint: add spec.pytorchReplicaSpecs "
        "with a "
        "Worker (and optionally a Master) replica spec"}},
      {"a lower-case replica type gets a did-you-mean",
       "v1.9.4",
       job("  pytorchReplicaSpecs:\n    worker:\n      replicas: 1\n      template:\n        spec:\n"
           "          containers:\n          - name: pytorch\n            image: repo/train:1.0\n"),
       {"7:5 error spec.pytorchReplicaSpecs.worker [operator.replica-type]: rejected by the operator v1.9.4 "
        "webhook: spec.pytorchReplicaSpecs[worker]: Unsupported value: \"worker\": supported values: "
        "\"Master\", "
        "\"Worker\" | hint: did you mean 'Worker'?"}},
      {"v1.9 rejects zero workers",
       "v1.9.0",
       job("  pytorchReplicaSpecs:\n    Worker:\n      replicas: 0\n      template:\n        spec:\n"
           "          containers:\n          - name: pytorch\n            image: repo/train:1.0\n"),
       {"8:17 error spec.pytorchReplicaSpecs.Worker.replicas [operator.worker-replicas]: rejected by the "
        "operator "
        "v1.9.0 webhook: spec.pytorchReplicaSpecs[Worker].replicas: Forbidden: must be at least 1 | hint: "
        "set "
        "replicas to 1 or more, or remove the Worker replica spec"}},
      {"v1.8 warns about the deprecated elastic nProcPerNode",
       "v1.8.1",
       job("  elasticPolicy:\n    nProcPerNode: 2\n  pytorchReplicaSpecs:\n" + k_worker),
       {"7:19 warning spec.elasticPolicy.nProcPerNode [operator.nproc-deprecated]: the operator v1.8.1 "
        "webhook "
        "warns: spec.elasticPolicy.nProcPerNode is deprecated, use spec.nprocPerNode instead | hint: set "
        "spec.nprocPerNode (a string: 'auto', 'cpu', 'gpu' or a number) instead"}},
      {"v1.9 forbids both nproc fields",
       "v1.9.4",
       job("  nprocPerNode: \"2\"\n  elasticPolicy:\n    nProcPerNode: 2\n  pytorchReplicaSpecs:\n" +
           k_worker),
       {"8:19 warning spec.elasticPolicy.nProcPerNode [operator.nproc-deprecated]: the operator v1.9.4 "
        "webhook "
        "warns: spec.elasticPolicy.nProcPerNode is deprecated, use spec.nprocPerNode instead | hint: set "
        "spec.nprocPerNode (a string: 'auto', 'cpu', 'gpu' or a number) instead",
        "8:19 error spec.elasticPolicy.nProcPerNode [operator.nproc-conflict]: rejected by the operator "
        "v1.9.4 "
        "webhook: spec.elasticPolicy.nProcPerNode: Forbidden: must not be used with spec.nprocPerNode | "
        "hint: "
        "remove spec.elasticPolicy.nProcPerNode"}},
      {"v1.7 rejects both nproc fields with its own message",
       "v1.7.0",
       job("  nprocPerNode: \"2\"\n  elasticPolicy:\n    nProcPerNode: 2\n  pytorchReplicaSpecs:\n" +
           k_worker),
       {"8:19 error spec.elasticPolicy.nProcPerNode [operator.nproc-conflict]: operator v1.7.0 does not "
        "start "
        "the job (event PyTorchJobFailedValidation): .spec.elasticPolicy.nProcPerNode is deprecated, use "
        ".spec.nprocPerNode instead | hint: remove spec.elasticPolicy.nProcPerNode"}},
      {"v1.9 needs a Worker for an elastic job",
       "v1.9.4",
       job("  elasticPolicy:\n    maxReplicas: 3\n  pytorchReplicaSpecs:\n    Master:\n      replicas: 1\n"
           "      template:\n        spec:\n          containers:\n          - name: pytorch\n"
           "            image: repo/train:1.0\n"),
       {"8:3 error spec.pytorchReplicaSpecs.Worker [operator.elastic-without-worker]: rejected by the "
        "operator "
        "v1.9.4 webhook: spec.pytorchReplicaSpecs[Worker]: Required value: must be configured if elastic "
        "policy "
        "is used | hint: add a Worker replica spec, or remove spec.elasticPolicy"}},
      {"v1.9 knows two managedBy values",
       "v1.9.4",
       job("  runPolicy:\n    managedBy: kueue.x-k8s.io/multikueu\n  pytorchReplicaSpecs:\n" + k_worker),
       {"7:16 error spec.runPolicy.managedBy [operator.managed-by]: rejected by the operator v1.9.4 webhook: "
        "spec.runPolicy.managedBy: Unsupported value: \"kueue.x-k8s.io/multikueu\": supported values: "
        "\"kubeflow.org/training-operator\", \"kueue.x-k8s.io/multikueue\" | hint: did you mean "
        "'kueue.x-k8s.io/multikueue'?"}},
      {"a valid job has no findings", "v1.9.4", test::master_worker_job(), {}},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    EXPECT_EQ(show_all(check_operator_rules(read_one(c.yaml), rel(c.release))), c.want);
  }
}

}  // namespace
}  // namespace kpt::schema::rules
