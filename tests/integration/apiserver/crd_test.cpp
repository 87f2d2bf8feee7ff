#include "client.hpp"

#include <gtest/gtest.h>

namespace kpt::apiserver::testing {
namespace {

using json = nlohmann::json;
const std::string k_crds = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions";
const std::string k_jobs = "/apis/kubeflow.org/v1/namespaces/default/pytorchjobs";

json job(const std::string& name) {
  return {{"apiVersion", "kubeflow.org/v1"},
          {"kind", "PyTorchJob"},
          {"metadata", {{"name", name}}},
          {"spec", {{"pytorchReplicaSpecs", {{"Worker", {{"replicas", 2}, {"template", json::object()}}}}}}}};
}

struct CrdHarness : Harness {
  CrdHarness() {
    auto r = client->post(k_crds, small_crd());
    if (r.status != 201) throw std::runtime_error("creating the CRD: " + r.raw);
  }
};

TEST(ApiServerCrd, ACreatedCrdIsEstablishedAndServedAtOnce) {
  CrdHarness h;
  auto crd = h.client->get(k_crds + "/pytorchjobs.kubeflow.org").body;
  std::vector<std::string> conditions;
  for (const auto& c : crd["status"]["conditions"])
    conditions.push_back(c["type"].get<std::string>() + "=" + c["status"].get<std::string>());
  EXPECT_EQ(conditions, (std::vector<std::string>{"NamesAccepted=True", "Established=True"}));
  auto list = h.client->get("/apis/kubeflow.org/v1");
  ASSERT_EQ(list.status, 200);
  std::vector<std::string> names;
  for (const auto& r : list.body["resources"]) names.push_back(r["name"]);
  EXPECT_EQ(names, (std::vector<std::string>{"pytorchjobs", "pytorchjobs/status", "pytorchjobs/scale"}));
  EXPECT_EQ(h.client->post(k_jobs, job("a")).status, 201);
}

TEST(ApiServerCrd, UnknownFieldsWarnByDefaultAndFailWithStrictValidation) {
  CrdHarness h;
  auto j = job("a");
  j["spec"]["bogus"] = 1;
  auto warned = h.client->post(k_jobs, j);
  ASSERT_EQ(warned.status, 201) << warned.raw;
  EXPECT_EQ(warned.all("Warning").size(), 1u);
  EXPECT_NE(warned.header("Warning").find("bogus"), std::string::npos) << warned.header("Warning");
  j["metadata"]["name"] = "b";
  auto strict = h.client->post(k_jobs + "?fieldValidation=Strict", j);
  EXPECT_EQ(strict.status, 422) << strict.raw;
  EXPECT_EQ(strict.body["reason"], "Invalid");
  ASSERT_EQ(strict.body["details"]["causes"].size(), 1u);
  EXPECT_NE(strict.body["details"]["causes"][0]["field"].get<std::string>().find("bogus"), std::string::npos);
  j["metadata"]["name"] = "c";
  EXPECT_EQ(h.client->post(k_jobs + "?fieldValidation=Ignore", j).all("Warning").size(), 0u);
}

TEST(ApiServerCrd, SchemaErrorsAreInvalid) {
  CrdHarness h;
  auto j = job("a");
  j["spec"]["pytorchReplicaSpecs"]["Worker"]["replicas"] = "two";
  auto r = h.client->post(k_jobs, j);
  EXPECT_EQ(r.status, 422) << r.raw;
  EXPECT_EQ(r.body["details"]["kind"], "PyTorchJob");
}

TEST(ApiServerCrd, TheStatusSubresourceSeparatesSpecAndStatusWrites) {
  CrdHarness h;
  auto j = job("a");
  j["status"] = {{"conditions", {{{"type", "Running"}, {"status", "True"}}}}};
  auto created = h.client->post(k_jobs, j).body;
  EXPECT_FALSE(created.contains("status"));
  auto with_status = created;
  with_status["status"] = {{"conditions", {{{"type", "Succeeded"}, {"status", "True"}}}}};
  auto st = h.client->put(k_jobs + "/a/status", with_status);
  ASSERT_EQ(st.status, 200) << st.raw;
  EXPECT_EQ(st.body["status"]["conditions"][0]["type"], "Succeeded");
  EXPECT_EQ(st.body["metadata"]["generation"], 1);
  auto main = st.body;
  main["status"] = json::object();
  main["spec"]["pytorchReplicaSpecs"]["Worker"]["replicas"] = 3;
  auto up = h.client->put(k_jobs + "/a", main);
  ASSERT_EQ(up.status, 200) << up.raw;
  EXPECT_EQ(up.body["status"]["conditions"][0]["type"], "Succeeded");
  EXPECT_EQ(up.body["metadata"]["generation"], 2);
  auto table = h.client->get(k_jobs, "application/json;as=Table;v=v1;g=meta.k8s.io");
  EXPECT_EQ(table.body["rows"][0]["cells"][1], "Succeeded");
}

TEST(ApiServerCrd, TheScaleSubresourceReadsAndWritesTheReplicaPath) {
  CrdHarness h;
  h.client->post(k_jobs, job("a"));
  auto scale = h.client->get(k_jobs + "/a/scale");
  EXPECT_EQ(scale.body["kind"], "Scale");
  EXPECT_EQ(scale.body["spec"]["replicas"], 2);
  auto r = h.client->patch(k_jobs + "/a/scale", R"({"spec":{"replicas":4}})", "application/merge-patch+json");
  EXPECT_EQ(r.status, 200) << r.raw;
  EXPECT_EQ(h.client->get(k_jobs + "/a").body["spec"]["pytorchReplicaSpecs"]["Worker"]["replicas"], 4);
}

TEST(ApiServerCrd, StrategicMergePatchIsUnsupportedForCustomResources) {
  CrdHarness h;
  h.client->post(k_jobs, job("a"));
  auto r = h.client->patch(k_jobs + "/a", "{}", "application/strategic-merge-patch+json");
  EXPECT_EQ(r.status, 415);
  EXPECT_EQ(r.body["reason"], "UnsupportedMediaType");
}

TEST(ApiServerCrd, OpenApiV3DescribesTheKindForKubectlExplain) {
  CrdHarness h;
  auto root = h.client->get("/openapi/v3");
  const std::string url = root.body["paths"]["apis/kubeflow.org/v1"]["serverRelativeURL"];
  EXPECT_EQ(url.rfind("/openapi/v3/apis/kubeflow.org/v1?hash=", 0), 0u);
  auto doc = h.client->get(url);
  ASSERT_EQ(doc.status, 200);
  const auto& schema = doc.body["components"]["schemas"]["org.kubeflow.v1.PyTorchJob"];
  EXPECT_EQ(schema["x-kubernetes-group-version-kind"][0]["kind"], "PyTorchJob");
  EXPECT_TRUE(schema["properties"]["spec"]["properties"].contains("pytorchReplicaSpecs"));
}

TEST(ApiServerCrd, DeletingTheCrdStopsServingAndRemovesItsObjects) {
  CrdHarness h;
  h.client->post(k_jobs, job("a"));
  EXPECT_EQ(h.client->del(k_crds + "/pytorchjobs.kubeflow.org").status, 200);
  EXPECT_EQ(h.client->get("/apis/kubeflow.org/v1").status, 404);
  EXPECT_EQ(h.client->post(k_crds, small_crd()).status, 201);
  EXPECT_EQ(h.client->get(k_jobs + "/a").status, 404);
}

TEST(ApiServerCrd, ACrdWithAWrongNameIsInvalid) {
  Harness h;
  auto crd = small_crd();
  crd["metadata"]["name"] = "jobs.example.com";
  auto r = h.client->post(k_crds, crd);
  EXPECT_EQ(r.status, 422);
  EXPECT_EQ(r.body["message"],
            "CustomResourceDefinition.apiextensions.k8s.io \"jobs.example.com\" is invalid: "
            "metadata.name: Invalid value: \"jobs.example.com\": must be "
            "spec.names.plural+\".\"+spec.group");
}

}  // namespace
}  // namespace kpt::apiserver::testing
