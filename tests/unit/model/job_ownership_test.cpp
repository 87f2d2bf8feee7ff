#include "model/job_ownership.hpp"

#include "model/k8s/label_selector.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace kpt::model {
namespace {

using nlohmann::json;

json labelled(const json& labels) { return {{"metadata", {{"name", "j"}, {"labels", labels}}}}; }

TEST(LabelSelector, EqualityAndExistenceTermsAllHold) {
  struct Case {
    const char* name;
    const char* selector;
    json labels;
    bool matches;
  };
  const Case cases[] = {
      {"empty matches everything", "", json::object(), true},
      {"equality", "team=a", {{"team", "a"}}, true},
      {"equality, other value", "team=a", {{"team", "b"}}, false},
      {"double equals", "team==a", {{"team", "a"}}, true},
      {"inequality holds without the label", "team!=a", json::object(), true},
      {"inequality", "team!=a", {{"team", "a"}}, false},
      {"existence",
       "kubectl-pytorch.kubeflow.org/controller",
       {{"kubectl-pytorch.kubeflow.org/controller", "x"}},
       true},
      {"absence", "!kubectl-pytorch.kubeflow.org/controller", json::object(), true},
      {"absence, present",
       "!kubectl-pytorch.kubeflow.org/controller",
       {{"kubectl-pytorch.kubeflow.org/controller", "x"}},
       false},
      {"every term", "a=1, b", {{"a", "1"}}, false},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    auto s = k8s::LabelSelector::parse(c.selector);
    ASSERT_TRUE(s) << s.error().message;
    EXPECT_EQ(s->matches(labelled(c.labels)), c.matches);
  }
  // A label of another type is no label.
  EXPECT_FALSE(k8s::LabelSelector::parse("a")->matches({{"metadata", {{"labels", {{"a", 1}}}}}}));
  EXPECT_EQ(k8s::LabelSelector::parse("a==1,!b, c!=2")->to_string(), "a=1,!b,c!=2");
}

TEST(LabelSelector, ATermItCannotReadIsAnErrorNamingIt) {
  const auto s = k8s::LabelSelector::parse("a=1,b in (x)");
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error().message,
            "cannot read the selector term 'b in (x)': use key=value, key!=value, key or !key");
}

TEST(LabelSelector, DisjointSelectorsCannotMatchTheSameJob) {
  struct Case {
    const char* a;
    const char* b;
    bool overlap;
  };
  const Case cases[] = {
      {"", "", true},
      {"team=a", "", true},
      {"team=a", "team=b", false},
      {"team=a", "team!=a", false},
      {"team", "!team", false},
      {"team=a", "!team", false},
      {"team=a", "other=b", true},
      {"team!=a", "team!=b", true},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(std::string(c.a) + " / " + c.b);
    const auto a = *k8s::LabelSelector::parse(c.a);
    const auto b = *k8s::LabelSelector::parse(c.b);
    EXPECT_EQ(a.may_overlap(b), c.overlap);
    EXPECT_EQ(b.may_overlap(a), c.overlap);
  }
}

TEST(JobOwnership, AManagedByOfAnotherControllerIsNeverOurs) {
  const json operator_job = {{"spec", {{"runPolicy", {{"managedBy", "kubeflow.org/training-operator"}}}}}};
  const json kueue_job = {{"spec", {{"runPolicy", {{"managedBy", "kueue.x-k8s.io/multikueue"}}}}}};
  const json trainer_job = {{"spec", {{"managedBy", "trainer.kubeflow.org/trainjob-controller"}}}};
  EXPECT_EQ(external_manager(JobKind::pytorchjob, json::object()), "");
  EXPECT_EQ(external_manager(JobKind::pytorchjob, operator_job), "");
  EXPECT_EQ(external_manager(JobKind::pytorchjob, kueue_job), "kueue.x-k8s.io/multikueue");
  EXPECT_EQ(external_manager(JobKind::trainjob, trainer_job), "");
  EXPECT_EQ(external_manager(JobKind::trainjob, {{"spec", {{"managedBy", "kueue.x-k8s.io/multikueue"}}}}),
            "kueue.x-k8s.io/multikueue");
  EXPECT_EQ(external_manager(JobKind::pytorchjob, {{"spec", {{"runPolicy", {{"managedBy", 3}}}}}}), "");
}

TEST(JobOwnership, MigrationRecordsTheOperatorStyleOnStartedJobsAndOursOnNewOnes) {
  const auto ours = *pytorchjob::parse_style("worker-only");
  const auto op = *pytorchjob::parse_style("operator@v1.9.4");
  const json started = {{"metadata", {{"name", "a"}}}, {"status", {{"conditions", {{{"type", "Created"}}}}}}};
  const json fresh = {{"metadata", {{"name", "b"}}}};
  const json annotated = {{"metadata", {{"annotations", {{k_env_style_annotation, "operator@v1.8.1"}}}}},
                          {"status", {{"conditions", {{{"type", "Running"}}}}}}};
  EXPECT_EQ(style_to_record(started, op, ours), std::optional<std::string>("operator@v1.9.4"));
  EXPECT_EQ(style_to_record(fresh, op, ours), std::optional<std::string>("worker-only"));
  EXPECT_EQ(style_to_record(annotated, op, ours), std::nullopt);
  EXPECT_EQ(pytorchjob::to_string(env_style_of(annotated, ours)), "operator@v1.8.1");
  EXPECT_EQ(pytorchjob::to_string(env_style_of(fresh, ours)), "worker-only");
  const json unreadable = {{"metadata", {{"annotations", {{k_env_style_annotation, "nonsense"}}}}}};
  EXPECT_EQ(pytorchjob::to_string(env_style_of(unreadable, ours)), "worker-only");
}

}  // namespace
}  // namespace kpt::model
