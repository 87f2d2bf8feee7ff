// One verdict on every document of a file: kind typos in the groups we know, built-in kinds checked
// with the carried schemas, documents not checked said with the reason, notes true of every input
// only with -v, findings about a list at its key.
#include "plugin/run/job_builder.hpp"
#include "plugin/validate/diagnostic_output.hpp"
#include "plugin/validate/known_kinds.hpp"
#include "plugin/validate/server_dry_run.hpp"
#include "plugin/validate/validate_runner.hpp"
#include "yaml/yaml_writer.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <memory>
#include <sstream>
#include <string>
#include <vector>

namespace kpt::plugin {
namespace {

yaml::InputFile text_input(std::string text) {
  return yaml::InputFile{"f.yaml", std::make_shared<const std::string>(std::move(text)), false};
}

/// "line:col severity rule: message" of every finding of every document.
std::vector<std::string> findings_of(const FileReport& report) {
  std::vector<std::string> out;
  for (const auto& doc : report.documents) {
    for (const auto& d : doc.findings) {
      out.push_back(std::to_string(d.location.line) + ":" + std::to_string(d.location.col) + " " +
                    to_string(d.severity) + " " + d.rule_id + ": " + d.message);
    }
  }
  return out;
}

TEST(KnownKinds, AnUnknownKindInAKnownGroupIsATypoWithTheClosestKind) {
  struct Case {
    const char* api_version;
    const char* kind;
    bool typo;
    const char* message;
  };
  const std::vector<Case> cases{
      {"kubeflow.org/v1", "PytorchJob", true,
       "unknown kind 'PytorchJob' in group kubeflow.org: did you mean 'PyTorchJob'?"},
      {"kubeflow.org/v1", "PyTorchJobs", true,
       "unknown kind 'PyTorchJobs' in group kubeflow.org: did you mean 'PyTorchJob'?"},
      {"trainer.kubeflow.org/v1alpha1", "Trainjob", true,
       "unknown kind 'Trainjob' in group trainer.kubeflow.org: did you mean 'TrainJob'?"},
      {"jobset.x-k8s.io/v1alpha2", "JobSets", true,
       "unknown kind 'JobSets' in group jobset.x-k8s.io: did you mean 'JobSet'?"},
      {"scheduling.volcano.sh/v1beta1", "Podgroup", true,
       "unknown kind 'Podgroup' in group scheduling.volcano.sh: did you mean 'PodGroup'?"},
      {"kubeflow.org/v1", "Frobnicator", true, "unknown kind 'Frobnicator' in group kubeflow.org"},
      {"kubeflow.org/v1", "TFJob", false,
       "no schema for kubeflow.org/v1 TFJob: --crd FILE with its CRD checks it"},
      {"scheduling.volcano.sh/v1beta1", "PodGroup", false,
       "no schema for scheduling.volcano.sh/v1beta1 PodGroup: --crd FILE with its CRD checks it"},
      {"kueue.x-k8s.io/v1beta1", "LocalQueue", false,
       "no schema for kueue.x-k8s.io/v1beta1 LocalQueue: --crd FILE with its CRD checks it"},
      {"v1", "Foo", false, "no schema for v1 Foo"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(std::string(c.api_version) + " " + c.kind);
    const auto verdict = judge_unserved_kind(c.api_version, c.kind, {});
    EXPECT_EQ(verdict.typo, c.typo);
    EXPECT_EQ(verdict.message, c.message);
  }
  // A built-in group's kinds (from the run's schemas) suggest, without making it an error.
  const auto deploy = judge_unserved_kind("apps/v1", "Deploymnet", {"DaemonSet", "Deployment"});
  EXPECT_FALSE(deploy.typo);
  EXPECT_EQ(deploy.message, "no schema for apps/v1 Deploymnet (did you mean 'Deployment'?)");
}

TEST(ValidateVerdict, AKindTypoIsAnErrorAtTheKind) {
  const auto report = validate_file(text_input("apiVersion: kubeflow.org/v1\n"
                                               "kind: PytorchJob\n"
                                               "metadata:\n  name: a\n"),
                                    default_validate_settings());
  ASSERT_EQ(report.documents.size(), 1u);
  EXPECT_FALSE(report.documents[0].skipped);
  EXPECT_EQ(findings_of(report),
            (std::vector<std::string>{"2:7 error manifest.unknown-kind: unknown kind 'PytorchJob' in group "
                                      "kubeflow.org: did you mean 'PyTorchJob'?"}));
  EXPECT_EQ(summarize(Report{{report}}).errors, 1u);
}

TEST(ValidateVerdict, BuiltInKindsAreCheckedStrictlyAtTheRightLine) {
  struct Case {
    const char* name;
    std::string text;
    std::vector<std::string> want;
  };
  const std::vector<Case> cases{
      {"service port name as a port",
       "apiVersion: v1\nkind: Service\nmetadata:\n  name: s\nspec:\n  ports:\n  - port: \"http\"\n",
       {"7:11 error schema.type: expected integer, got string 'http'"}},
      {"deployment replicas in words",
       "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: d\nspec:\n  replicas: two\n"
       "  selector:\n    matchLabels: {app: d}\n  template:\n    metadata:\n      labels: {app: d}\n"
       "    spec:\n      containers:\n      - name: c\n        image: busybox:1.36\n",
       {"6:13 error schema.type: expected integer, got string 'two'"}},
      {"configmap unknown field",
       "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\ndata:\n  a: b\nfoo: 1\n",
       {"7:1 error schema.unknown-field: unknown field 'foo'"}},
      {"secret stringData number",
       "apiVersion: v1\nkind: Secret\nmetadata:\n  name: s\nstringData:\n  token: 42\n",
       {"6:10 error schema.type: expected string, got integer '42'"}},
      {"a clean job is clean",
       "apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: j\nspec:\n  template:\n    spec:\n"
       "      restartPolicy: Never\n      containers:\n      - name: c\n        image: busybox:1.36\n",
       {}},
      {"a mapping where a list belongs points at its key",
       "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\nspec:\n  containers:\n    name: c\n",
       {"6:3 error schema.type: expected array, got object"}},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    const auto report = validate_file(text_input(c.text), default_validate_settings());
    ASSERT_EQ(report.documents.size(), 1u);
    EXPECT_FALSE(report.documents[0].skipped);
    EXPECT_EQ(findings_of(report), c.want);
  }
}

TEST(ValidateVerdict, DocumentsNoSchemaServesAreSaidWithTheReason) {
  const auto report = validate_file(text_input("apiVersion: scheduling.volcano.sh/v1beta1\n"
                                               "kind: PodGroup\n"
                                               "metadata:\n  name: pg\n"
                                               "---\n"
                                               "apiVersion: example.com/v1\n"
                                               "kind: Widget\n"
                                               "metadata:\n  name: w\n"),
                                    default_validate_settings());
  ASSERT_EQ(report.documents.size(), 2u);
  EXPECT_TRUE(report.documents[0].skipped);
  EXPECT_TRUE(report.documents[1].skipped);
  const Report all{{report}};
  EXPECT_EQ(
      not_checked_lines(all),
      "not checked: f.yaml:1: PodGroup 'pg': no schema for scheduling.volcano.sh/v1beta1 PodGroup: --crd "
      "FILE with its CRD checks it\n"
      "not checked: f.yaml:5: Widget 'w': no schema for example.com/v1 Widget: --crd FILE with its CRD "
      "checks it\n");
  EXPECT_EQ(
      not_checked_lines(all, 1),
      "not checked: f.yaml:1: PodGroup 'pg': no schema for scheduling.volcano.sh/v1beta1 PodGroup: --crd "
      "FILE with its CRD checks it\n"
      "not checked: and 1 more document\n");
  EXPECT_EQ(summary_line(summarize(all)),
            "0 errors, 0 warnings in 0 documents (1 file); 2 documents not checked");
}

const std::string k_trainjob =
    "apiVersion: trainer.kubeflow.org/v1alpha1\n"
    "kind: TrainJob\n"
    "metadata:\n  name: t\n"
    "spec:\n"
    "  runtimeRef:\n    name: torch-distributed\n"
    "  trainer:\n    numNodes: 2\n    image: pytorch/pytorch:2.5.1-cuda12.4-cudnn9-runtime\n"
    "    command: [torchrun, train.py]\n";

TEST(ValidateVerdict, ACleanTrainJobPrintsOneSummaryLineAndItsNotesOnlyWithVerbose) {
  auto settings = default_validate_settings();
  Report quiet{{validate_file(text_input(k_trainjob), settings)}};
  std::ostringstream out;
  write_text(quiet, OutputOptions{}, out);
  EXPECT_EQ(out.str(), "0 errors, 0 warnings in 1 document (1 file)\n");

  settings.verbose = true;
  Report verbose{{validate_file(text_input(k_trainjob), settings)}};
  ASSERT_EQ(verbose.files[0].documents.size(), 1u);
  ASSERT_EQ(verbose.files[0].documents[0].findings.size(), 1u);
  EXPECT_EQ(verbose.files[0].documents[0].findings[0].rule_id, "schema.cel-transition");
}

// run --image IMG --workers 2 -- python train.py: what run builds for a target, validate accepts there.
TEST(ValidateVerdict, TheJobRunBuildsFromAnImagePassesForItsTarget) {
  JobRequest r;
  r.name = "demo";
  r.image = "repo/train:1.0";
  r.workers = 2;
  r.command = {"python", "train.py"};
  struct Case {
    const char* name;
    bool with_master;
    bool ours;  ///< our controller: the worker-only lint is moot
    std::size_t errors;
  };
  const std::vector<Case> cases{
      {"the operator gets a Master and a Worker", true, false, 0},
      {"a worker-only job is broken on the operator", false, false, 1},
      {"our controller runs the worker-only job", false, true, 0},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    r.with_master = c.with_master;
    const nlohmann::json job = build_job(r);
    auto settings = default_validate_settings();
    if (c.ours) settings.rules.disabled.insert("lint.worker-only-no-master-env");
    const auto report = validate_file(text_input(yaml::to_yaml(job)), settings);
    EXPECT_EQ(summarize(Report{{report}}).errors, c.errors) << ::testing::PrintToString(findings_of(report));
  }
  r.with_master = true;
  const nlohmann::json two = build_job(r);
  EXPECT_EQ(two["spec"]["pytorchReplicaSpecs"]["Master"]["replicas"], 1);
  EXPECT_EQ(two["spec"]["pytorchReplicaSpecs"]["Worker"]["replicas"], 1);
  r.workers = 1;
  EXPECT_FALSE(build_job(r)["spec"]["pytorchReplicaSpecs"].contains("Worker"));
}

// --server-dry-run finds every document's resource in the server's discovery, its subresources aside.
TEST(ServerDryRunDiscovery, FindsTheResourceOfAKindAndItsScope) {
  const auto core = nlohmann::json::parse(R"({"resources": [
      {"name": "pods/log", "kind": "Pod", "namespaced": true},
      {"name": "pods", "kind": "Pod", "namespaced": true},
      {"name": "namespaces", "kind": "Namespace", "namespaced": false}]})");
  const auto pod = resource_in_discovery(core, "v1", "Pod");
  ASSERT_TRUE(pod.has_value());
  EXPECT_EQ(pod->resource, "pods");
  EXPECT_EQ(pod->collection_path("team"), "/api/v1/namespaces/team/pods");
  const auto ns = resource_in_discovery(core, "v1", "Namespace");
  ASSERT_TRUE(ns.has_value());
  EXPECT_FALSE(ns->namespaced);
  EXPECT_FALSE(resource_in_discovery(core, "v1", "Service").has_value());
  EXPECT_FALSE(resource_in_discovery(nlohmann::json(), "v1", "Pod").has_value());
  const auto trainer = nlohmann::json::parse(
      R"({"resources": [{"name": "trainjobs", "kind": "TrainJob", "namespaced": true}]})");
  const auto tj = resource_in_discovery(trainer, "trainer.kubeflow.org/v1alpha1", "TrainJob");
  ASSERT_TRUE(tj.has_value());
  EXPECT_EQ(tj->collection_path("a"), "/apis/trainer.kubeflow.org/v1alpha1/namespaces/a/trainjobs");
}

}  // namespace
}  // namespace kpt::plugin
