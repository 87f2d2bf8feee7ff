#include "apiserver/selectors.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace kpt::apiserver {
namespace {

using json = nlohmann::json;

TEST(LabelSelector, MatchesEachOperatorAsKubernetesDoes) {
  const json labels = {{"app", "web"}, {"tier", "front"}};
  struct Case {
    std::string selector;
    bool want;
  };
  const std::vector<Case> cases = {
      {"", true},
      {"app=web", true},
      {"app==web", true},
      {"app=db", false},
      {"app!=db", true},
      {"missing!=x", true},
      {"app in (db, web)", true},
      {"app in (db)", false},
      {"app notin (db)", true},
      {"missing notin (db)", true},
      {"tier", true},
      {"missing", false},
      {"!missing", true},
      {"!app", false},
      {"app=web,tier=front", true},
      {"app=web,tier=back", false},
      {"app in (web),!missing,tier", true},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.selector);
    auto s = LabelSelector::parse(c.selector);
    ASSERT_TRUE(s.has_value()) << s.error().message;
    EXPECT_EQ(s->matches(labels), c.want);
  }
}

TEST(LabelSelector, RejectsMalformedRequirementsWithTheTerm) {
  auto s = LabelSelector::parse("app in web");
  ASSERT_FALSE(s.has_value());
  EXPECT_EQ(s.error().message, "unable to parse requirement: expected '(values)' in 'app in web'");
  auto empty = LabelSelector::parse("a=b,,c");
  ASSERT_FALSE(empty.has_value());
  EXPECT_EQ(empty.error().message, "unable to parse requirement: empty requirement in 'a=b,,c'");
}

TEST(FieldSelector, MatchesNamesPhasesNodesAndInvolvedObjects) {
  const json pod = {{"metadata", {{"name", "p"}, {"namespace", "ns"}}},
                    {"spec", {{"nodeName", "local"}}},
                    {"status", {{"phase", "Running"}}}};
  const json event = {{"metadata", {{"name", "e"}}}, {"involvedObject", {{"kind", "Pod"}, {"name", "p"}}}};
  struct Case {
    std::string selector;
    const json* object;
    bool want;
  };
  const std::vector<Case> cases = {
      {"metadata.name=p", &pod, true},
      {"metadata.name!=p", &pod, false},
      {"metadata.namespace==ns", &pod, true},
      {"status.phase=Running,spec.nodeName=local", &pod, true},
      {"status.phase=Pending", &pod, false},
      {"involvedObject.kind=Pod,involvedObject.name=p", &event, true},
      {"involvedObject.name=q", &event, false},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.selector);
    auto s = FieldSelector::parse(c.selector);
    ASSERT_TRUE(s.has_value()) << s.error().message;
    EXPECT_EQ(s->matches(*c.object), c.want);
  }
}

TEST(FieldSelector, RejectsUnsupportedFieldsAndMissingOperators) {
  auto s = FieldSelector::parse("spec.image=x");
  ASSERT_FALSE(s.has_value());
  EXPECT_EQ(s.error().message, "field label not supported: spec.image");
  auto bare = FieldSelector::parse("metadata.name");
  ASSERT_FALSE(bare.has_value());
  EXPECT_EQ(bare.error().message, "invalid selector: 'metadata.name'; can't understand 'metadata.name'");
}

}  // namespace
}  // namespace kpt::apiserver
