// The embedded API server's request handling from any bytes: up to eight requests, each a
// request line, headers and a body, against a fresh store with a small CRD (status and scale
// subresources, list-map keys, int-or-string, a pattern) and a pod. This reaches body decoding
// (JSON and YAML), the merge, JSON and strategic merge patches and apply, query parameters,
// label and field selectors, Tables, watches and deletes. Every answer is a status in 200-599
// whose JSON body parses; a crash, an exception or a hang is a finding.
#include "apiserver/api_handler.hpp"
#include "tests/fuzz/fuzz_support.hpp"

#include <nlohmann/json.hpp>

using namespace kpt;
using json = nlohmann::json;

namespace {

constexpr std::string_view k_request_separator = "\n%%\n";
constexpr int k_max_requests = 8;

const json& widget_crd() {
  static const json crd = json::parse(R"({
    "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
    "metadata": {"name": "widgets.fuzz.example"},
    "spec": {"group": "fuzz.example", "scope": "Namespaced",
      "names": {"plural": "widgets", "singular": "widget", "kind": "Widget", "listKind": "WidgetList"},
      "versions": [{"name": "v1", "served": true, "storage": true,
        "subresources": {"status": {}, "scale": {"specReplicasPath": ".spec.replicas",
                                                 "statusReplicasPath": ".status.replicas"}},
        "schema": {"openAPIV3Schema": {"type": "object", "properties": {
          "spec": {"type": "object", "properties": {
            "replicas": {"type": "integer", "minimum": 0, "maximum": 100},
            "port": {"x-kubernetes-int-or-string": true},
            "name": {"type": "string", "pattern": "^[a-z]+$", "maxLength": 20},
            "items": {"type": "array", "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["name"],
                      "items": {"type": "object", "required": ["name"],
                                "properties": {"name": {"type": "string"}, "v": {"type": "number"}}}},
            "free": {"type": "object", "x-kubernetes-preserve-unknown-fields": true}}},
          "status": {"type": "object", "properties": {"replicas": {"type": "integer"}}}}}}}]}})");
  return crd;
}

/// "METHOD /path?a=b&c", then "name: value" header lines up to a blank line, then the body.
apiserver::HttpRequest parse_request(std::string_view text) {
  apiserver::HttpRequest req;
  auto [line, rest] = fuzz::split_once(text, "\n");
  auto [method, target] = fuzz::split_once(line, " ");
  req.method = std::string(method);
  auto [path, query] = fuzz::split_once(target, "?");
  req.path = std::string(path);
  while (!query.empty()) {
    auto [pair, more] = fuzz::split_once(query, "&");
    auto [key, value] = fuzz::split_once(pair, "=");
    req.query.emplace(std::string(key), std::string(value));
    query = more;
  }
  while (!rest.empty()) {
    auto [header, after] = fuzz::split_once(rest, "\n");
    rest = after;
    if (header.empty()) break;
    auto [name, value] = fuzz::split_once(header, ": ");
    std::string key(name);
    for (auto& c : key) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    req.headers[key] = std::string(value);
  }
  req.body = std::string(rest);
  return req;
}

void check_response(const apiserver::HttpResponse& r) {
  if (r.status < 200 || r.status > 599) fuzz::fail("an HTTP status out of range", std::to_string(r.status));
  if (r.stream) {
    // A watch or followed log: runs to its end at once because the server is stopping.
    const std::atomic<bool> stopping{true};
    std::size_t written = 0;
    r.stream([&written](std::string_view chunk) { return (written += chunk.size()) < (1u << 20); }, stopping);
    return;
  }
  if (r.content_type == "application/json" && json::parse(r.body, nullptr, false).is_discarded())
    fuzz::fail("a JSON response that does not parse", r.body);
}

apiserver::HttpRequest seed_pod() {
  apiserver::HttpRequest req;
  req.method = "POST";
  req.path = "/api/v1/namespaces/default/pods";
  req.headers["content-type"] = "application/json";
  req.body = R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","labels":{"app":"a"}},
                 "spec":{"containers":[{"name":"c","image":"i"}]}})";
  return req;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size > fuzz::k_max_input) return 0;
  apiserver::Store store;
  apiserver::ResourceRegistry registry;
  registry.apply_crd(widget_crd());
  apiserver::FaultInjector faults;
  apiserver::ApiHandler handler(store, registry, faults);
  handler.set_bookmark_interval(std::chrono::milliseconds{0});
  check_response(handler.handle(seed_pod()));

  std::string_view rest = fuzz::as_text(data, size);
  for (int i = 0; i < k_max_requests && !rest.empty(); ++i) {
    auto [one, more] = fuzz::split_once(rest, k_request_separator);
    rest = more;
    check_response(handler.handle(parse_request(one)));
  }
  return 0;
}
