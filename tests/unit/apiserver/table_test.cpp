#include "apiserver/table.hpp"

#include <gtest/gtest.h>

namespace kpt::apiserver {
namespace {

using json = nlohmann::json;

TEST(HumanDuration, FollowsKubernetesRounding) {
  struct Case {
    std::int64_t seconds;
    std::string want;
  };
  const std::vector<Case> cases = {{-5, "<invalid>"},
                                   {-1, "0s"},
                                   {0, "0s"},
                                   {119, "119s"},
                                   {120, "2m"},
                                   {200, "3m20s"},
                                   {600, "10m"},
                                   {3 * 3600, "3h"},
                                   {3 * 3600 + 60 * 7, "3h7m"},
                                   {47 * 3600, "47h"},
                                   {50 * 3600, "2d2h"},
                                   {10 * 86400, "10d"},
                                   {800 * 86400, "2y70d"},
                                   {9 * 365 * 86400, "9y"}};
  for (const auto& c : cases) {
    SCOPED_TRACE(c.seconds);
    EXPECT_EQ(human_duration(c.seconds), c.want);
  }
}

TEST(AgeSeconds, ParsesRfc3339Utc) {
  EXPECT_EQ(age_seconds("1970-01-01T00:01:00Z", 120), 60);
  EXPECT_EQ(age_seconds("not a time", 120), 0);
}

TEST(EvalJsonPath, HandlesFieldsIndexesAndTheLastElement) {
  const json obj = {{"status", {{"conditions", {{{"type", "Created"}}, {{"type", "Running"}}}}}},
                    {"spec", {{"replicas", 3}}}};
  EXPECT_EQ(eval_json_path(obj, ".status.conditions[-1:].type"), "Running");
  EXPECT_EQ(eval_json_path(obj, ".status.conditions[0].type"), "Created");
  EXPECT_EQ(eval_json_path(obj, ".spec.replicas"), 3);
  EXPECT_TRUE(eval_json_path(obj, ".status.missing").is_null());
  EXPECT_TRUE(eval_json_path(obj, ".status.conditions[5].type").is_null());
}

TEST(ToTable, UsesAdditionalPrinterColumnsForCustomResources) {
  ResourceInfo res;
  res.kind = "PyTorchJob";
  res.group = "kubeflow.org";
  res.custom = true;
  res.columns = {{"State", "string", ".status.conditions[-1:].type", "", 0},
                 {"Age", "date", ".metadata.creationTimestamp", "", 0}};
  const json job = {{"metadata", {{"name", "j"}, {"creationTimestamp", "1970-01-01T00:00:00Z"}}},
                    {"status", {{"conditions", {{{"type", "Succeeded"}}}}}}};
  TableOptions opts;
  opts.now_epoch = 90;
  const auto t = to_table(res, {job}, json::object(), opts);
  EXPECT_EQ(t["columnDefinitions"].size(), 3u);
  EXPECT_EQ(t["rows"][0]["cells"], json::array({"j", "Succeeded", "90s"}));
}

}  // namespace
}  // namespace kpt::apiserver
