#include "model/k8s/strategic_merge.hpp"

#include "tests/support/stack.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace kpt::model::k8s {
namespace {

using nlohmann::json;

const PatchStrategies& pod_lists() {
  static const PatchStrategies k_lists = {
      {"containers", {"name", true, false}},
      {"containers.env", {"name", true, false}},
      {"finalizers", {"", true, false}},
  };
  return k_lists;
}

/// The merged document's JSON, or "error: " and the message.
std::string merged(const std::string& original, const std::string& patch, const MergeOptions& options) {
  auto out = strategic_merge(json::parse(original), json::parse(patch), pod_lists(), options);
  if (!out) return "error: " + out.error().message;
  return out.value().dump();
}

struct DialectCase {
  std::string what;
  std::string original;
  std::string patch;
  std::string request;  ///< what a client's patch does (the API server's merge before the shared one)
  std::string typed;    ///< what Trainer's typed patch does (the model's merge before the shared one)
};

// The two merges this one replaced differed here, and each caller keeps its own behaviour.
TEST(SharedStrategicMerge, ARequestPatchAndATypedPatchKeepTheirOwnBehaviours) {
  const std::vector<DialectCase> cases = {
      {"an item without its merge key", R"({"containers":[{"name":"a"}]})",
       R"({"containers":[{"image":"x"}]})",
       R"(error: map: {"image":"x"} does not contain declared merge key: name)",
       R"({"containers":[{"name":"a"},{"image":"x"}]})"},
      {"a delete directive on an item", R"({"containers":[{"name":"a","image":"x"}]})",
       R"({"containers":[{"name":"a","$patch":"delete"}]})", R"({"containers":[]})",
       R"({"containers":[{"image":"x","name":"a"}]})"},
      {"a replace directive on a map", R"({"spec":{"a":1,"b":2}})", R"({"spec":{"$patch":"replace","c":3}})",
       R"({"spec":{"c":3}})", R"({"spec":{"a":1,"b":2,"c":3}})"},
      {"a delete directive on the patch", R"({"a":1})", R"({"$patch":"delete"})", R"({})", R"({"a":1})"},
      {"order and primitive-list deletes", R"({"finalizers":["a","b","c"]})",
       R"({"$setElementOrder/finalizers":["c","a"],"$deleteFromPrimitiveList/finalizers":["b"]})",
       R"({"finalizers":["c","a"]})", R"({"finalizers":["a","b","c"]})"},
      {"retainKeys", R"({"s":{"a":1,"b":2}})", R"({"s":{"$retainKeys":["a"],"a":3}})", R"({"s":{"a":3}})",
       R"({"s":{"a":3,"b":2}})"},
      {"a field outside retainKeys", R"({})", R"({"s":{"$retainKeys":["a"],"b":3}})",
       "error: field b is not present in the $retainKeys list", R"({"s":{"b":3}})"},
      {"an empty list", R"({"tolerations":[{"key":"k"}]})", R"({"tolerations":[]})", R"({"tolerations":[]})",
       R"({"tolerations":[{"key":"k"}]})"},
      {"an empty list inside a replaced list", R"({})", R"({"t":[{"a":[],"b":1}]})",
       R"({"t":[{"a":[],"b":1}]})", R"({"t":[{"b":1}]})"},
      {"a keyed list over null", R"({"containers":null})",
       R"({"containers":[{"name":"a","image":"x"},{"name":"a","env":null}]})",
       R"({"containers":[{"image":"x","name":"a"},{"env":null,"name":"a"}]})",
       R"({"containers":[{"image":"x","name":"a"}]})"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.what);
    EXPECT_EQ(merged(c.original, c.patch, k_request_patch), c.request);
    EXPECT_EQ(merged(c.original, c.patch, k_typed_patch), c.typed);
  }
}

TEST(SharedStrategicMerge, WhereBothAgreeTheyMergeAlike) {
  const std::string original =
      R"({"containers":[{"name":"a","env":[{"name":"X","value":"1"}]}],"finalizers":["f"],"labels":{"k":"v","gone":"x"}})";
  const std::string patch =
      R"({"containers":[{"name":"a","env":[{"name":"Y","value":"2"}]},{"name":"b"}],"finalizers":["g","f"],"labels":{"gone":null}})";
  const std::string expected =
      R"({"containers":[{"env":[{"name":"X","value":"1"},{"name":"Y","value":"2"}],"name":"a"},{"name":"b"}],"finalizers":["f","g"],"labels":{"k":"v"}})";
  EXPECT_EQ(merged(original, patch, k_request_patch), expected);
  EXPECT_EQ(merged(original, patch, k_typed_patch), expected);
}

// The typed merge recursed once per level before it shared the API server's iterative one. The test runs
// on a request thread's stack: copying a JSON tree (nlohmann's copy constructor) still recurses per
// level, which ASan's larger frames turn into an overflow of the main thread's 8 MiB.
TEST(SharedStrategicMerge, APatchTenThousandMapsDeepMergesOnARequestThreadsStack) {
  constexpr int k_depth = 10'000;
  json patch = "leaf";
  json original = "old";
  for (int i = 0; i < k_depth; ++i) {
    patch = json{{"a", std::move(patch)}, {"l", json::array({json::object()})}};
    original = json{{"a", std::move(original)}};
  }
  kpt::testing::run_on_stack(kpt::testing::k_request_stack_bytes, [&] {
    for (const MergeOptions* options : {&k_request_patch, &k_typed_patch}) {
      auto out = strategic_merge(original, patch, pod_lists(), *options);
      ASSERT_TRUE(out);
      const json* at = &out.value();
      for (int i = 0; i < k_depth; ++i) at = &(*at)["a"];
      EXPECT_EQ(*at, "leaf");
    }
  });
}

TEST(SharedStrategicMerge, APatchThatIsNotAMapChangesNothing) {
  EXPECT_EQ(merged(R"({"a":1})", "[1]", k_request_patch), R"({"a":1})");
  EXPECT_EQ(merged(R"({"a":1})", "null", k_typed_patch), R"({"a":1})");
}

}  // namespace
}  // namespace kpt::model::k8s
