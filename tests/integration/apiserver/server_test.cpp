#include "client.hpp"
#include "tests/support/memory_log_provider.hpp"

#include <gtest/gtest.h>

namespace kpt::apiserver::testing {
namespace {

using json = nlohmann::json;
const std::string k_pods = "/api/v1/namespaces/default/pods";

TEST(ApiServerServer, RequestsWithoutTheTokenAreUnauthorized) {
  Harness h;
  Client anonymous(*h.server, "");
  auto r = anonymous.get(k_pods);
  EXPECT_EQ(r.status, 401);
  EXPECT_EQ(r.body, json::parse(R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure",
      "message":"Unauthorized","reason":"Unauthorized","code":401})"));
  Client wrong(*h.server, "not-the-token");
  EXPECT_EQ(wrong.get("/version").status, 401);
  EXPECT_EQ(anonymous.get("/healthz").status, 200);
}

TEST(ApiServerServer, DiscoveryListsTheBuiltInResources) {
  Harness h;
  auto api = h.client->get("/api");
  EXPECT_EQ(api.body["versions"], json::array({"v1"}));
  auto core = h.client->get("/api/v1");
  std::vector<std::string> names;
  for (const auto& r : core.body["resources"]) names.push_back(r["name"]);
  for (const char* want : {"namespaces", "pods", "pods/status", "pods/log", "services", "events"}) {
    SCOPED_TRACE(want);
    EXPECT_NE(std::find(names.begin(), names.end(), want), names.end());
  }
  auto groups = h.client->get("/apis");
  std::vector<std::string> group_names;
  for (const auto& g : groups.body["groups"]) group_names.push_back(g["name"]);
  EXPECT_EQ(group_names,
            (std::vector<std::string>{"batch", "coordination.k8s.io", "apps", "admissionregistration.k8s.io",
                                      "apiextensions.k8s.io", "rbac.authorization.k8s.io", "policy",
                                      "authorization.k8s.io", "authentication.k8s.io"}));
  EXPECT_EQ(h.client->get("/apis/kubeflow.org/v1").status, 404);
  EXPECT_EQ(h.client->get("/version").body["gitVersion"], "v1.32.0-kubectl-pytorch");
}

TEST(ApiServerServer, SelfSubjectAccessReviewsAreAllowed) {
  Harness h;
  auto r =
      h.client->post("/apis/authorization.k8s.io/v1/selfsubjectaccessreviews",
                     json{{"apiVersion", "authorization.k8s.io/v1"},
                          {"kind", "SelfSubjectAccessReview"},
                          {"spec", {{"resourceAttributes", {{"verb", "create"}, {"resource", "pods"}}}}}});
  EXPECT_EQ(r.status, 201);
  EXPECT_EQ(r.body["status"]["allowed"], true);
}

TEST(ApiServerServer, AServiceAccountTokenRequestedIsReviewedForItsAudience) {
  Harness h;
  auto issued =
      h.client->post("/api/v1/namespaces/ml/serviceaccounts/default/token",
                     json{{"apiVersion", "authentication.k8s.io/v1"},
                          {"kind", "TokenRequest"},
                          {"spec", {{"audiences", {"job-audience"}}, {"expirationSeconds", 3600}}}});
  ASSERT_EQ(issued.status, 201);
  const std::string token = issued.body["status"]["token"];
  const auto review = [&](const char* audience) {
    return h.client->post("/apis/authentication.k8s.io/v1/tokenreviews",
                          json{{"apiVersion", "authentication.k8s.io/v1"},
                               {"kind", "TokenReview"},
                               {"spec", {{"token", token}, {"audiences", {audience}}}}});
  };
  auto ok = review("job-audience");
  EXPECT_EQ(ok.status, 201);
  EXPECT_EQ(ok.body["status"]["authenticated"], true);
  EXPECT_EQ(ok.body["status"]["user"]["username"], "system:serviceaccount:ml:default");
  EXPECT_EQ(review("other").body["status"]["authenticated"], false);
}

TEST(ApiServerServer, PodTablesHaveKubectlsColumns) {
  Harness h;
  auto p = pod("a");
  h.client->post(k_pods, p);
  auto r = h.client->get(k_pods, "application/json;as=Table;v=v1;g=meta.k8s.io,application/json");
  ASSERT_EQ(r.status, 200);
  EXPECT_EQ(r.body["kind"], "Table");
  std::vector<std::string> cols;
  for (const auto& c : r.body["columnDefinitions"]) cols.push_back(c["name"]);
  // The real server's pod columns; the last four have priority 1 (kubectl shows them with -o wide).
  EXPECT_EQ(cols, (std::vector<std::string>{"Name", "Ready", "Status", "Restarts", "Age", "IP", "Node",
                                            "Nominated Node", "Readiness Gates"}));
  const auto& cells = r.body["rows"][0]["cells"];
  EXPECT_EQ(cells[0], "a");
  EXPECT_EQ(cells[1], "0/1");
  EXPECT_EQ(cells[2], "Pending");
  EXPECT_EQ(cells[3], "0");  // a string since Kubernetes 1.22: "2 (5m ago)" once restarted
  EXPECT_EQ(r.body["rows"][0]["object"]["kind"], "PartialObjectMetadata");
}

TEST(ApiServerServer, PodLogsComeFromTheProviderAndDefaultToNoLogs) {
  Harness h;
  h.client->post(k_pods, pod("a"));
  auto none = h.client->get(k_pods + "/a/log");
  EXPECT_EQ(none.status, 400);
  EXPECT_EQ(none.body["message"], "no logs for pod 'a': no node runs pods on this server");
  auto logs = std::make_shared<MemoryLogProvider>();
  logs->append("default", "a", "main", "one\ntwo\nthree\n");
  h.server->set_log_provider(logs);
  EXPECT_EQ(h.client->get(k_pods + "/a/log").raw, "one\ntwo\nthree\n");
  EXPECT_EQ(h.client->get(k_pods + "/a/log?tailLines=2").raw, "two\nthree\n");
  EXPECT_EQ(h.client->get(k_pods + "/a/log?limitBytes=5").raw, "one\nt");
  auto wrong = h.client->get(k_pods + "/a/log?container=side");
  EXPECT_EQ(wrong.status, 400);
  EXPECT_EQ(wrong.body["message"], "container side is not valid for pod a");
  logs->finish("default", "a", "main");
  EXPECT_EQ(h.client->get(k_pods + "/a/log?follow=true").raw, "one\ntwo\nthree\n");
}

TEST(ApiServerServer, SeededFaultsAreDeterministicAndCarryRetryAfter) {
  const auto codes = [](std::uint64_t seed) {
    ServerOptions opts;
    opts.faults.seed = seed;
    opts.faults.error_rate_500 = 0.3;
    opts.faults.error_rate_429 = 0.3;
    opts.faults.retry_after_seconds = 7;
    Harness h(opts);
    std::vector<int> out;
    bool saw_retry_after = false;
    for (int i = 0; i < 20; ++i) {
      auto r = h.client->get(k_pods);
      out.push_back(r.status);
      if (r.status == 429) saw_retry_after = r.header("Retry-After") == "7";
    }
    EXPECT_TRUE(saw_retry_after);
    EXPECT_EQ(h.client->get("/api/v1").status, 200);  // discovery is never faulted
    return out;
  };
  const auto a = codes(42);
  EXPECT_EQ(a, codes(42));
  EXPECT_NE(std::count(a.begin(), a.end(), 500), 0);
  EXPECT_NE(std::count(a.begin(), a.end(), 200), 0);
}

// As kube-apiserver: gzip only, and only from 128 KiB on; never brotli, never a stream. Compressing
// every small answer with brotli (what httplib does for libcurl's offer) took two thirds of the
// server's CPU in bench_controller.
TEST(ApiServerServer, OnlyLargeAnswersAreCompressedAndOnlyWithGzip) {
  Harness h;
  auto small = h.client->get_encoded("/api/v1/namespaces/default/pods", "deflate, gzip, br, zstd");
  ASSERT_EQ(small.status, 200);
  EXPECT_EQ(small.header("Content-Encoding"), "");
  EXPECT_EQ(small.body["kind"], "PodList");
  const std::string padding(2000, 'x');
  for (int i = 0; i < 80; ++i) {
    auto p = pod("p" + std::to_string(i));
    p["metadata"]["annotations"] = {{"padding", padding}};
    ASSERT_EQ(h.client->post("/api/v1/namespaces/default/pods", p).status, 201);
  }
  auto large = h.client->get_encoded("/api/v1/namespaces/default/pods", "deflate, gzip, br, zstd");
  ASSERT_EQ(large.status, 200);
  EXPECT_EQ(large.header("Content-Encoding"), "gzip");
  EXPECT_EQ(large.body["items"].size(), 80u);
  auto brotli_only = h.client->get_encoded("/api/v1/namespaces/default/pods", "br");
  EXPECT_EQ(brotli_only.header("Content-Encoding"), "");
  EXPECT_EQ(brotli_only.body["items"].size(), 80u);
}

TEST(ApiServerServer, DeletingANamespaceDeletesWhatIsInIt) {
  Harness h;
  ASSERT_EQ(h.client->post("/api/v1/namespaces", json{{"metadata", {{"name", "team"}}}}).status, 201);
  ASSERT_EQ(h.client->post("/api/v1/namespaces/team/pods", pod("a")).status, 201);
  EXPECT_EQ(h.client->del("/api/v1/namespaces/team").status, 200);
  EXPECT_EQ(h.client->get("/api/v1/namespaces/team/pods/a").status, 404);
}

}  // namespace
}  // namespace kpt::apiserver::testing
