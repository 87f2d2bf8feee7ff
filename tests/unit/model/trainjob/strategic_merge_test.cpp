#include "model/trainjob/strategic_merge.hpp"

#include <gtest/gtest.h>

namespace kpt::model::trainjob {
namespace {

using nlohmann::json;

TEST(StrategicMerge, MergesPodSpecListsByTheirKubernetesMergeKeys) {
  const json original = {{"containers",
                          {{{"name", "node"},
                            {"image", "a"},
                            {"env", {{{"name", "A"}, {"value", "1"}}, {{"name", "B"}, {"value", "2"}}}},
                            {"volumeMounts", {{{"name", "data"}, {"mountPath", "/data"}}}},
                            {"ports", {{{"containerPort", 80}, {"name", "http"}}}}}}},
                         {"volumes", {{{"name", "data"}, {"emptyDir", json::object()}}}},
                         {"tolerations", {{{"key", "old"}}}},
                         {"nodeSelector", {{"zone", "a"}, {"disk", "ssd"}}}};
  const json patch = {
      {"containers",
       {{{"name", "node"},
         {"env", {{{"name", "B"}, {"value", "3"}}, {{"name", "C"}, {"value", "4"}}}},
         {"volumeMounts",
          {{{"name", "cache"}, {"mountPath", "/data"}}, {{"name", "x"}, {"mountPath", "/x"}}}},
         {"ports", {{{"containerPort", 80}, {"protocol", "TCP"}}}}},
        {{"name", "sidecar"}, {"image", "s"}}}},
      {"volumes", {{{"name", "cache"}, {"emptyDir", json::object()}}}},
      {"tolerations", {{{"key", "new"}}}},
      {"nodeSelector", {{"zone", "b"}, {"disk", nullptr}}}};
  const json merged = strategic_merge(original, patch, PatchType::pod_spec);
  const json expected = {
      {"containers",
       {{{"name", "node"},
         {"image", "a"},
         {"env",
          {{{"name", "A"}, {"value", "1"}},
           {{"name", "B"}, {"value", "3"}},
           {{"name", "C"}, {"value", "4"}}}},
         {"volumeMounts",
          {{{"name", "cache"}, {"mountPath", "/data"}}, {{"name", "x"}, {"mountPath", "/x"}}}},
         {"ports", {{{"containerPort", 80}, {"name", "http"}, {"protocol", "TCP"}}}}},
        {{"name", "sidecar"}, {"image", "s"}}}},
      {"volumes",
       {{{"name", "data"}, {"emptyDir", json::object()}}, {{"name", "cache"}, {"emptyDir", json::object()}}}},
      {"tolerations", {{{"key", "new"}}}},
      {"nodeSelector", {{"zone", "b"}}}};
  EXPECT_EQ(merged, expected) << merged.dump(2);
}

TEST(StrategicMerge, DropsWhatOmitemptyDropsBeforeMerging) {
  const json original = {{"tolerations", {{{"key", "keep"}}}}, {"nodeSelector", {{"a", "b"}}}};
  const json patch = {
      {"tolerations", json::array()}, {"$patch", "replace"}, {"nodeSelector", json::object()}};
  EXPECT_EQ(strategic_merge(original, patch, PatchType::pod_spec), original);
}

TEST(StrategicMerge, MergesReplicatedJobsByNameAndAppendsNewOnes) {
  const json original = json::parse(R"({"replicatedJobs": [
      {"name": "init", "replicas": 1},
      {"name": "node", "template": {"spec": {"template": {"spec": {"containers": [{"name": "node"}]}}}}}]})");
  const json patch = json::parse(R"({"replicatedJobs": [
      {"name": "node", "template": {"spec": {"template": {"spec": {
          "containers": [{"name": "node", "env": [{"name": "X", "value": "1"}]}]}}}}},
      {"name": "extra"}]})");
  const json merged = strategic_merge(original, patch, PatchType::jobset_spec);
  ASSERT_EQ(merged["replicatedJobs"].size(), 3u);
  EXPECT_EQ(merged["replicatedJobs"][0]["name"], "init");
  EXPECT_EQ(merged["replicatedJobs"][1]["template"]["spec"]["template"]["spec"]["containers"][0],
            json::parse(R"({"name": "node", "env": [{"name": "X", "value": "1"}]})"));
  EXPECT_EQ(merged["replicatedJobs"][2], json::parse(R"({"name": "extra"})"));
}

TEST(StrategicMerge, ResourceRequirementsMergePerKeyAndClaimsByName) {
  const json base = {{"requests", {{"cpu", "1"}, {"memory", "1Gi"}}}, {"limits", {{"nvidia.com/gpu", 1}}}};
  const json patch = {{"requests", {{"cpu", "2"}}}, {"claims", {{{"name", "gpu"}}}}};
  EXPECT_EQ(strategic_merge(base, patch, PatchType::resource_requirements),
            (json{{"requests", {{"cpu", "2"}, {"memory", "1Gi"}}},
                  {"limits", {{"nvidia.com/gpu", 1}}},
                  {"claims", {{{"name", "gpu"}}}}}));
}

TEST(StrategicMerge, ListsWithoutAMergeKeyAreReplacedAndNullDeletes) {
  const json original =
      json::parse(R"({"spec": {"template": {"spec": {"args": ["a", "b"], "hostNetwork": true}}}})");
  const json patch = json::parse(R"({"spec": {"template": {"spec": {"args": ["c"], "hostNetwork": null}}}})");
  EXPECT_EQ(strategic_merge(original, patch, PatchType::job_template_spec),
            json::parse(R"({"spec": {"template": {"spec": {"args": ["c"]}}}})"));
}

}  // namespace
}  // namespace kpt::model::trainjob
