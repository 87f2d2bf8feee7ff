#pragma once

// The fixture the controller's integration suites share: an embedded API server over HTTP with
// the PyTorchJob CRD, a client with fast retries, a kubelet played through the API, and a
// controller run in a thread.
#include "apiserver/api_server.hpp"
#include "controller/controller_main.hpp"
#include "controller/logger.hpp"
#include "controller/manifests.hpp"
#include "kube/http_transport.hpp"
#include "kube/rest_client.hpp"
#include "yaml/node_json.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <map>
#include <sstream>
#include <thread>

namespace kpt::controller::integration {

template <class F>
inline bool eventually(F done, int seconds = 60) {
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds{seconds};
  while (std::chrono::steady_clock::now() < until) {
    if (done()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds{20});
  }
  return done();
}

inline std::unique_ptr<kube::ApiClient> client_for(const apiserver::ApiServer& server) {
  kube::ResolvedConfig config;
  config.server = server.url();
  kube::RestOptions options;
  options.max_retries = 8;
  options.backoff_base = std::chrono::milliseconds{5};
  options.backoff_cap = std::chrono::milliseconds{100};
  options.retry_after_cap = std::chrono::seconds{1};
  return std::make_unique<kube::RestClient>(config, kube::make_curl_transport({}), options);
}

/// The faults both generations' suites reconcile under: 5% 500s, 5% 429s, every watch cut after
/// seven events, and history compacted so that a resumed watch must relist (410).
inline void inject_faults(apiserver::ApiServer& server) {
  apiserver::FaultPlan faults;
  faults.error_rate_500 = 0.05;
  faults.error_rate_429 = 0.05;
  faults.cut_watch_after_events = 7;
  faults.compact_history = true;
  server.set_fault_plan(faults);
}

inline nlohmann::json job(int i, const std::string& restart = "OnFailure") {
  const auto tmpl =
      nlohmann::json::parse(R"({"spec": {"containers": [{"name": "pytorch", "image": "img"}]}})");
  return {{"apiVersion", "kubeflow.org/v1"},
          {"kind", "PyTorchJob"},
          {"metadata", {{"name", "job" + std::to_string(i)}, {"namespace", "default"}}},
          {"spec",
           {{"pytorchReplicaSpecs",
             {{"Master", {{"replicas", 1}, {"restartPolicy", restart}, {"template", tmpl}}},
              {"Worker", {{"replicas", 2}, {"restartPolicy", restart}, {"template", tmpl}}}}}}}};
}

class ControllerIntegration : public ::testing::Test {
 protected:
  void SetUp() override {
    apiserver::ServerOptions options;
    options.tls = false;
    server = std::make_unique<apiserver::ApiServer>(options);
    ASSERT_TRUE(server->start(0).has_value());
    api = client_for(*server);
    auto crd = yaml::yaml_to_json("crd.yaml", crd_manifest());
    ASSERT_TRUE(crd.has_value());
    auto created = api->create(kube::resources::crds(), "", *crd);
    ASSERT_TRUE(created.has_value()) << created.error().message;
    ASSERT_TRUE(
        eventually([&] { return api->list(kube::resources::pytorchjobs(), "default", {}).has_value(); }));
  }
  void TearDown() override { server->stop(); }

  /// Plays the kubelet through the API: new pods run; running pods succeed once every pod of
  /// their job exists (training needs all ranks at the rendezvous).
  void kubelet_pass() {
    auto pods = api->list(kube::resources::pods(), "default", {});
    if (!pods) return;
    std::map<std::string, int> per_job;
    for (const auto& pod : pods->items)
      ++per_job[pod["metadata"]["labels"].value("training.kubeflow.org/job-name", "")];
    for (auto pod : pods->items) {
      const auto phase = pod.value("status", nlohmann::json::object()).value("phase", "");
      const bool gang_complete =
          per_job[pod["metadata"]["labels"].value("training.kubeflow.org/job-name", "")] == 3;
      if (phase == "Succeeded" || (phase == "Running" && !gang_complete)) continue;
      pod["status"] = {{"phase", phase.empty() || phase == "Pending" ? "Running" : "Succeeded"}};
      (void)api->update_status(kube::resources::pods(), "default", pod);
    }
  }
  bool all_succeeded(int jobs) {
    kubelet_pass();
    auto listed = api->list(kube::resources::pytorchjobs(), "default", {});
    if (!listed || static_cast<int>(listed->items.size()) != jobs) return false;
    for (const auto& j : listed->items) {
      const auto c = j.value("status", nlohmann::json::object()).value("conditions", nlohmann::json::array());
      if (c.empty() || c.back().value("type", "") != "Succeeded") return false;
    }
    return true;
  }
  std::size_t count(const kube::ResourceRef& ref) {
    auto listed = api->list(ref, "default", {});
    return listed ? listed->items.size() : 0;
  }

  std::unique_ptr<apiserver::ApiServer> server;
  std::unique_ptr<kube::ApiClient> api;
};

struct Running {
  Running(kube::ApiClient& client, ControllerConfig config) : log(out, LogFormat::text, clock) {
    thread =
        std::thread([this, &client, config] { code = run_controller(client, config, clock, log, stop); });
  }
  ~Running() {
    stop = true;
    thread.join();
  }
  util::RealClock clock;
  std::ostringstream out;
  Logger log;
  std::atomic<bool> stop{false};
  int code = -1;
  std::thread thread;
};

inline ControllerConfig config() {
  ControllerConfig c;
  c.metrics_addr = "0";
  c.namespace_ = "default";
  c.resync = std::chrono::seconds{5};
  return c;
}

}  // namespace kpt::controller::integration
