#include "apiserver/api_handler.hpp"
#include "apiserver/proto/k8s_meta.pb.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace kpt::apiserver {
namespace {

using nlohmann::json;

const std::string k_pods = "/api/v1/namespaces/default/pods";
const std::string k_maps = "/api/v1/namespaces/default/configmaps";

/// The handler with no transport: each request is a function call.
class Gc : public ::testing::Test {
 protected:
  HttpResponse call(const std::string& method, const std::string& path, const std::string& body = {},
                    const std::multimap<std::string, std::string>& query = {},
                    const std::string& content_type = "application/json") {
    HttpRequest req;
    req.method = method;
    req.path = path;
    req.query = query;
    req.body = body;
    req.headers["content-type"] = content_type;
    return m_handler.handle(req);
  }
  json create(const std::string& collection, const json& obj) {
    const auto r = call("POST", collection, obj.dump());
    EXPECT_EQ(r.status, 201) << r.body;
    return json::parse(r.body);
  }
  int status_of(const std::string& path) { return call("GET", path).status; }
  json get(const std::string& path) { return json::parse(call("GET", path).body); }
  json owner(const std::string& name) { return create(k_maps, {{"metadata", {{"name", name}}}}); }

  static json ref_to(const json& owner_obj, bool block = false) {
    json ref = {{"apiVersion", "v1"},
                {"kind", "ConfigMap"},
                {"name", owner_obj["metadata"]["name"]},
                {"uid", owner_obj["metadata"]["uid"]}};
    if (block) ref["blockOwnerDeletion"] = true;
    return ref;
  }
  static json pod(const std::string& name, const json& refs, const json& finalizers = nullptr) {
    json p = {{"metadata", {{"name", name}, {"ownerReferences", refs}}},
              {"spec", {{"containers", {{{"name", "c"}, {"image", "i"}}}}}}};
    if (!finalizers.is_null()) p["metadata"]["finalizers"] = finalizers;
    return p;
  }

  Store m_store;
  ResourceRegistry m_registry;
  FaultInjector m_faults;
  ApiHandler m_handler{m_store, m_registry, m_faults};
};

TEST_F(Gc, BackgroundDeletionCollectsDependentsAndKeepsThoseWithAnotherOwner) {
  const auto a = owner("a");
  const auto b = owner("b");
  create(k_pods, pod("only-a", json::array({ref_to(a)})));
  create(k_pods, pod("a-and-b", json::array({ref_to(a), ref_to(b)})));
  EXPECT_EQ(call("DELETE", k_maps + "/a").status, 200);
  EXPECT_EQ(status_of(k_pods + "/only-a"), 404);
  const auto kept = get(k_pods + "/a-and-b");
  EXPECT_EQ(kept["metadata"]["ownerReferences"], json::array({ref_to(b)}));
}

TEST_F(Gc, ADependentCreatedAfterItsOwnerWentIsCollected) {
  const auto a = owner("a");
  EXPECT_EQ(call("DELETE", k_maps + "/a").status, 200);
  const auto r = call("POST", k_pods, pod("late", json::array({ref_to(a)})).dump());
  EXPECT_EQ(r.status, 201);  // accepted as the real server does; the collector removes it
  EXPECT_EQ(status_of(k_pods + "/late"), 404);
}

TEST_F(Gc, AnOwnerReferenceToAnotherNamespaceCountsAsAbsent) {
  const auto elsewhere = create("/api/v1/namespaces/kube-system/configmaps", {{"metadata", {{"name", "o"}}}});
  create(k_pods, pod("p", json::array({ref_to(elsewhere)})));
  EXPECT_EQ(status_of(k_pods + "/p"), 404);
  EXPECT_EQ(status_of("/api/v1/namespaces/kube-system/configmaps/o"), 200);
}

TEST_F(Gc, AnUpdateThatAddsADanglingOwnerIsCollected) {
  create(k_pods, pod("p", json::array()));
  auto p = get(k_pods + "/p");
  p["metadata"]["ownerReferences"] = {
      {{"apiVersion", "v1"}, {"kind", "ConfigMap"}, {"name", "x"}, {"uid", "gone"}}};
  EXPECT_EQ(call("PUT", k_pods + "/p", p.dump()).status, 200);
  EXPECT_EQ(status_of(k_pods + "/p"), 404);
}

TEST_F(Gc, ForegroundKeepsTheOwnerUntilItsBlockingDependentsAreGone) {
  const auto a = owner("a");
  create(k_pods, pod("blocker", json::array({ref_to(a, true)}), json::array({"example.com/hold"})));
  create(k_pods, pod("free", json::array({ref_to(a)})));
  const auto r = call("DELETE", k_maps + "/a", R"({"propagationPolicy":"Foreground"})");
  ASSERT_EQ(r.status, 200) << r.body;
  const auto waiting = get(k_maps + "/a");
  EXPECT_EQ(waiting["metadata"]["finalizers"], json::array({"foregroundDeletion"}));
  EXPECT_TRUE(waiting["metadata"].contains("deletionTimestamp"));
  EXPECT_EQ(status_of(k_pods + "/free"), 404);
  EXPECT_TRUE(get(k_pods + "/blocker")["metadata"].contains("deletionTimestamp"));

  // A dependent created while its owner waits goes too, as the collector deletes it.
  create(k_pods, pod("newcomer", json::array({ref_to(a, true)})));
  EXPECT_EQ(status_of(k_pods + "/newcomer"), 404);
  EXPECT_EQ(status_of(k_maps + "/a"), 200);

  const auto released = call("PATCH", k_pods + "/blocker", R"({"metadata":{"finalizers":null}})", {},
                             "application/merge-patch+json");
  ASSERT_EQ(released.status, 200) << released.body;
  EXPECT_EQ(status_of(k_pods + "/blocker"), 404);
  EXPECT_EQ(status_of(k_maps + "/a"), 404);
}

TEST_F(Gc, ForegroundDeletionCascadesThroughAChainOfOwners) {
  const auto top = owner("top");
  auto middle = create(
      k_maps, {{"metadata", {{"name", "middle"}, {"ownerReferences", json::array({ref_to(top, true)})}}}});
  create(k_pods, pod("leaf", json::array({ref_to(middle, true)})));
  EXPECT_EQ(call("DELETE", k_maps + "/top", "", {{"propagationPolicy", "Foreground"}}).status, 200);
  EXPECT_EQ(status_of(k_pods + "/leaf"), 404);
  EXPECT_EQ(status_of(k_maps + "/middle"), 404);
  EXPECT_EQ(status_of(k_maps + "/top"), 404);
}

TEST_F(Gc, ALongChainOfOwnersIsCollectedWithoutRecursion) {
  json prev = owner("c0");
  for (int i = 1; i <= 3000; ++i) {
    prev = create(k_maps,
                  {{"metadata",
                    {{"name", "c" + std::to_string(i)}, {"ownerReferences", json::array({ref_to(prev)})}}}});
  }
  EXPECT_EQ(call("DELETE", k_maps + "/c0").status, 200);
  EXPECT_EQ(status_of(k_maps + "/c3000"), 404);
}

TEST_F(Gc, OrphanPropagationStripsTheOwnerReferenceFromBodyOrQueryAlike) {
  struct Case {
    std::string name, body;
    std::multimap<std::string, std::string> query;
  };
  const std::vector<Case> cases = {
      {"body with kind", R"({"kind":"DeleteOptions","apiVersion":"v1","propagationPolicy":"Orphan"})", {}},
      {"body without kind", R"({"propagationPolicy":"Orphan"})", {}},
      {"legacy orphanDependents", R"({"orphanDependents":true})", {}},
      {"query", "", {{"propagationPolicy", "Orphan"}}},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    const auto a = owner("a");
    create(k_pods, pod("p", json::array({ref_to(a)})));
    EXPECT_EQ(call("DELETE", k_maps + "/a", c.body, c.query).status, 200);
    EXPECT_EQ(status_of(k_maps + "/a"), 404);
    const auto kept = get(k_pods + "/p");
    EXPECT_FALSE(kept["metadata"].contains("ownerReferences")) << kept.dump();
    EXPECT_EQ(call("DELETE", k_pods + "/p").status, 200);
  }
}

TEST_F(Gc, APendingDeleteIsAcceptedOnlyWhenTheClientSetOrphanDependentsToFalse) {
  struct Case {
    const char* name;
    bool finalizer;
    std::string body;
    std::multimap<std::string, std::string> query;
    int status;
  };
  const std::vector<Case> cases = {
      {"pending, orphanDependents false in the body", true, R"({"orphanDependents":false})", {}, 202},
      {"pending, orphanDependents false in the query", true, "", {{"orphanDependents", "false"}}, 202},
      {"pending, Foreground", true, R"({"propagationPolicy":"Foreground"})", {}, 200},
      {"pending, no options", true, "", {}, 200},
      {"pending, orphanDependents true", true, R"({"orphanDependents":true})", {}, 200},
      {"gone at once, orphanDependents false", false, R"({"orphanDependents":false})", {}, 200},
  };
  int i = 0;
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    const std::string name = "o" + std::to_string(i++);
    json cm = {{"metadata", {{"name", name}}}};
    if (c.finalizer) cm["metadata"]["finalizers"] = {"example.com/hold"};
    create(k_maps, cm);
    const auto r = call("DELETE", k_maps + "/" + name, c.body, c.query);
    EXPECT_EQ(r.status, c.status) << r.body;
    EXPECT_EQ(json::parse(r.body)["metadata"]["name"], name);
    EXPECT_EQ(status_of(k_maps + "/" + name), c.finalizer ? 200 : 404);
  }
}

/// A protobuf DeleteOptions body as client-go's typed clients send it.
std::string protobuf_delete_options(const std::string& kind, const std::string& raw) {
  k8s::Unknown unknown;
  unknown.mutable_typemeta()->set_apiversion("v1");
  unknown.mutable_typemeta()->set_kind(kind);
  unknown.set_raw(raw);
  return std::string("k8s\0", 4) + unknown.SerializeAsString();
}

TEST_F(Gc, DeleteOptionsInAProtobufBodyAreHonouredAsJsonOnes) {
  const auto a = owner("a");
  create(k_pods, pod("child", json::array({ref_to(a)})));
  k8s::DeleteOptions orphan;
  orphan.set_propagationpolicy("Orphan");
  const std::string protobuf = "application/vnd.kubernetes.protobuf";
  const auto r = call("DELETE", k_maps + "/a",
                      protobuf_delete_options("DeleteOptions", orphan.SerializeAsString()), {}, protobuf);
  EXPECT_EQ(r.status, 200) << r.body;
  EXPECT_FALSE(get(k_pods + "/child")["metadata"].contains("ownerReferences"));

  const auto b = owner("b");
  k8s::DeleteOptions stale;
  stale.mutable_preconditions()->set_uid("not-" + b["metadata"]["uid"].get<std::string>());
  EXPECT_EQ(call("DELETE", k_maps + "/b", protobuf_delete_options("DeleteOptions", stale.SerializeAsString()),
                 {}, protobuf)
                .status,
            409);
  k8s::DeleteOptions dry;
  dry.add_dryrun("All");
  EXPECT_EQ(call("DELETE", k_maps + "/b", protobuf_delete_options("DeleteOptions", dry.SerializeAsString()),
                 {}, protobuf)
                .status,
            200);
  EXPECT_EQ(status_of(k_maps + "/b"), 200);
}

TEST_F(Gc, AProtobufBodyThatIsNotDeleteOptionsIsABadRequestAndDeletesNothing) {
  owner("a");
  const std::string protobuf = "application/vnd.kubernetes.protobuf";
  const auto pod_body = call("DELETE", k_maps + "/a", protobuf_delete_options("Pod", ""), {}, protobuf);
  EXPECT_EQ(pod_body.status, 400);
  EXPECT_EQ(json::parse(pod_body.body)["message"],
            "the body of the request is not a DeleteOptions: its kind is 'Pod'");
  const auto garbage = call("DELETE", k_maps + "/a", std::string("k8s\0\xff\xff", 6), {}, protobuf);
  EXPECT_EQ(garbage.status, 400);
  EXPECT_EQ(
      json::parse(garbage.body)["message"],
      "the protobuf body is not a valid Kubernetes object: the runtime.Unknown envelope does not parse");
  EXPECT_EQ(status_of(k_maps + "/a"), 200);
}

TEST_F(Gc, AnUnknownPropagationPolicyIsInvalid) {
  owner("a");
  const auto r = call("DELETE", k_maps + "/a", R"({"propagationPolicy":"Sometimes"})");
  EXPECT_EQ(r.status, 422);
  EXPECT_EQ(json::parse(r.body)["message"],
            "DeleteOptions.meta.k8s.io \"\" is invalid: propagationPolicy: Unsupported value: \"Sometimes\": "
            "supported values: \"Foreground\", \"Background\", \"Orphan\", \"nil\"");
  EXPECT_EQ(status_of(k_maps + "/a"), 200);
}

TEST_F(Gc, ABodyThatIsNotDeleteOptionsIsABadRequest) {
  owner("a");
  const auto r = call("DELETE", k_maps + "/a", "[1,2");
  EXPECT_EQ(r.status, 400);
  EXPECT_EQ(json::parse(r.body)["message"],
            "the body of the request is not a DeleteOptions: it is not a JSON object");
  const auto wrong_kind = call("DELETE", k_maps + "/a", R"({"kind":"Pod"})");
  EXPECT_EQ(json::parse(wrong_kind.body)["message"],
            "the body of the request is not a DeleteOptions: its kind is 'Pod'");
  EXPECT_EQ(status_of(k_maps + "/a"), 200);
}

TEST_F(Gc, AUidPreconditionThatDoesNotMatchIsAConflict) {
  const auto a = owner("a");
  const auto r = call("DELETE", k_maps + "/a", R"({"preconditions":{"uid":"other"}})");
  EXPECT_EQ(r.status, 409);
  EXPECT_EQ(
      json::parse(r.body)["message"],
      "Operation cannot be fulfilled on configmaps \"a\": Precondition failed: UID in precondition: other, "
      "UID in object meta: " +
          a["metadata"]["uid"].get<std::string>());
  const auto ok =
      call("DELETE", k_maps + "/a", json{{"preconditions", {{"uid", a["metadata"]["uid"]}}}}.dump());
  EXPECT_EQ(ok.status, 200);
}

TEST(StoreOwnerIndex, FollowsOwnerReferencesAsObjectsChange) {
  Store store;
  const auto put = [&](const std::string& name, const json& refs) {
    json obj = {{"metadata",
                 {{"name", name}, {"namespace", "n"}, {"uid", "uid-" + name}, {"ownerReferences", refs}}}};
    ASSERT_TRUE(store.mutate("/pods", "n", name, [&](const auto&) -> Expected<json> { return obj; }));
  };
  put("child", json::array({{{"uid", "uid-owner"}}}));
  ASSERT_EQ(store.dependents_of("uid-owner").size(), 1u);
  EXPECT_EQ(store.dependents_of("uid-owner")[0].name, "child");
  ASSERT_TRUE(store.find_uid("uid-child"));
  EXPECT_EQ(store.find_uid("uid-child")->ref.ns, "n");
  put("child", json::array());
  EXPECT_TRUE(store.dependents_of("uid-owner").empty());
  ASSERT_TRUE(store.erase("/pods", "n", "child"));
  EXPECT_FALSE(store.find_uid("uid-child"));
}

}  // namespace
}  // namespace kpt::apiserver
