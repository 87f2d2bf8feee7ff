// Every x-kubernetes-validations rule of the Kubeflow Trainer v2.3.0 CRDs (TrainJob,
// TrainingRuntime, ClusterTrainingRuntime, with the JobSet template they embed) and of the
// Training Operator v1.9.4 PyTorchJob CRD, written out here, each with values that pass and
// values that fail as the API server would decide.

#include "tests/unit/cel/cel_test_support.hpp"

#include <gtest/gtest.h>

namespace kpt::cel {
namespace {

using namespace kpt::cel::testing;

Value named(std::string name) { return obj({{"metadata", obj({{"name", str(std::move(name))}})}}); }

TEST(CelCrdRules, TrainJobNameIsAnRfc1035Label) {
  const std::string rule = "self.metadata.name.matches('^[a-z]([-a-z0-9]*[a-z0-9])?$')";
  run_cases({
      {rule, pass(), named("pytorch-mnist")},
      {rule, pass(), named("a")},
      {rule, fail(), named("1job")},
      {rule, fail(), named("Job")},
      {rule, fail(), named("job-")},
      {rule, fail(), named("job.name")},
  });
}

TEST(CelCrdRules, TrainJobNameIsAtMost63Characters) {
  const std::string rule = "size(self.metadata.name) <= 63";
  run_cases({
      {rule, pass(), named(std::string(63, 'a'))},
      {rule, fail(), named(std::string(64, 'a'))},
  });
}

TEST(CelCrdRules, StorageUriIsEmptyOrHasAScheme) {
  const std::string rule = "self == '' || self.matches('^[A-Za-z][A-Za-z0-9+.-]*://.+$')";
  run_cases({
      {rule, pass(), str("")},
      {rule, pass(), str("hf://meta-llama/Llama-3.2-1B")},
      {rule, pass(), str("s3+v2.x://bucket")},
      {rule, fail(), str("bucket/path")},
      {rule, fail(), str("hf://")},
  });
}

TEST(CelCrdRules, ManagedByIsOneOfTwoControllers) {
  const std::string rule =
      "self in ['trainer.kubeflow.org/trainjob-controller', 'kueue.x-k8s.io/multikueue']";
  run_cases({
      {rule, pass(), str("trainer.kubeflow.org/trainjob-controller")},
      {rule, pass(), str("kueue.x-k8s.io/multikueue")},
      {rule, fail(), str("example.com/other")},
  });
}

TEST(CelCrdRules, OnlyOneMlPolicyIsSet) {
  const std::string rule =
      "[has(self.torch), has(self.mpi), has(self.jax), has(self.xgboost),has(self.flux)].filter(x,\n"
      "  x).size() <= 1";
  run_cases({
      {rule, pass(), obj({{"numNodes", num(2)}})},
      {rule, pass(), obj({{"torch", obj({})}})},
      {rule, fail(), obj({{"torch", obj({})}, {"mpi", obj({})}})},
      {rule, fail(), obj({{"jax", obj({})}, {"xgboost", obj({})}, {"flux", obj({})}})},
  });
}

TEST(CelCrdRules, EnvInjectionSkipsTheNodeContainer) {
  const std::string rule = "!self.exists(c, c == 'node')";
  run_cases({
      {rule, pass(), list({str("sidecar"), str("init")})},
      {rule, pass(), list({})},
      {rule, fail(), list({str("sidecar"), str("node")})},
  });
}

TEST(CelCrdRules, FluxProcessesPerNodeIsPositive) {
  run_cases({
      {"self >= 1", pass(), num(1)},
      {"self >= 1", fail(), num(0)},
      {"self >= 1", fail(), num(-3)},
  });
}

TEST(CelCrdRules, StartupPolicyAndDependsOnExcludeEachOther) {
  const std::string rule =
      "!(has(self.startupPolicy) && self.startupPolicy.startupPolicyOrder\n"
      "  == 'InOrder' && self.replicatedJobs.exists(x, has(x.dependsOn)))";
  const Value in_order = obj({{"startupPolicyOrder", str("InOrder")}});
  const Value job = obj({{"name", str("node")}});
  const Value dependent = obj({{"name", str("node")}, {"dependsOn", list({obj({{"name", str("init")}})})}});
  run_cases({
      {rule, pass(), obj({{"replicatedJobs", list({dependent})}})},
      {rule, pass(), obj({{"startupPolicy", in_order}, {"replicatedJobs", list({job})}})},
      {rule, pass(),
       obj({{"startupPolicy", obj({{"startupPolicyOrder", str("AnyOrder")}})},
            {"replicatedJobs", list({dependent})}})},
      {rule, fail(), obj({{"startupPolicy", in_order}, {"replicatedJobs", list({job, dependent})}})},
  });
}

TEST(CelCrdRules, VolumeClaimTemplatesHaveNoNamespace) {
  const std::string rule =
      "self.templates.all(t, !has(t.metadata.namespace)\n  || size(t.metadata.namespace) == 0)";
  const auto templ = [](std::vector<std::pair<std::string, Value>> meta) {
    return obj({{"metadata", obj(std::move(meta))}});
  };
  run_cases({
      {rule, pass(), obj({{"templates", list({})}})},
      {rule, pass(), obj({{"templates", list({templ({{"name", str("data")}})})}})},
      {rule, pass(), obj({{"templates", list({templ({{"namespace", str("")}})})}})},
      {rule, fail(), obj({{"templates", list({templ({}), templ({{"namespace", str("team-a")}})})}})},
  });
}

TEST(CelCrdRules, RuntimePatchTimeIsRequired) {
  run_cases({
      {"has(self.lastUpdatedTime)", pass(),
       obj({{"lastUpdatedTime", Value::opaque("google.protobuf.Timestamp")}})},
      {"has(self.lastUpdatedTime)", fail(), obj({{"manager", str("kueue")}})},
  });
}

TEST(CelCrdRules, ImmutableFieldsAreTransitionRules) {
  // TrainJob runtimeRef, managedBy, podTemplateOverrides ..., and PyTorchJob v1.8+
  // spec.runPolicy.schedulingPolicy.queue: skipped on create, compared on update.
  const Program program = Program::compile("self == oldSelf");
  EXPECT_TRUE(program.uses_old_self());
  const Value now = str("queue-a");
  const Value before = str("queue-b");
  EXPECT_EQ(program.evaluate(now).status, Status::skipped);
  EXPECT_EQ(program.evaluate(now).message, "transition rule (oldSelf) not evaluated on create");
  EXPECT_EQ(program.evaluate(now, &now).status, Status::pass);
  EXPECT_EQ(program.evaluate(now, &before).status, Status::fail);
  const Value spec = obj({{"name", str("torch")}, {"kind", str("ClusterTrainingRuntime")}});
  const Value other = obj({{"name", str("deepspeed")}, {"kind", str("ClusterTrainingRuntime")}});
  EXPECT_EQ(program.evaluate(spec, &spec).status, Status::pass);
  EXPECT_EQ(program.evaluate(spec, &other).status, Status::fail);
}

}  // namespace
}  // namespace kpt::cel

namespace kpt::cel {
namespace {

using Fields = std::optional<std::vector<std::string>>;

TEST(CelProgram, SelfFieldsNameWhatARuleReadsOfSelf) {
  const std::vector<std::pair<std::string, Fields>> cases = {
      {"self.metadata.name.matches('^[a-z]$')", Fields({"metadata"})},
      {"size(self.metadata.name) <= 63", Fields({"metadata"})},
      {"[has(self.torch), has(self.mpi)].filter(x, x).size() <= 1", Fields({"torch", "mpi"})},
      {"self.foo__dash__bar == 1", Fields({"foo__dash__bar", "foo-bar"})},
      {"self.items.all(self, self > 0)", Fields({"items"})},  // the inner self is the macro variable
      {"1 == 1", Fields(std::vector<std::string>{})},
      {"self == oldSelf", std::nullopt},
      {"self.exists(c, c == 'node')", std::nullopt},
      {"self >= 1", std::nullopt},
      {"has(self.a) && self.size() > 1", std::nullopt},
      {"self.a +", std::nullopt},  // does not compile
  };
  for (const auto& [rule, fields] : cases) {
    SCOPED_TRACE(rule);
    EXPECT_EQ(Program::compile(rule).self_fields(), fields);
  }
}

}  // namespace
}  // namespace kpt::cel
