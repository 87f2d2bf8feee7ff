#include "kube/rest_client.hpp"

#include "kube/exec_credential.hpp"
#include "test_server.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <atomic>
#include <mutex>
#include <sstream>
#include <thread>

namespace kpt::kube {
namespace {

using nlohmann::json;
using testing::Pki;
using testing::TempDir;
using testing::TestServer;

constexpr const char* k_token = "s3cr3t-bearer-token-abcdef";
constexpr const char* k_exec_token = "exec-issued-token-987654";

/// Records every sleep instead of sleeping.
struct Sleeps {
  std::vector<std::chrono::milliseconds> waits;
  std::function<void(std::chrono::milliseconds)> fn() {
    return [this](std::chrono::milliseconds d) { waits.push_back(d); };
  }
};

std::unique_ptr<RestClient> plain_client(int port, Sleeps& sleeps, std::ostream* log = nullptr, int v = 0) {
  ResolvedConfig c;
  c.server = "http://127.0.0.1:" + std::to_string(port);
  c.token = k_token;
  c.auth = AuthKind::token;
  RestOptions o;
  o.sleep = sleeps.fn();
  o.log = log;
  o.verbosity = v;
  o.jitter_seed = 42;
  return std::make_unique<RestClient>(c, make_curl_transport({}), o);
}

std::string status_body(int code, const std::string& reason, const std::string& message,
                        json details = nullptr) {
  json s = {{"kind", "Status"},   {"apiVersion", "v1"}, {"status", "Failure"},
            {"message", message}, {"reason", reason},   {"code", code}};
  if (!details.is_null()) s["details"] = details;
  return s.dump();
}

TEST(RestClientTls, VerifiesTheServerAgainstTheCaAndUsesTlsServerName) {
  TempDir dir;
  const Pki pki = testing::make_pki(dir);
  TestServer server(std::make_unique<httplib::SSLServer>(pki.server_crt.c_str(), pki.server_key.c_str()));
  server.http().Get("/version", [](const httplib::Request&, httplib::Response& res) {
    res.set_content(R"({"gitVersion":"v1.32.0"})", "application/json");
  });
  server.start();
  Sleeps sleeps;
  auto client_with = [&](TransportOptions t) {
    ResolvedConfig c;
    c.server = "https://127.0.0.1:" + std::to_string(server.port());
    RestOptions o;
    o.sleep = sleeps.fn();
    o.max_retries = 0;
    return RestClient(c, make_curl_transport(std::move(t)), o);
  };
  {
    SCOPED_TRACE("no CA: the server is not trusted");
    auto r = client_with({}).get_raw("/version");
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().code, ErrorCode::http);
  }
  {
    SCOPED_TRACE("CA data, but the certificate names kube.test, not 127.0.0.1");
    TransportOptions t;
    t.ca_data = pki.ca_pem;
    auto r = client_with(t).get_raw("/version");
    ASSERT_FALSE(r);
  }
  {
    SCOPED_TRACE("CA data and tls-server-name");
    TransportOptions t;
    t.ca_data = pki.ca_pem;
    t.tls_server_name = "kube.test";
    auto r = client_with(t).get_raw("/version");
    ASSERT_TRUE(r) << r.error().message;
    EXPECT_EQ(*r, R"({"gitVersion":"v1.32.0"})");
  }
  {
    SCOPED_TRACE("CA file and tls-server-name");
    TransportOptions t;
    t.ca_file = pki.ca_crt;
    t.tls_server_name = "kube.test";
    EXPECT_TRUE(client_with(t).get_raw("/version"));
  }
  {
    SCOPED_TRACE("insecure");
    TransportOptions t;
    t.insecure_skip_tls_verify = true;
    EXPECT_TRUE(client_with(t).get_raw("/version"));
  }
}

TEST(RestClientTls, PresentsClientCertificatesFromFilesAndFromData) {
  TempDir dir;
  const Pki pki = testing::make_pki(dir);
  TestServer server(std::make_unique<httplib::SSLServer>(pki.server_crt.c_str(), pki.server_key.c_str(),
                                                         pki.ca_crt.c_str()));
  server.http().Get("/version", [](const httplib::Request&, httplib::Response& res) {
    res.set_content("{}", "application/json");
  });
  server.start();
  Sleeps sleeps;
  auto get_with = [&](TransportOptions t) {
    t.ca_data = pki.ca_pem;
    t.tls_server_name = "kube.test";
    ResolvedConfig c;
    c.server = "https://127.0.0.1:" + std::to_string(server.port());
    RestOptions o;
    o.sleep = sleeps.fn();
    o.max_retries = 0;
    return RestClient(c, make_curl_transport(std::move(t)), o).get_raw("/version");
  };
  EXPECT_FALSE(get_with({}));
  TransportOptions files;
  files.client_certificate_file = pki.client_crt;
  files.client_key_file = pki.client_key;
  EXPECT_TRUE(get_with(files));
  TransportOptions data;
  data.client_certificate_data = pki.client_crt_pem;
  data.client_key_data = pki.client_key_pem;
  auto r = get_with(data);
  EXPECT_TRUE(r) << (r ? "" : r.error().message);
}

TEST(RestClientRetries, TooManyRequestsIsRetriedAfterTheServersRetryAfter) {
  TestServer server(std::make_unique<httplib::Server>());
  std::atomic<int> calls{0};
  server.http().Get("/api/v1/namespaces/ns/pods/p", [&](const httplib::Request&, httplib::Response& res) {
    if (calls++ == 0) {
      res.status = 429;
      res.set_header("Retry-After", "3");
      res.set_content(status_body(429, "TooManyRequests", "slow down"), "application/json");
      return;
    }
    res.set_content(R"({"metadata":{"name":"p"}})", "application/json");
  });
  server.start();
  Sleeps sleeps;
  auto pod = plain_client(server.port(), sleeps)->get(resources::pods(), "ns", "p");
  ASSERT_TRUE(pod) << pod.error().message;
  EXPECT_EQ((*pod)["metadata"]["name"], "p");
  EXPECT_EQ(calls.load(), 2);
  EXPECT_EQ(sleeps.waits, (std::vector<std::chrono::milliseconds>{std::chrono::seconds(3)}));
}

TEST(RestClientRetries, ServerErrorsAreRetriedForGetsButNotForCreates) {
  TestServer server(std::make_unique<httplib::Server>());
  std::atomic<int> gets{0};
  std::atomic<int> posts{0};
  server.http().Get("/api/v1/namespaces/ns/pods/p", [&](const httplib::Request&, httplib::Response& res) {
    if (gets++ < 2) {
      res.status = 500;
      res.set_content(status_body(500, "InternalError", "etcd is sad"), "application/json");
      return;
    }
    res.set_content("{}", "application/json");
  });
  server.http().Post("/api/v1/namespaces/ns/pods", [&](const httplib::Request&, httplib::Response& res) {
    ++posts;
    res.status = 500;
    res.set_content(status_body(500, "InternalError", "etcd is sad"), "application/json");
  });
  server.start();
  Sleeps sleeps;
  auto client = plain_client(server.port(), sleeps);
  EXPECT_TRUE(client->get(resources::pods(), "ns", "p"));
  EXPECT_EQ(gets.load(), 3);
  ASSERT_EQ(sleeps.waits.size(), 2u);
  EXPECT_LE(sleeps.waits[0].count(), 200);  // backoff grows, with jitter in [50%, 100%]
  EXPECT_GE(sleeps.waits[1].count(), 200);
  auto created = client->create(resources::pods(), "ns", json{{"metadata", {{"name", "p"}}}});
  ASSERT_FALSE(created);
  EXPECT_EQ(posts.load(), 1);
  EXPECT_EQ(created.error().http_status, 500);
  EXPECT_EQ(created.error().message, "etcd is sad");
}

TEST(RestClientRetries, ConnectionRefusedIsRetriedEvenForCreates) {
  Sleeps sleeps;
  ResolvedConfig c;
  c.server = "http://127.0.0.1:1";
  RestOptions o;
  o.sleep = sleeps.fn();
  o.max_retries = 2;
  RestClient client(c, make_curl_transport({}), o);
  auto r = client.create(resources::pods(), "ns", json::object());
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, ErrorCode::http);
  EXPECT_EQ(r.error().message,
            "POST http://127.0.0.1:1/api/v1/namespaces/ns/pods: Couldn't connect to server");
  EXPECT_EQ(sleeps.waits.size(), 2u);
}

TEST(RestClientErrors, StatusErrorsBecomeMessagesAUserUnderstands) {
  TestServer server(std::make_unique<httplib::Server>());
  server.http().Get(
      R"(/apis/kubeflow.org/v1/namespaces/ns/pytorchjobs/(\w+))",
      [](const httplib::Request& req, httplib::Response& res) {
        const std::string name = req.matches[1];
        if (name == "missing") {
          res.status = 404;
          res.set_content(
              status_body(404, "NotFound", "pytorchjobs.kubeflow.org \"missing\" not found",
                          {{"name", "missing"}, {"group", "kubeflow.org"}, {"kind", "pytorchjobs"}}),
              "application/json");
        } else if (name == "secret") {
          res.status = 403;
          res.set_content(
              status_body(
                  403, "Forbidden",
                  "pytorchjobs.kubeflow.org \"secret\" is forbidden: User \"bob\" cannot get resource "
                  "\"pytorchjobs\" in API group \"kubeflow.org\" in the namespace \"ns\""),
              "application/json");
        } else if (name == "invalid") {
          res.status = 422;
          res.set_content(status_body(422, "Invalid", "PyTorchJob.kubeflow.org \"invalid\" is invalid",
                                      {{"causes",
                                        {{{"reason", "FieldValueInvalid"},
                                          {"message", "Invalid value: -1"},
                                          {"field", "spec.pytorchReplicaSpecs.Worker.replicas"}}}}}),
                          "application/json");
        } else {
          res.status = 404;
          res.set_content("404 page not found", "text/plain");
        }
      });
  server.start();
  Sleeps sleeps;
  auto client = plain_client(server.port(), sleeps);
  struct Case {
    const char* name;
    int status;
    const char* reason;
    const char* message;
  } cases[] = {
      {"missing", 404, "NotFound", "pytorchjobs.kubeflow.org \"missing\" not found"},
      {"secret", 403, "Forbidden",
       "pytorchjobs.kubeflow.org \"secret\" is forbidden: User \"bob\" cannot get resource \"pytorchjobs\" "
       "in API "
       "group \"kubeflow.org\" in the namespace \"ns\""},
      {"invalid", 422, "Invalid",
       "PyTorchJob.kubeflow.org \"invalid\" is invalid: spec.pytorchReplicaSpecs.Worker.replicas: Invalid "
       "value: -1"},
      {"plain", 404, "NotFound", "the server could not find the requested resource"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    auto r = client->get(resources::pytorchjobs(), "ns", c.name);
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().code, ErrorCode::api);
    EXPECT_EQ(r.error().http_status, c.status);
    EXPECT_EQ(r.error().reason, c.reason);
    EXPECT_EQ(r.error().message, c.message);
  }
  auto invalid = client->get(resources::pytorchjobs(), "ns", "invalid");
  ASSERT_FALSE(invalid);
  ASSERT_EQ(invalid.error().details.causes.size(), 1u);
  EXPECT_EQ(invalid.error().details.causes[0].reason, "FieldValueInvalid");
  EXPECT_EQ(invalid.error().details.causes[0].field, "spec.pytorchReplicaSpecs.Worker.replicas");
  EXPECT_EQ(invalid.error().details.causes[0].message, "Invalid value: -1");
  EXPECT_TRUE(sleeps.waits.empty());
}

TEST(RestClientList, FollowsContinueTokensAcrossPages) {
  TestServer server(std::make_unique<httplib::Server>());
  std::vector<std::string> queries;
  std::mutex m;
  server.http().Get("/api/v1/namespaces/ns/pods", [&](const httplib::Request& req, httplib::Response& res) {
    {
      std::lock_guard lock(m);
      queries.push_back(req.get_param_value("continue") + "|" + req.get_param_value("labelSelector") + "|" +
                        req.get_param_value("limit"));
    }
    const std::string cont = req.get_param_value("continue");
    const int page = cont.empty() ? 0 : std::stoi(cont);
    json body = {{"kind", "PodList"}, {"metadata", {{"resourceVersion", "77"}}}, {"items", json::array()}};
    body["items"].push_back({{"metadata", {{"name", "p" + std::to_string(page)}}}});
    if (page < 2) body["metadata"]["continue"] = std::to_string(page + 1);
    res.set_content(body.dump(), "application/json");
  });
  server.start();
  Sleeps sleeps;
  auto client = plain_client(server.port(), sleeps);
  ListOptions opts;
  opts.label_selector = "training.kubeflow.org/job-name=a,x in (b,c)";
  auto all = client->list(resources::pods(), "ns", opts);
  ASSERT_TRUE(all) << all.error().message;
  ASSERT_EQ(all->items.size(), 3u);
  EXPECT_EQ(all->items[2]["metadata"]["name"], "p2");
  EXPECT_EQ(all->resource_version, "77");
  EXPECT_EQ(queries, (std::vector<std::string>{"|training.kubeflow.org/job-name=a,x in (b,c)|500",
                                               "1|training.kubeflow.org/job-name=a,x in (b,c)|500",
                                               "2|training.kubeflow.org/job-name=a,x in (b,c)|500"}));
  opts.limit = 1;
  auto one = client->list(resources::pods(), "ns", opts);
  ASSERT_TRUE(one);
  EXPECT_EQ(one->items.size(), 1u);
  EXPECT_EQ(one->continue_token, "1");
}

TEST(RestClientWatch, DeliversEventsAndBookmarksThenReportsGoneAs410) {
  TestServer server(std::make_unique<httplib::Server>());
  std::string query;
  server.http().Get("/apis/kubeflow.org/v1/namespaces/ns/pytorchjobs", [&](const httplib::Request& req,
                                                                           httplib::Response& res) {
    query = "watch=" + req.get_param_value("watch") + " rv=" + req.get_param_value("resourceVersion") +
            " bookmarks=" + req.get_param_value("allowWatchBookmarks");
    res.set_chunked_content_provider("application/json", [](size_t, httplib::DataSink& sink) {
      const std::string events =
          R"({"type":"ADDED","object":{"metadata":{"name":"a","resourceVersion":"11"}}})"
          "\n"
          R"({"type":"BOOKMARK","object":{"metadata":{"resourceVersion":"12"}}})"
          "\n"
          R"({"type":"MODIFIED","object":{"metadata":{"name":"a","resourceVersion":"13"}}})"
          "\n"
          R"J({"type":"ERROR","object":{"kind":"Status","apiVersion":"v1","status":"Failure","message":"too old resource version: 10 (13)","reason":"Expired","code":410}})J"
          "\n";
      // Split mid-line to prove events are reassembled across chunks.
      sink.write(events.data(), 30);
      sink.write(events.data() + 30, events.size() - 30);
      sink.done();
      return true;
    });
  });
  server.start();
  Sleeps sleeps;
  auto client = plain_client(server.port(), sleeps);
  std::vector<std::string> seen;
  ListOptions opts;
  opts.resource_version = "10";
  auto r = client->watch(
      resources::pytorchjobs(), "ns", opts,
      [&](const WatchEvent& ev) {
        seen.push_back(std::to_string(static_cast<int>(ev.type)) + ":" +
                       ev.object["metadata"].value("resourceVersion", ""));
        return true;
      },
      nullptr);
  ASSERT_FALSE(r);
  EXPECT_TRUE(is_gone(r.error()));
  EXPECT_EQ(r.error().reason, "Expired");
  EXPECT_EQ(r.error().message, "too old resource version: 10 (13)");
  EXPECT_EQ(seen, (std::vector<std::string>{"0:11", "3:12", "1:13"}));
  EXPECT_EQ(query, "watch=1 rv=10 bookmarks=true");
}

TEST(RestClientWatch, StopsWhenTheCallbackSaysSo) {
  TestServer server(std::make_unique<httplib::Server>());
  server.http().Get("/api/v1/namespaces/ns/pods", [&](const httplib::Request&, httplib::Response& res) {
    res.set_chunked_content_provider("application/json", [](size_t, httplib::DataSink& sink) {
      const std::string ev = R"({"type":"ADDED","object":{"metadata":{"name":"a"}}})"
                             "\n";
      return sink.write(ev.data(), ev.size());  // endless stream
    });
  });
  server.start();
  Sleeps sleeps;
  int n = 0;
  auto r = plain_client(server.port(), sleeps)
               ->watch(
                   resources::pods(), "ns", {}, [&](const WatchEvent&) { return ++n < 5; }, nullptr);
  EXPECT_TRUE(r);
  EXPECT_EQ(n, 5);
}

TEST(RestClientWatch, CancellationEndsAnIdleStream) {
  std::atomic<bool> finished{false};
  TestServer server(std::make_unique<httplib::Server>());
  server.http().Get("/api/v1/namespaces/ns/pods/p/log", [&](const httplib::Request&, httplib::Response& res) {
    res.set_chunked_content_provider("text/plain", [&](size_t offset, httplib::DataSink& sink) {
      if (offset == 0) return sink.write("line 1\n", 7);
      std::this_thread::sleep_for(std::chrono::milliseconds(20));  // an idle follow: nothing to send
      return !finished.load();  // the server thread ends once the test is done
    });
  });
  server.start();
  Sleeps sleeps;
  std::atomic<bool> cancel{false};
  std::string got;
  auto r = plain_client(server.port(), sleeps)
               ->stream_raw(
                   "/api/v1/namespaces/ns/pods/p/log?follow=true",
                   [&](std::string_view data) {
                     got.append(data);
                     cancel = true;  // e.g. Ctrl-C after the first line
                     return true;
                   },
                   &cancel);
  finished = true;
  EXPECT_TRUE(r);
  EXPECT_EQ(got, "line 1\n");
  EXPECT_TRUE(sleeps.waits.empty());
}

TEST(RestClientHttp, AsksForGzipAndCollectsWarnings) {
  TestServer server(std::make_unique<httplib::Server>());
  std::string accept_encoding;
  server.http().Get("/apis/kubeflow.org/v1", [&](const httplib::Request& req, httplib::Response& res) {
    accept_encoding = req.get_header_value("Accept-Encoding");
    res.set_header("Warning", "299 - \"kubeflow.org/v1 PyTorchJob is \\\"deprecated\\\"\"");
    res.set_content(json{{"kind", "APIResourceList"}, {"padding", std::string(4096, 'x')}}.dump(),
                    "application/json");
  });
  server.start();
  Sleeps sleeps;
  auto client = plain_client(server.port(), sleeps);
  auto r = client->get_raw("/apis/kubeflow.org/v1");
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_NE(accept_encoding.find("gzip"), std::string::npos);
  EXPECT_EQ(json::parse(*r)["padding"].get<std::string>().size(), 4096u);
  EXPECT_EQ(client->take_warnings(),
            (std::vector<std::string>{"kubeflow.org/v1 PyTorchJob is \"deprecated\""}));
  EXPECT_TRUE(client->take_warnings().empty());
}

TEST(RestClientHttp, WritesCarryPatchTypesFieldManagerDryRunAndValidation) {
  TestServer server(std::make_unique<httplib::Server>());
  std::vector<std::string> seen;
  auto record = [&](const httplib::Request& req, httplib::Response& res) {
    seen.push_back(req.method + " " + req.path + "?" + req.get_param_value("dryRun") + "," +
                   req.get_param_value("fieldValidation") + "," + req.get_param_value("fieldManager") + "," +
                   req.get_param_value("force") + " " + req.get_header_value("Content-Type"));
    res.set_content(R"({"metadata":{"name":"j"}})", "application/json");
  };
  server.http().Patch(R"(/apis/kubeflow.org/v1/namespaces/ns/pytorchjobs/j)", record);
  server.http().Put(R"(/apis/kubeflow.org/v1/namespaces/ns/pytorchjobs/j(/status)?)", record);
  server.http().Delete(R"(/apis/kubeflow.org/v1/namespaces/ns/pytorchjobs/j)",
                       [&](const httplib::Request& req, httplib::Response& res) {
                         seen.push_back("DELETE " + req.body);
                         res.set_content(R"({"kind":"Status","status":"Success"})", "application/json");
                       });
  server.start();
  Sleeps sleeps;
  auto c = plain_client(server.port(), sleeps);
  const auto job = resources::pytorchjobs();
  WriteOptions apply;
  apply.force = true;
  apply.dry_run = true;
  apply.field_validation = "Strict";
  EXPECT_TRUE(c->patch(job, "ns", "j", PatchType::apply, "kind: PyTorchJob\n", apply));
  EXPECT_TRUE(c->patch(job, "ns", "j", PatchType::merge, "{}"));
  EXPECT_TRUE(c->patch(job, "ns", "j", PatchType::json, "[]"));
  EXPECT_TRUE(c->update(job, "ns", json{{"metadata", {{"name", "j"}, {"resourceVersion", "5"}}}}));
  EXPECT_TRUE(c->update_status(job, "ns", json{{"metadata", {{"name", "j"}}}, {"status", json::object()}}));
  DeleteOptions del;
  del.propagation_policy = "Foreground";
  EXPECT_TRUE(c->remove(job, "ns", "j", del));
  EXPECT_EQ(seen,
            (std::vector<std::string>{
                "PATCH /apis/kubeflow.org/v1/namespaces/ns/pytorchjobs/j?All,Strict,kubectl-pytorch,true "
                "application/apply-patch+yaml",
                "PATCH /apis/kubeflow.org/v1/namespaces/ns/pytorchjobs/j?,,, application/merge-patch+json",
                "PATCH /apis/kubeflow.org/v1/namespaces/ns/pytorchjobs/j?,,, application/json-patch+json",
                "PUT /apis/kubeflow.org/v1/namespaces/ns/pytorchjobs/j?,,, application/json",
                "PUT /apis/kubeflow.org/v1/namespaces/ns/pytorchjobs/j/status?,,, application/json",
                R"(DELETE {"apiVersion":"v1","kind":"DeleteOptions","propagationPolicy":"Foreground"})"}));
}

/// An exec plugin stand-in that issues a new token per run.
class FakeRunner final : public CommandRunner {
 public:
  Expected<CommandResult> run(const std::string&, const std::vector<std::string>&,
                              const std::map<std::string, std::string>& env, bool) override {
    ++runs;
    last_exec_info = env.at("KUBERNETES_EXEC_INFO");
    json out = {{"apiVersion", "client.authentication.k8s.io/v1"},
                {"kind", "ExecCredential"},
                {"status", {{"token", std::string(k_exec_token) + std::to_string(runs)}}}};
    return CommandResult{0, out.dump()};
  }
  int runs = 0;
  std::string last_exec_info;
};

TEST(RestClientExec, ReRunsThePluginOnceOn401AndNeverLogsSecrets) {
  TestServer server(std::make_unique<httplib::Server>());
  std::vector<std::string> auth_seen;
  server.http().Get("/api/v1/namespaces/ns/pods/p", [&](const httplib::Request& req, httplib::Response& res) {
    auth_seen.push_back(req.get_header_value("Authorization"));
    if (req.get_header_value("Authorization") != "Bearer " + std::string(k_exec_token) + "2") {
      res.status = 401;
      res.set_content(status_body(401, "Unauthorized", "Unauthorized"), "application/json");
      return;
    }
    res.set_content(
        R"({"metadata":{"name":"p"},"data":{"echo":")" + req.get_header_value("Authorization") + "\"}}",
        "application/json");
  });
  server.start();
  ResolvedConfig c;
  c.server = "http://127.0.0.1:" + std::to_string(server.port());
  c.exec = ExecConfig{"cred", {}, {}, "client.authentication.k8s.io/v1", "", true, "Never"};
  c.auth = AuthKind::exec;
  c.client_key_data = "-----BEGIN PRIVATE KEY-----\nclient-key-material-xyz\n-----END PRIVATE KEY-----\n";
  FakeRunner runner;
  Sleeps sleeps;
  std::ostringstream log;
  RestOptions o;
  o.sleep = sleeps.fn();
  o.command_runner = &runner;
  o.log = &log;
  o.verbosity = 8;
  RestClient client(c, make_curl_transport({}), o);
  auto pod = client.get(resources::pods(), "ns", "p");
  ASSERT_TRUE(pod) << pod.error().message;
  EXPECT_EQ(runner.runs, 2);
  EXPECT_EQ(auth_seen.size(), 2u);
  EXPECT_EQ(json::parse(runner.last_exec_info)["spec"]["cluster"]["server"], c.server);
  EXPECT_EQ(json::parse(runner.last_exec_info)["spec"]["interactive"], false);
  // A second 401 for the same credential is not retried again.
  const std::string text = log.str();
  EXPECT_NE(text.find("GET " + c.server + "/api/v1/namespaces/ns/pods/p 200 OK"), std::string::npos);
  EXPECT_NE(text.find("Request Header: \"Authorization: REDACTED\""), std::string::npos);
  EXPECT_EQ(text.find(k_exec_token), std::string::npos) << text;
  EXPECT_EQ(text.find("client-key-material"), std::string::npos);
}

TEST(RestClientLogging, NoSecretAppearsAtVerbosity8OnAnyPath) {
  TestServer server(std::make_unique<httplib::Server>());
  // The server echoes the Authorization header in bodies, headers and errors: the worst case.
  auto echo = [](const httplib::Request& req, httplib::Response& res) {
    const std::string auth = req.get_header_value("Authorization");
    res.set_header("X-Echo", auth);
    res.set_header("Warning", "299 - \"saw " + auth + "\"");
    if (req.path.find("fail") != std::string::npos) {
      res.status = 403;
      res.set_content(status_body(403, "Forbidden", "token " + auth + " may not"), "application/json");
      return;
    }
    res.set_content(json{{"metadata", {{"name", auth}}}, {"items", json::array()}}.dump(),
                    "application/json");
  };
  server.http().Get(R"(/.*)", echo);
  server.http().Post(R"(/.*)", echo);
  server.http().Patch(R"(/.*)", echo);
  server.start();
  Sleeps sleeps;
  std::ostringstream log;
  auto client = plain_client(server.port(), sleeps, &log, 8);
  const auto pods = resources::pods();
  (void)client->get(pods, "ns", "p");
  (void)client->list(pods, "ns", {});
  (void)client->get(pods, "ns", "fail");
  (void)client->create(pods, "ns", json{{"spec", {{"token", "not-the-secret"}}}});
  (void)client->patch(pods, "ns", "p", PatchType::merge, "{}");
  (void)client->post_raw("/apis/authorization.k8s.io/v1/selfsubjectaccessreviews", json::object());
  auto failed = client->get(pods, "ns", "fail");
  ASSERT_FALSE(failed);
  EXPECT_EQ(failed.error().message.find(k_token), std::string::npos);
  const std::string text = log.str();
  EXPECT_NE(text.find("Response Body:"), std::string::npos);
  EXPECT_NE(text.find("Request Body:"), std::string::npos);
  EXPECT_EQ(text.find(k_token), std::string::npos) << text;
}

}  // namespace
}  // namespace kpt::kube
