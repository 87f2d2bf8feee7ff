// Every endpoint and body type with values nested as deep as the server accepts JSON
// (k_max_json_depth levels in all), strategic merge first: a 42 KB strategic merge patch 7,000
// deep once overflowed the stack of the process the server shares with the controller and node.
// Each request gets an answer (any status under 500, with a JSON body) and the server stays up.
#include "apiserver/api_server.hpp"
#include "apiserver/body_limits.hpp"
#include "client.hpp"
#include "raw_client.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <chrono>
#include <functional>
#include <iostream>
#include <string>
#include <vector>

namespace kpt::apiserver::testing {
namespace {

using json = nlohmann::json;
using namespace std::chrono_literals;

const std::string k_maps = "/api/v1/namespaces/default/configmaps";
const std::string k_pods = "/api/v1/namespaces/default/pods";
const std::string k_widgets = "/apis/sweep.example/v1/namespaces/default/widgets";

/// `levels` maps nested as {"a":{"a":...{}}} (levels = 1 is "{}").
std::string nested_maps(std::size_t levels) {
  std::string out;
  out.reserve(levels * 6);
  for (std::size_t i = 1; i < levels; ++i) out += "{\"a\":";
  out += "{}";
  out.append(levels - 1, '}');
  return out;
}

/// `levels` arrays nested as [[...[]]].
std::string nested_lists(std::size_t levels) { return std::string(levels, '[') + std::string(levels, ']'); }

/// Maps and lists in turn: {"a":[{"a":[...]}]}.
std::string nested_mixed(std::size_t levels) {
  std::string open;
  std::string close;
  for (std::size_t i = 1; i < levels; ++i) {
    open += i % 2 == 1 ? "{\"a\":" : "[";
    close.insert(0, i % 2 == 1 ? "}" : "]");
  }
  return open + "{}" + close;
}

json widget_crd() {
  return json::parse(R"({
    "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
    "metadata": {"name": "widgets.sweep.example"},
    "spec": {"group": "sweep.example", "scope": "Namespaced",
      "names": {"plural": "widgets", "singular": "widget", "kind": "Widget", "listKind": "WidgetList"},
      "versions": [{"name": "v1", "served": true, "storage": true, "subresources": {"status": {}},
        "schema": {"openAPIV3Schema": {"type": "object", "properties": {
          "spec": {"type": "object", "x-kubernetes-preserve-unknown-fields": true},
          "status": {"type": "object", "x-kubernetes-preserve-unknown-fields": true}}}}}]}})");
}

struct Sent {
  std::string method;
  std::string path;
  std::string content_type;
  std::string body;
};

/// Sends one request over TLS and returns the status and raw answer.
std::pair<int, std::string> send(int port, const Sent& s) {
  RawConnection c(port, true);
  std::string head = s.method + " " + s.path + " HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " +
                     std::string(k_test_token) + "\r\nConnection: close\r\n";
  if (!s.content_type.empty()) head += "Content-Type: " + s.content_type + "\r\n";
  if (s.method != "GET") head += "Content-Length: " + std::to_string(s.body.size()) + "\r\n";
  c.send(head + "\r\n" + s.body);
  const auto reply = c.receive(60s);
  return {status_of(reply), reply};
}

/// A JSON body whose value at `where` ("data", "spec", ...) nests `inner` levels, `inner` chosen
/// so that the whole body nests exactly k_max_json_depth levels.
std::string object_with(const std::string& name, const std::string& where,
                        const std::function<std::string(std::size_t)>& nest, std::size_t depth_used) {
  return R"({"apiVersion":"v1","metadata":{"name":")" + name + "\"},\"" + where +
         "\":" + nest(k_max_json_depth - depth_used) + "}";
}

TEST(ApiServerDepthSweep, EveryEndpointAndBodyTypeNestedToTheLimitIsAnsweredAndTheServerLives) {
  // The server's own request-thread stack: KPT_SWEEP_STACK_KIB measures what the walks need.
  ServerOptions options;
  if (const char* stack = std::getenv("KPT_SWEEP_STACK_KIB")) options.stack_bytes = std::stoul(stack) * 1024;
  Harness h(options);
  const int port = h.server->port();
  ASSERT_EQ(h.client->post("/apis/apiextensions.k8s.io/v1/customresourcedefinitions", widget_crd()).status,
            201);
  ASSERT_EQ(h.client->post(k_maps, json{{"metadata", {{"name", "m"}}}, {"data", {{"k", "v"}}}}).status, 201);
  ASSERT_EQ(h.client->post(k_pods, pod("p")).status, 201);
  ASSERT_EQ(h.client
                ->post(k_widgets, json{{"apiVersion", "sweep.example/v1"},
                                       {"kind", "Widget"},
                                       {"metadata", {{"name", "w"}}},
                                       {"spec", json::object()}})
                .status,
            201);
  const std::vector<std::pair<std::string, std::function<std::string(std::size_t)>>> shapes = {
      {"maps", nested_maps}, {"lists", nested_lists}, {"mixed", nested_mixed}};
  int sent = 0;
  for (const auto& [shape, nest] : shapes) {
    // A value nested under one field of an object: the object and that field's level are 1.
    const auto deep = [&](std::size_t used) { return nest(k_max_json_depth - used); };
    const std::string strategic = "{\"data\":" + deep(1) + "}";
    const std::vector<std::pair<std::string, Sent>> requests = {
        // Strategic merge first: the patch that crashed the server, on every kind that takes one.
        {"strategic patch of a ConfigMap",
         {"PATCH", k_maps + "/m", "application/strategic-merge-patch+json", strategic}},
        {"strategic patch of a Pod's spec",
         {"PATCH", k_pods + "/p", "application/strategic-merge-patch+json", "{\"spec\":" + deep(1) + "}"}},
        {"strategic patch inside a merged list",
         {"PATCH", k_pods + "/p", "application/strategic-merge-patch+json",
          R"({"spec":{"containers":[{"name":"main","x":)" + deep(4) + "}]}}"}},
        {"strategic patch of a custom object",
         {"PATCH", k_widgets + "/w", "application/strategic-merge-patch+json", "{\"spec\":" + deep(1) + "}"}},
        {"merge patch", {"PATCH", k_maps + "/m", "application/merge-patch+json", strategic}},
        {"merge patch of a custom object",
         {"PATCH", k_widgets + "/w", "application/merge-patch+json", "{\"spec\":" + deep(1) + "}"}},
        {"JSON patch",
         {"PATCH", k_maps + "/m", "application/json-patch+json",
          R"([{"op":"add","path":"/data/x","value":)" + deep(2) + "}]"}},
        {"JSON patch of a custom object",
         {"PATCH", k_widgets + "/w", "application/json-patch+json",
          R"([{"op":"add","path":"/spec/x","value":)" + deep(2) + "}]"}},
        {"apply",
         {"PATCH", k_maps + "/m?fieldManager=sweep", "application/apply-patch+yaml",
          R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"m"},"data":)" + deep(1) + "}"}},
        {"apply of a custom object",
         {"PATCH", k_widgets + "/w?fieldManager=sweep", "application/apply-patch+yaml",
          R"({"apiVersion":"sweep.example/v1","kind":"Widget","metadata":{"name":"w"},"spec":)" + deep(1) +
              "}"}},
        {"create", {"POST", k_maps, "application/json", object_with("c-" + shape, "data", nest, 1)}},
        {"create a pod", {"POST", k_pods, "application/json", object_with("p-" + shape, "spec", nest, 1)}},
        {"create a custom object",
         {"POST", k_widgets, "application/json",
          R"({"apiVersion":"sweep.example/v1","kind":"Widget","metadata":{"name":"w-)" + shape +
              R"("},"spec":)" + deep(1) + "}"}},
        {"create as YAML", {"POST", k_maps, "application/yaml", object_with("y-" + shape, "data", nest, 1)}},
        {"update", {"PUT", k_maps + "/m", "application/json", object_with("m", "data", nest, 1)}},
        {"update a custom object's status",
         {"PUT", k_widgets + "/w/status", "application/json",
          R"({"apiVersion":"sweep.example/v1","kind":"Widget","metadata":{"name":"w"},"status":)" + deep(1) +
              "}"}},
        {"delete with options", {"DELETE", k_maps + "/none", "application/json", "{\"x\":" + deep(1) + "}"}},
        {"binding", {"POST", k_pods + "/p/binding", "application/json", "{\"target\":" + deep(1) + "}"}},
        {"access review",
         {"POST", "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews", "application/json",
          "{\"spec\":" + deep(1) + "}"}},
        {"protobuf", {"POST", k_maps, "application/vnd.kubernetes.protobuf", std::string(20000, '\x0a')}},
        // What was stored deep is read back: as JSON, a list, a Table, and a watch's first events.
        {"get", {"GET", k_widgets + "/w-" + shape, "", ""}},
        {"list", {"GET", k_widgets, "", ""}},
        {"watch", {"GET", k_widgets + "?watch=1&timeoutSeconds=1", "", ""}},
    };
    for (const auto& [name, request] : requests) {
      SCOPED_TRACE(shape + ": " + name);
      const auto [status, reply] = send(port, request);
      ++sent;
      EXPECT_GT(status, 0) << "no answer";
      EXPECT_LT(status, 500) << reply.substr(0, 400);
      ASSERT_EQ(h.client->get("/healthz").status, 200) << "the server is gone";
    }
  }
  // One level more is refused before anything walks it.
  const auto [status, reply] = send(port, {"PATCH", k_maps + "/m", "application/strategic-merge-patch+json",
                                           "{\"data\":" + nested_maps(k_max_json_depth) + "}"});
  EXPECT_EQ(status, 400) << reply.substr(0, 300);
  EXPECT_EQ(h.client->get(k_maps + "/m").status, 200);
  std::cout << sent << " requests nested " << k_max_json_depth
            << " levels deep, the server alive after each\n";
}

}  // namespace
}  // namespace kpt::apiserver::testing
