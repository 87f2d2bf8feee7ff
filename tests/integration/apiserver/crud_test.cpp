#include "client.hpp"

#include <gtest/gtest.h>

namespace kpt::apiserver::testing {
namespace {

using json = nlohmann::json;
const std::string k_pods = "/api/v1/namespaces/default/pods";

TEST(ApiServerCrud, CreateAssignsUidTimestampGenerationAndResourceVersion) {
  Harness h;
  auto r = h.client->post(k_pods, pod("a"));
  ASSERT_EQ(r.status, 201) << r.raw;
  const auto& meta = r.body["metadata"];
  EXPECT_EQ(meta["uid"].get<std::string>().size(), 36u);
  EXPECT_FALSE(meta["creationTimestamp"].get<std::string>().empty());
  EXPECT_EQ(meta["generation"], 1);
  EXPECT_EQ(meta["namespace"], "default");
  EXPECT_EQ(r.body["status"]["phase"], "Pending");
  auto got = h.client->get(k_pods + "/a");
  EXPECT_EQ(got.status, 200);
  EXPECT_EQ(got.body["metadata"]["resourceVersion"], meta["resourceVersion"]);
}

TEST(ApiServerCrud, GenerateNameGivesAFreshName) {
  Harness h;
  auto obj = pod("");
  obj["metadata"] = {{"generateName", "job-"}};
  auto r = h.client->post(k_pods, obj);
  ASSERT_EQ(r.status, 201) << r.raw;
  const std::string name = r.body["metadata"]["name"];
  EXPECT_EQ(name.rfind("job-", 0), 0u);
  EXPECT_EQ(name.size(), 9u);
}

TEST(ApiServerCrud, CreatingTwiceIsAlreadyExistsWithAKubernetesStatus) {
  Harness h;
  ASSERT_EQ(h.client->post(k_pods, pod("a")).status, 201);
  auto r = h.client->post(k_pods, pod("a"));
  EXPECT_EQ(r.status, 409);
  EXPECT_EQ(r.body, json::parse(R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure",
    "message":"pods \"a\" already exists","reason":"AlreadyExists","details":{"name":"a","kind":"pods"},"code":409})"));
}

TEST(ApiServerCrud, UpdateWithAStaleResourceVersionIsAConflict) {
  Harness h;
  auto created = h.client->post(k_pods, pod("a")).body;
  auto first = created;
  first["metadata"]["labels"] = {{"x", "1"}};
  ASSERT_EQ(h.client->put(k_pods + "/a", first).status, 200);
  auto stale = created;
  stale["metadata"]["labels"] = {{"x", "2"}};
  auto r = h.client->put(k_pods + "/a", stale);
  EXPECT_EQ(r.status, 409);
  EXPECT_EQ(r.body["reason"], "Conflict");
  EXPECT_EQ(r.body["message"],
            "Operation cannot be fulfilled on pods \"a\": the object has been modified; please "
            "apply your changes to the latest version and try again");
}

TEST(ApiServerCrud, GetOfAMissingObjectIsNotFound) {
  Harness h;
  auto r = h.client->get(k_pods + "/nope");
  EXPECT_EQ(r.status, 404);
  EXPECT_EQ(r.body["message"], "pods \"nope\" not found");
  auto ns = h.client->post("/api/v1/namespaces/missing/pods", pod("a"));
  EXPECT_EQ(ns.status, 404);
  EXPECT_EQ(ns.body["message"], "namespaces \"missing\" not found");
}

TEST(ApiServerCrud, MergePatchJsonPatchAndServerSideApplyChangeTheObject) {
  Harness h;
  ASSERT_EQ(h.client->post(k_pods, pod("a")).status, 201);
  auto merge =
      h.client->patch(k_pods + "/a", R"({"metadata":{"labels":{"m":"1"}}})", "application/merge-patch+json");
  ASSERT_EQ(merge.status, 200) << merge.raw;
  EXPECT_EQ(merge.body["metadata"]["labels"]["m"], "1");
  auto jp = h.client->patch(k_pods + "/a", R"([{"op":"add","path":"/metadata/labels/j","value":"2"}])",
                            "application/json-patch+json");
  ASSERT_EQ(jp.status, 200) << jp.raw;
  EXPECT_EQ(jp.body["metadata"]["labels"], (json{{"m", "1"}, {"j", "2"}}));
  auto bad = h.client->patch(k_pods + "/a", R"([{"op":"test","path":"/metadata/name","value":"b"}])",
                             "application/json-patch+json");
  EXPECT_EQ(bad.status, 422);

  auto apply_new =
      h.client->patch(k_pods + "/b?fieldManager=test", pod("b").dump(), "application/apply-patch+yaml");
  EXPECT_EQ(apply_new.status, 201) << apply_new.raw;
  auto apply_again = h.client->patch(k_pods + "/b?fieldManager=test",
                                     "metadata:\n  name: b\n  labels:\n    applied: \"yes\"\n",
                                     "application/apply-patch+yaml");
  EXPECT_EQ(apply_again.status, 200) << apply_again.raw;
  EXPECT_EQ(apply_again.body["metadata"]["labels"]["applied"], "yes");
  auto no_manager = h.client->patch(k_pods + "/b", "{}", "application/apply-patch+yaml");
  EXPECT_EQ(no_manager.status, 422);
  EXPECT_EQ(
      no_manager.body["message"],
      "PatchOptions.meta.k8s.io \"\" is invalid: fieldManager: Required value: is required for apply patch");
}

TEST(ApiServerCrud, DryRunAllStoresNothing) {
  Harness h;
  auto r = h.client->post(k_pods + "?dryRun=All", pod("a"));
  EXPECT_EQ(r.status, 201);
  EXPECT_EQ(h.client->get(k_pods + "/a").status, 404);
}

TEST(ApiServerCrud, LabelAndFieldSelectorsFilterLists) {
  Harness h;
  h.client->post(k_pods, pod("a", {{"app", "x"}, {"tier", "web"}}));
  h.client->post(k_pods, pod("b", {{"app", "y"}}));
  h.client->post(k_pods, pod("c", json::object()));
  struct Case {
    std::string name, query;
    std::vector<std::string> want;
  };
  const std::vector<Case> cases = {
      {"equals", "labelSelector=app%3Dx", {"a"}},
      {"double equals", "labelSelector=app%3D%3Dy", {"b"}},
      {"not equals", "labelSelector=app!%3Dx", {"b", "c"}},
      {"in", "labelSelector=app%20in%20(x,y)", {"a", "b"}},
      {"notin", "labelSelector=app%20notin%20(x)", {"b", "c"}},
      {"exists", "labelSelector=tier", {"a"}},
      {"not exists", "labelSelector=!app", {"c"}},
      {"field name", "fieldSelector=metadata.name%3Db", {"b"}},
      {"field phase", "fieldSelector=status.phase!%3DPending", {}},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    auto r = h.client->get(k_pods + "?" + c.query);
    ASSERT_EQ(r.status, 200) << r.raw;
    std::vector<std::string> names;
    for (const auto& item : r.body["items"]) names.push_back(item["metadata"]["name"]);
    EXPECT_EQ(names, c.want);
  }
  auto bad = h.client->get(k_pods + "?fieldSelector=spec.image%3Dx");
  EXPECT_EQ(bad.status, 400);
  EXPECT_EQ(bad.body["message"], "field label not supported: spec.image");
}

TEST(ApiServerCrud, LimitAndContinuePageThroughAList) {
  Harness h;
  for (const char* n : {"a", "b", "c", "d", "e"}) h.client->post(k_pods, pod(n));
  std::vector<std::string> names;
  std::string token;
  int pages = 0;
  do {
    auto r = h.client->get(k_pods + "?limit=2" + (token.empty() ? "" : "&continue=" + token));
    ASSERT_EQ(r.status, 200);
    for (const auto& item : r.body["items"]) names.push_back(item["metadata"]["name"]);
    token = r.body["metadata"].value("continue", "");
    ++pages;
  } while (!token.empty() && pages < 10);
  EXPECT_EQ(pages, 3);
  EXPECT_EQ(names, (std::vector<std::string>{"a", "b", "c", "d", "e"}));
}

TEST(ApiServerCrud, DeletingAnOwnerCollectsItsDependents) {
  for (const std::string policy : {"Background", "Foreground"}) {
    SCOPED_TRACE(policy);
    Harness h;
    auto owner = h.client
                     ->post("/api/v1/namespaces/default/services",
                            json{{"metadata", {{"name", "owner"}}}, {"spec", {{"clusterIP", "None"}}}})
                     .body;
    auto child = pod("child");
    child["metadata"]["ownerReferences"] = {
        {{"apiVersion", "v1"}, {"kind", "Service"}, {"name", "owner"}, {"uid", owner["metadata"]["uid"]}}};
    ASSERT_EQ(h.client->post(k_pods, child).status, 201);
    ASSERT_EQ(h.client->post(k_pods, pod("bystander")).status, 201);
    auto r = h.client->del("/api/v1/namespaces/default/services/owner",
                           json{{"kind", "DeleteOptions"}, {"propagationPolicy", policy}}.dump());
    EXPECT_EQ(r.status, 200) << r.raw;
    EXPECT_EQ(h.client->get(k_pods + "/child").status, 404);
    EXPECT_EQ(h.client->get(k_pods + "/bystander").status, 200);
  }
}

TEST(ApiServerCrud, OrphanPropagationKeepsDependentsAndDropsTheirOwnerReference) {
  Harness h;
  auto owner = h.client
                   ->post("/api/v1/namespaces/default/services",
                          json{{"metadata", {{"name", "o"}}}, {"spec", {{"clusterIP", "None"}}}})
                   .body;
  auto child = pod("child");
  child["metadata"]["ownerReferences"] = {
      {{"apiVersion", "v1"}, {"kind", "Service"}, {"name", "o"}, {"uid", owner["metadata"]["uid"]}}};
  ASSERT_EQ(h.client->post(k_pods, child).status, 201);
  h.client->del("/api/v1/namespaces/default/services/o?propagationPolicy=Orphan");
  auto got = h.client->get(k_pods + "/child");
  ASSERT_EQ(got.status, 200);
  EXPECT_FALSE(got.body["metadata"].contains("ownerReferences"));
}

TEST(ApiServerCrud, FinalizersDelayDeletionUntilTheyAreRemoved) {
  Harness h;
  auto p = pod("a");
  p["metadata"]["finalizers"] = {"example.com/keep"};
  h.client->post(k_pods, p);
  auto r = h.client->del(k_pods + "/a");
  EXPECT_EQ(r.status, 200);
  auto got = h.client->get(k_pods + "/a");
  ASSERT_EQ(got.status, 200);
  EXPECT_TRUE(got.body["metadata"].contains("deletionTimestamp"));
  h.client->patch(k_pods + "/a", R"({"metadata":{"finalizers":null}})", "application/merge-patch+json");
  EXPECT_EQ(h.client->get(k_pods + "/a").status, 404);
}

TEST(ApiServerCrud, APendingDeleteWithOrphanDependentsFalseIsAccepted) {
  Harness h;
  auto p = pod("a");
  p["metadata"]["finalizers"] = {"example.com/keep"};
  ASSERT_EQ(h.client->post(k_pods, p).status, 201);
  const auto r = h.client->del(k_pods + "/a", R"({"kind":"DeleteOptions","orphanDependents":false})");
  EXPECT_EQ(r.status, 202) << r.raw;
  EXPECT_TRUE(r.body["metadata"].contains("deletionTimestamp"));
}

TEST(ApiServerCrud, PodBindingSetsTheNodeName) {
  Harness h;
  h.client->post(k_pods, pod("a"));
  auto r = h.client->post(k_pods + "/a/binding", json{{"target", {{"kind", "Node"}, {"name", "local"}}}});
  EXPECT_EQ(r.status, 201) << r.raw;
  EXPECT_EQ(h.client->get(k_pods + "/a").body["spec"]["nodeName"], "local");
  auto status = h.client->get(k_pods + "?fieldSelector=spec.nodeName%3Dlocal");
  EXPECT_EQ(status.body["items"].size(), 1u);
}

}  // namespace
}  // namespace kpt::apiserver::testing
