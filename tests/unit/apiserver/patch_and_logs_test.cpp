#include "apiserver/log_provider.hpp"
#include "apiserver/patch.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

namespace kpt::apiserver {
namespace {

using json = nlohmann::json;

TEST(ApplyPatch, MergeDeletesWithNullAndReplacesLists) {
  const json base = {{"a", 1}, {"b", {{"c", 2}}}, {"l", {1, 2}}};
  auto out = apply_patch(PatchKind::merge, base, json{{"a", nullptr}, {"b", {{"d", 3}}}, {"l", {3}}});
  ASSERT_TRUE(out.has_value());
  EXPECT_EQ(out.value(), (json{{"b", {{"c", 2}, {"d", 3}}}, {"l", {3}}}));
}

TEST(StrategicMerge, APodsListsMergeByTheirKeysAsKubectlApplyExpects) {
  const auto* pod = builtin_patch_strategies("v1", "Pod");
  ASSERT_NE(pod, nullptr);
  const json base = json::parse(R"({"metadata":{"finalizers":["a","b"],"labels":{"x":"1"}},"spec":{
      "containers":[{"name":"main","image":"i:1","command":["python3","train.py"],
                     "env":[{"name":"A","value":"1"},{"name":"B","value":"2"}]},
                    {"name":"side","image":"s"}],
      "volumes":[{"name":"v","emptyDir":{}}],"tolerations":[{"key":"t"}]}})");
  // What kubectl apply sends after the image and one variable changed and the sidecar went away.
  const json patch = json::parse(R"({"metadata":{"$deleteFromPrimitiveList/finalizers":["a"]},"spec":{
      "$setElementOrder/containers":[{"name":"main"}],
      "containers":[{"name":"main","image":"i:2","$setElementOrder/env":[{"name":"B"},{"name":"A"}],
                     "env":[{"name":"A","value":"9"}]},
                    {"name":"side","$patch":"delete"}],
      "volumes":[{"name":"v","$retainKeys":["name","hostPath"],"hostPath":{"path":"/d"}}],
      "tolerations":[{"key":"u"}]}})");
  auto out = apply_patch(PatchKind::strategic, base, patch, pod);
  ASSERT_TRUE(out.has_value()) << out.error().message;
  EXPECT_EQ(out.value(), json::parse(R"({"metadata":{"finalizers":["b"],"labels":{"x":"1"}},"spec":{
      "containers":[{"name":"main","image":"i:2","command":["python3","train.py"],
                     "env":[{"name":"B","value":"2"},{"name":"A","value":"9"}]}],
      "volumes":[{"name":"v","hostPath":{"path":"/d"}}],"tolerations":[{"key":"u"}]}})"));
  auto again = apply_patch(PatchKind::strategic, out.value(), patch, pod);
  ASSERT_TRUE(again.has_value());
  EXPECT_EQ(again.value(), out.value());
}

TEST(StrategicMerge, ReplaceDirectivesAndPrimitiveUnions) {
  const auto* pod = builtin_patch_strategies("v1", "Pod");
  ASSERT_NE(pod, nullptr);
  const json base = json::parse(R"({"metadata":{"finalizers":["a"],"labels":{"x":"1","y":"2"}},
      "spec":{"containers":[{"name":"c","image":"i"}]}})");
  auto out = apply_patch(PatchKind::strategic, base, json::parse(R"({"metadata":{"finalizers":["b","a"],
      "labels":{"$patch":"replace","z":"3"}},"spec":{"containers":[{"$patch":"replace"},{"name":"d","image":"j"}]}})"),
                         pod);
  ASSERT_TRUE(out.has_value());
  EXPECT_EQ(out.value(), json::parse(R"({"metadata":{"finalizers":["a","b"],"labels":{"z":"3"}},
      "spec":{"containers":[{"name":"d","image":"j"}]}})"));
}

TEST(StrategicMerge, AListItemWithoutItsMergeKeyIsInvalid) {
  const auto* pod = builtin_patch_strategies("v1", "Pod");
  ASSERT_NE(pod, nullptr);
  auto out = apply_patch(PatchKind::strategic, json::parse(R"({"spec":{"containers":[{"name":"c"}]}})"),
                         json::parse(R"({"spec":{"containers":[{"image":"x"}]}})"), pod);
  ASSERT_FALSE(out.has_value());
  EXPECT_EQ(out.error().message, R"(map: {"image":"x"} does not contain declared merge key: name)");
}

TEST(StrategicMerge, AFieldOutsideItsRetainKeysIsInvalid) {
  // Found by fuzzing: retaining fewer keys than the patch sets dropped a volume's name, and the
  // same patch applied again added the volume a second time.
  const auto* pod = builtin_patch_strategies("v1", "Pod");
  ASSERT_NE(pod, nullptr);
  auto out = apply_patch(PatchKind::strategic, json::object(),
                         json::parse(R"({"spec":{"volumes":[{"name":"v","$retainKeys":["hostPath"],
                                         "hostPath":{"path":"/d"}}]}})"),
                         pod);
  ASSERT_FALSE(out.has_value());
  EXPECT_EQ(out.error().message, "field name is not present in the $retainKeys list");
}

/// How deep `value` nests (a scalar is 0), walked without recursion.
std::size_t depth_of(const json& value) {
  std::size_t deepest = 0;
  std::vector<std::pair<const json*, std::size_t>> todo = {{&value, 0}};
  while (!todo.empty()) {
    const auto [node, depth] = todo.back();
    todo.pop_back();
    if (!node->is_structured()) continue;
    deepest = std::max(deepest, depth + 1);
    for (const auto& child : *node) todo.emplace_back(&child, depth + 1);
  }
  return deepest;
}

TEST(StrategicMerge, APatchNestedAsDeepAsTheServerAcceptsMergesOnAnOrdinaryStack) {
  // {"data":{"a":{"a":...}}} 10,000 levels in all, the most a body may nest: the recursive merge
  // overflowed an 8 MiB stack at 7,000 (this test runs on the main thread's 8 MiB).
  constexpr std::size_t k_levels = 10000;
  std::string text = "{\"data\":";
  for (std::size_t i = 3; i < k_levels; ++i) text += "{\"a\":";
  text += "{\"leaf\":{\"$patch\":\"delete\"},\"b\":1}";
  text.append(k_levels - 2, '}');
  const json patch = json::parse(text);
  ASSERT_EQ(depth_of(patch), k_levels);
  const json base = {{"data", {{"k", "v"}, {"a", {{"x", 1}}}}}};
  auto out = apply_patch(PatchKind::strategic, base, patch, builtin_patch_strategies("v1", "ConfigMap"));
  ASSERT_TRUE(out.has_value()) << out.error().message;
  EXPECT_EQ(out.value()["data"]["k"], "v");
  EXPECT_EQ(out.value()["data"]["a"]["x"], 1);
  EXPECT_EQ(depth_of(out.value()), k_levels - 1);  // the deepest map held only a deletion and a number
  const json* node = &out.value()["data"];
  for (std::size_t i = 3; i < k_levels; ++i) node = &(*node)["a"];
  EXPECT_EQ(*node, (json{{"b", 1}}));
}

TEST(StrategicMerge, EveryServedBuiltInKindHasItsTableAndOthersReplaceLists) {
  for (const auto& [gv, kind] : std::vector<std::pair<std::string, std::string>>{
           {"v1", "Service"}, {"v1", "ConfigMap"}, {"apps/v1", "Deployment"}, {"batch/v1", "Job"}}) {
    EXPECT_NE(builtin_patch_strategies(gv, kind), nullptr) << gv << " " << kind;
  }
  EXPECT_EQ(builtin_patch_strategies("kubeflow.org/v1", "PyTorchJob"), nullptr);
  const auto* svc = builtin_patch_strategies("v1", "Service");
  auto out = apply_patch(PatchKind::strategic, json::parse(R"({"spec":{"ports":[{"port":80,"name":"a"}]}})"),
                         json::parse(R"({"spec":{"ports":[{"port":81}]}})"), svc);
  ASSERT_TRUE(out.has_value());
  EXPECT_EQ(out.value()["spec"]["ports"].size(), 2u);
}

TEST(ApplyPatch, StrategicPatchesDropTheirDirectives) {
  const json base = {{"metadata", {{"labels", {{"a", "1"}}}}}};
  auto out =
      apply_patch(PatchKind::strategic, base,
                  json{{"metadata", {{"labels", {{"b", "2"}}}, {"$setElementOrder/x", json::array()}}}});
  ASSERT_TRUE(out.has_value());
  EXPECT_EQ(out.value(), (json{{"metadata", {{"labels", {{"a", "1"}, {"b", "2"}}}}}}));
}

TEST(ApplyPatch, AFailedJsonPatchTestIsInvalid) {
  auto out =
      apply_patch(PatchKind::json, json{{"a", 1}}, json::parse(R"([{"op":"test","path":"/a","value":2}])"));
  ASSERT_FALSE(out.has_value());
  EXPECT_EQ(out.error().http_status, 422);
}

TEST(PatchKindOf, KnowsTheFourKubernetesPatchTypes) {
  EXPECT_EQ(patch_kind_of("application/merge-patch+json"), PatchKind::merge);
  EXPECT_EQ(patch_kind_of("application/json-patch+json; charset=utf-8"), PatchKind::json);
  EXPECT_EQ(patch_kind_of("application/strategic-merge-patch+json"), PatchKind::strategic);
  EXPECT_EQ(patch_kind_of("application/apply-patch+yaml"), PatchKind::apply);
  EXPECT_FALSE(patch_kind_of("application/json").has_value());
}

TEST(ParsePatchBody, AcceptsYamlForApplyPatches) {
  auto out = parse_patch_body(PatchKind::apply, "metadata:\n  name: x\n");
  ASSERT_TRUE(out.has_value()) << out.error().message;
  EXPECT_EQ(out.value(), (json{{"metadata", {{"name", "x"}}}}));
}

TEST(LimitLog, TailsLinesThenLimitsBytes) {
  struct Case {
    std::string name;
    std::optional<std::int64_t> tail, limit;
    std::string want;
  };
  const std::string text = "a\nb\nc\n";
  const std::vector<Case> cases = {
      {"all", std::nullopt, std::nullopt, text}, {"tail 2", 2, std::nullopt, "b\nc\n"},
      {"tail 0", 0, std::nullopt, ""},           {"tail more than there is", 10, std::nullopt, text},
      {"limit", std::nullopt, 3, "a\nb"},        {"tail then limit", 2, 1, "b"}};
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    EXPECT_EQ(limit_log(text, c.tail, c.limit), c.want);
  }
}

TEST(ResolveContainer, NeedsANameWhenThePodHasSeveral) {
  const json pod = {{"metadata", {{"name", "p"}}},
                    {"spec", {{"containers", {{{"name", "a"}}, {{"name", "b"}}}}}}};
  LogRequest req;
  auto none = resolve_container(req, pod);
  ASSERT_FALSE(none.has_value());
  EXPECT_EQ(none.error().message, "a container name must be specified for pod p, choose one of: [a b]");
  req.container = "b";
  EXPECT_EQ(resolve_container(req, pod).value(), "b");
}

}  // namespace
}  // namespace kpt::apiserver
