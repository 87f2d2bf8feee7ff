#include "apiserver/log_provider.hpp"
#include "apiserver/patch.hpp"

#include <gtest/gtest.h>

namespace kpt::apiserver {
namespace {

using json = nlohmann::json;

TEST(ApplyPatch, MergeDeletesWithNullAndReplacesLists) {
  const json base = {{"a", 1}, {"b", {{"c", 2}}}, {"l", {1, 2}}};
  auto out = apply_patch(PatchKind::merge, base, json{{"a", nullptr}, {"b", {{"d", 3}}}, {"l", {3}}});
  ASSERT_TRUE(out.has_value());
  EXPECT_EQ(out.value(), (json{{"b", {{"c", 2}, {"d", 3}}}, {"l", {3}}}));
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
