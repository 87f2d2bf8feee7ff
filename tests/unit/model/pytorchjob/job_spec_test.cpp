#include "model/pytorchjob/job_spec.hpp"

#include "tests/unit/model/pytorchjob/env_fixtures.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace kpt::model::pytorchjob {
namespace {

using nlohmann::json;
using testing::make_job;

TEST(ParseJob, DefaultsReplicasRestartPolicyPortAndNprocPerNodeInMemory) {
  json job = make_job("j", 0, 0);
  job["spec"]["pytorchReplicaSpecs"]["worker"] = {
      {"template", {{"spec", {{"containers", {{{"name", "pytorch"}, {"image", "x"}}}}}}}}};
  job["spec"]["pytorchReplicaSpecs"]["MASTER"] = {
      {"replicas", 1},
      {"restartPolicy", "ExitCode"},
      {"template",
       {{"spec",
         {{"containers",
           {{{"name", "pytorch"},
             {"image", "x"},
             {"ports", {{{"name", "pytorchjob-port"}, {"containerPort", 1234}}}}}}}}}}}};
  const auto spec = parse_job(job);
  ASSERT_TRUE(spec.has_value()) << spec.error().message;
  ASSERT_EQ(spec->replica_specs.size(), 2u);
  const auto& master = spec->replica_specs[0];
  const auto& worker = spec->replica_specs[1];
  EXPECT_EQ(master.type, "Master");
  EXPECT_EQ(master.key, "MASTER");
  EXPECT_EQ(master.restart_policy, "ExitCode");
  EXPECT_EQ(master.port, 1234);
  EXPECT_TRUE(master.port_set);
  EXPECT_EQ(worker.type, "Worker");
  EXPECT_EQ(worker.replicas, 1);
  EXPECT_FALSE(worker.replicas_set);
  EXPECT_EQ(worker.restart_policy, "OnFailure");
  EXPECT_EQ(worker.port, 23456);
  EXPECT_EQ(spec->total_replicas(), 2);
  EXPECT_EQ(spec->nproc_per_node, std::nullopt);
  EXPECT_EQ(spec->nproc_per_node_defaulted, "auto");
  EXPECT_EQ(spec->namespace_, "team-a");
}

TEST(ParseJob, ElasticPolicyMinAndMaxFillEachOtherOrComeFromWorkerReplicas) {
  struct Case {
    std::string name;
    json policy;
    int min;
    int max;
  };
  const std::vector<Case> cases = {
      {"both unset", json::object(), 3, 3},
      {"min only", {{"minReplicas", 2}}, 2, 2},
      {"max only", {{"maxReplicas", 4}}, 4, 4},
      {"both", {{"minReplicas", 1}, {"maxReplicas", 5}}, 1, 5},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    const auto spec = parse_job(make_job("e", 0, 3, {{"elasticPolicy", c.policy}}));
    ASSERT_TRUE(spec.has_value());
    ASSERT_TRUE(spec->elastic.has_value());
    EXPECT_EQ(spec->elastic->min_replicas, c.min);
    EXPECT_EQ(spec->elastic->max_replicas, c.max);
  }
  const auto deprecated = parse_job(make_job("e", 0, 1, {{"elasticPolicy", {{"nProcPerNode", 2}}}}));
  ASSERT_TRUE(deprecated.has_value());
  EXPECT_EQ(deprecated->nproc_per_node_defaulted, std::nullopt);
}

TEST(ParseJob, ReportsTheFieldThatIsWrong) {
  struct Case {
    std::string name;
    json job;
    std::string message;
  };
  json bad_replicas = make_job("j", 0, 1);
  bad_replicas["spec"]["pytorchReplicaSpecs"]["Worker"]["replicas"] = "two";
  json twice = make_job("j", 0, 1);
  twice["spec"]["pytorchReplicaSpecs"]["worker"] = json::object();
  const std::vector<Case> cases = {
      {"no name", {{"spec", json::object()}}, "metadata.name: required"},
      {"no spec", {{"metadata", {{"name", "j"}}}}, "spec: required"},
      {"no replica specs", make_job("j", 0, 0), "spec.pytorchReplicaSpecs: required"},
      {"replicas not an integer", bad_replicas,
       "spec.pytorchReplicaSpecs.Worker.replicas: must be an integer"},
      {"type twice", twice, "spec.pytorchReplicaSpecs: 'worker' names the replica type 'Worker' twice"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    const auto spec = parse_job(c.job);
    ASSERT_FALSE(spec.has_value());
    EXPECT_EQ(spec.error().message, c.message);
    EXPECT_EQ(spec.error().code, ErrorCode::parse);
  }
}

}  // namespace
}  // namespace kpt::model::pytorchjob
