#include "controller/controller_main.hpp"
#include "controller/logger.hpp"
#include "tests/support/fake_api_client.hpp"

#include <gtest/gtest.h>
#include <httplib.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <sstream>
#include <thread>

namespace kpt::controller {
namespace {

using testing::FakeApiClient;

/// Polls `done` until it holds or 30 s pass (a bound for a hung controller, not a timing assertion).
template <class F>
bool eventually(F done) {
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds{30};
  while (std::chrono::steady_clock::now() < until) {
    if (done()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds{10});
  }
  return done();
}

nlohmann::json job(int i) {
  const auto tmpl =
      nlohmann::json::parse(R"({"spec": {"containers": [{"name": "pytorch", "image": "img"}]}})");
  return {
      {"apiVersion", "kubeflow.org/v1"},
      {"kind", "PyTorchJob"},
      {"metadata",
       {{"name", "job" + std::to_string(i)}, {"namespace", "ns"}, {"uid", "uid-job" + std::to_string(i)}}},
      {"spec",
       {{"pytorchReplicaSpecs",
         {{"Master", {{"replicas", 1}, {"template", tmpl}}},
          {"Worker", {{"replicas", 2}, {"template", tmpl}}}}}}}};
}

/// A controller run in a thread, stopped (as by SIGTERM) on destruction.
struct RunningController {
  RunningController(kube::ApiClient& api, ControllerConfig config) : log(out, LogFormat::json, clock) {
    thread = std::thread([this, &api, config] {
      code = run_controller(api, config, clock, log, stop, [this](int p) { port = p; });
    });
  }
  ~RunningController() { halt(); }
  void halt() {
    stop = true;
    if (thread.joinable()) thread.join();
  }
  util::RealClock clock;
  std::ostringstream out;
  Logger log;
  std::atomic<bool> stop{false};
  std::atomic<int> port{0};
  int code = -1;
  std::thread thread;
};

/// Plays the kubelet: every pod it sees goes Running, then Succeeded.
struct Kubelet {
  explicit Kubelet(FakeApiClient& api) : m_api(api), m_thread([this] { loop(); }) {}
  ~Kubelet() {
    m_stop = true;
    m_thread.join();
  }
  void loop() {
    while (!m_stop.load()) {
      const auto names = m_api.names("pods", "ns");
      for (const auto& name : names) {
        const auto pod = m_api.object("pods", "ns", name);
        if (pod.is_null()) continue;
        const auto phase = pod.value("status", nlohmann::json::object()).value("phase", "");
        // Training needs every rank at the rendezvous: succeed only once the whole gang exists.
        const auto job = pod["metadata"]["ownerReferences"][0]["name"].get<std::string>();
        const auto gang = std::count_if(names.begin(), names.end(),
                                        [&](const std::string& n) { return n.rfind(job + "-", 0) == 0; });
        if (phase.empty()) m_api.merge("pods", "ns", name, {{"status", {{"phase", "Running"}}}});
        if (phase == "Running" && gang == 3)
          m_api.merge("pods", "ns", name, {{"status", {{"phase", "Succeeded"}}}});
      }
      std::this_thread::sleep_for(std::chrono::milliseconds{5});
    }
  }
  FakeApiClient& m_api;
  std::atomic<bool> m_stop{false};
  std::thread m_thread;
};

bool all_succeeded(const FakeApiClient& api, int jobs) {
  for (int i = 0; i < jobs; ++i) {
    const auto j = api.object("pytorchjobs", "ns", "job" + std::to_string(i));
    const auto& conditions =
        j.value("status", nlohmann::json::object()).value("conditions", nlohmann::json::array());
    if (conditions.empty() || conditions.back().value("type", "") != "Succeeded") return false;
  }
  return true;
}

ControllerConfig quiet_config() {
  ControllerConfig c;
  c.metrics_addr = "0";
  c.reconciler.emit_events = false;
  return c;
}

/// No pod or service twice, none without its job as controller owner.
void expect_no_duplicates_or_orphans(const FakeApiClient& api, int jobs) {
  EXPECT_EQ(api.names("pods", "ns").size(), static_cast<std::size_t>(3 * jobs));
  EXPECT_EQ(api.names("services", "ns").size(), static_cast<std::size_t>(3 * jobs));
  for (const auto* res : {"pods", "services"}) {
    for (const auto& name : api.names(res, "ns")) {
      const auto owner = api.object(res, "ns", name)["metadata"]["ownerReferences"][0];
      EXPECT_EQ(name.rfind(owner["name"].get<std::string>() + "-", 0), 0u) << name;
    }
  }
}

TEST(ControllerLoop, EveryJobSucceedsDespiteServerErrorsCutWatchesAndExpiredVersions) {
  FakeApiClient api;
  constexpr int k_jobs = 20;
  for (int i = 0; i < k_jobs; ++i) api.put(kube::resources::pytorchjobs(), job(i));
  api.fail_next("create", 500, "InternalError", 5);
  api.fail_next("update_status", 429, "TooManyRequests", 3);
  api.fail_next("list", 503, "ServiceUnavailable", 2);
  api.fail_next("watch", 410, "Expired", 2);
  api.fail_next("watch-stream", 500, "InternalError", 2);
  Kubelet kubelet(api);
  RunningController c(api, quiet_config());
  EXPECT_TRUE(eventually([&] { return all_succeeded(api, k_jobs); }));
  c.halt();
  EXPECT_EQ(c.code, 0);
  expect_no_duplicates_or_orphans(api, k_jobs);
  // Successful creations are exactly one per Pod and Service; the 5 failed ones were retried.
  EXPECT_EQ(api.count("create", "pods") + api.count("create", "services"), 6 * k_jobs + 5);
}

TEST(ControllerLoop, AControllerStoppedHalfWayAndStartedAgainConverges) {
  FakeApiClient api;
  constexpr int k_jobs = 20;
  for (int i = 0; i < k_jobs; ++i) api.put(kube::resources::pytorchjobs(), job(i));
  {
    RunningController first(api, quiet_config());
    EXPECT_TRUE(eventually([&] { return api.names("pods", "ns").size() >= 10; }));
  }
  Kubelet kubelet(api);
  RunningController second(api, quiet_config());
  EXPECT_TRUE(eventually([&] { return all_succeeded(api, k_jobs); }));
  second.halt();
  expect_no_duplicates_or_orphans(api, k_jobs);
}

TEST(ControllerLoop, OnlyTheLeaderWritesAndTheStandbyTakesOverWhenItStops) {
  FakeApiClient api;
  auto config = quiet_config();
  config.leader_elect = true;
  config.lease.namespace_ = "ns";
  config.lease.lease_duration = std::chrono::seconds{3};
  config.lease.renew_deadline = std::chrono::seconds{2};
  config.lease.retry_period = std::chrono::seconds{1};
  auto config_a = config;
  config_a.lease.identity = "a";
  auto config_b = config;
  config_b.lease.identity = "b";
  auto leader = std::make_unique<RunningController>(api, config_a);
  ASSERT_TRUE(
      eventually([&] { return !api.object("leases", "ns", "kubectl-pytorch-controller").is_null(); }));
  RunningController standby(api, config_b);
  api.put(kube::resources::pytorchjobs(), job(0));
  ASSERT_TRUE(eventually([&] { return api.names("pods", "ns").size() == 3; }));
  EXPECT_EQ(api.object("leases", "ns", "kubectl-pytorch-controller")["spec"]["holderIdentity"], "a");
  leader->halt();  // a clean stop releases the lease
  EXPECT_EQ(leader->code, 0);
  api.put(kube::resources::pytorchjobs(), job(1));
  Kubelet kubelet(api);
  EXPECT_TRUE(eventually([&] { return all_succeeded(api, 2); }));
  EXPECT_EQ(api.object("leases", "ns", "kubectl-pytorch-controller")["spec"]["holderIdentity"], "b");
  expect_no_duplicates_or_orphans(api, 2);
}

TEST(ControllerLoop, ServesHealthReadinessAndPrometheusMetrics) {
  FakeApiClient api;
  api.put(kube::resources::pytorchjobs(), job(0));
  auto config = quiet_config();
  config.metrics_addr = "127.0.0.1:0";
  RunningController c(api, config);
  ASSERT_TRUE(eventually([&] { return c.port.load() != 0 && api.names("pods", "ns").size() == 3; }));
  httplib::Client http("127.0.0.1", c.port.load());
  const auto health = http.Get("/healthz");
  ASSERT_TRUE(health);
  EXPECT_EQ(health->status, 200);
  ASSERT_TRUE(eventually([&] {
    auto r = http.Get("/readyz");
    return r && r->status == 200;
  }));
  const auto metrics = http.Get("/metrics");
  ASSERT_TRUE(metrics);
  const auto& body = metrics->body;
  EXPECT_NE(
      body.find(
          "rest_client_requests_total{code=\"200\",method=\"POST\",resource=\"pods\",verb=\"create\"} 3"),
      std::string::npos);
  EXPECT_NE(
      body.find("controller_runtime_reconcile_time_seconds_bucket{controller=\"pytorchjob\",le=\"+Inf\"}"),
      std::string::npos);
  EXPECT_NE(body.find("controller_runtime_reconcile_total{controller=\"pytorchjob\",result=\"success\"}"),
            std::string::npos);
  EXPECT_NE(body.find("kpt_controller_jobs{kind=\"PyTorchJob\",state=\"Created\"} 1"), std::string::npos);
  EXPECT_NE(body.find("kpt_controller_jobs_created_total{job_namespace=\"ns\",kind=\"PyTorchJob\"} 1"),
            std::string::npos);
  EXPECT_NE(body.find("kpt_controller_kind_state{kind=\"pytorchjobs\",state=\"reconciling\"} 1"),
            std::string::npos);
  EXPECT_NE(body.find("\nprocess_resident_memory_bytes "), std::string::npos);
  EXPECT_NE(body.find("\nkpt_controller_build_info{"), std::string::npos);
}

/// The discovery documents of both CRDs, so that the controller reconciles both kinds.
void serve_both_kinds(FakeApiClient& api) {
  api.set_raw(kube::resources::pytorchjobs().group_version_path(),
              R"({"resources": [{"name": "pytorchjobs"}]})");
  api.set_raw(kube::resources::trainjobs().group_version_path(), R"({"resources": [{"name": "trainjobs"}]})");
}

std::string get_text(int port, const char* path, int& status) {
  httplib::Client http("127.0.0.1", port);
  const auto r = http.Get(path);
  status = r ? r->status : -1;
  return r ? r->body : std::string{};
}

TEST(ControllerLoop, AForbiddenTrainJobListNeverHoldsPyTorchJobsBackAndHealthSaysWhyAndTheFix) {
  FakeApiClient api;
  serve_both_kinds(api);
  api.forbid("list", "trainjobs");
  api.put(kube::resources::pytorchjobs(), job(0));
  auto config = quiet_config();
  config.metrics_addr = "127.0.0.1:0";
  RunningController c(api, config);
  ASSERT_TRUE(eventually([&] { return c.port.load() != 0 && api.names("pods", "ns").size() == 3; }));
  int status = 0;
  std::string text;
  ASSERT_TRUE(eventually([&] {
    text = get_text(c.port, "/readyz", status);
    return status == 200;
  }));
  EXPECT_EQ(
      text,
      "ok\npytorchjobs: reconciling\ntrainjobs: not reconciled (forbidden): the controller may not list "
      "trainjobs.trainer.kubeflow.org (trainjobs is forbidden: the fake's RBAC says no to list): grant it "
      "the rules "
      "of 'kubectl pytorch controller manifests --trainer', or run it with --kinds pytorchjobs\n");
  EXPECT_EQ(get_text(c.port, "/healthz", status), text);
  EXPECT_EQ(status, 200);
  EXPECT_NE(c.out.str().find(
                "trainjobs not reconciled: the controller may not list trainjobs.trainer.kubeflow.org"),
            std::string::npos);
  // A grant takes effect without a restart: the informer keeps trying.
  api.allow("list", "trainjobs");
  EXPECT_TRUE(eventually([&] {
    return get_text(c.port, "/readyz", status) == "ok\npytorchjobs: reconciling\ntrainjobs: reconciling\n";
  }));
}

TEST(ControllerLoop, EveryKindForbiddenFailsLiveness) {
  FakeApiClient api;
  api.forbid("list", "pytorchjobs");
  auto config = quiet_config();
  config.metrics_addr = "127.0.0.1:0";
  RunningController c(api, config);
  int status = 0;
  ASSERT_TRUE(eventually([&] {
    (void)get_text(c.port, "/healthz", status);
    return c.port.load() != 0 && status == 503;
  }));
  EXPECT_EQ(get_text(c.port, "/healthz", status).substr(0, 34), "failed: no kind can be reconciled\n");
}

TEST(ControllerLoop, TheGuardRecheckedPausesJobsWhenDeploymentsCannotBeReadAndResumesOnceTheyCan) {
  FakeApiClient api;
  api.put(kube::resources::pytorchjobs(), job(0));
  auto config = quiet_config();
  config.guard_period = std::chrono::milliseconds{50};
  RunningController c(api, config);
  ASSERT_TRUE(eventually([&] { return api.names("pods", "ns").size() == 3; }));
  api.forbid("list", "deployments");
  ASSERT_TRUE(eventually([&] {
    return c.out.str().find("pytorchjobs not reconciled: cannot tell whether") != std::string::npos;
  }));
  api.put(kube::resources::pytorchjobs(), job(1));
  // Fails closed: the new job waits while the guard cannot see (a window, not a timing assertion:
  // without the guard its pods come within milliseconds).
  std::this_thread::sleep_for(std::chrono::milliseconds{500});
  EXPECT_EQ(api.names("pods", "ns").size(), 3u);
  api.allow("list", "deployments");
  EXPECT_TRUE(eventually([&] { return api.names("pods", "ns").size() == 6; }));
}

TEST(ControllerLoop, ATrainingOperatorThatAppearsPausesPyTorchJobsAndOneScaledToZeroHandsThemOver) {
  FakeApiClient api;
  auto config = quiet_config();
  config.guard_period = std::chrono::milliseconds{50};
  RunningController c(api, config);
  ASSERT_TRUE(eventually([&] { return c.out.str().find("reconciling pytorchjobs") != std::string::npos; }));
  api.put(kube::resources::deployments(),
          {{"metadata", {{"name", "training-operator"}, {"namespace", "kubeflow"}}},
           {"spec", {{"replicas", 1}}}});
  ASSERT_TRUE(eventually([&] {
    return c.out.str().find("pytorchjobs not reconciled: a Training Operator runs") != std::string::npos;
  }));
  api.put(kube::resources::pytorchjobs(), job(0));
  std::this_thread::sleep_for(std::chrono::milliseconds{500});
  EXPECT_EQ(api.names("pods", "ns").size(), 0u);
  api.merge("deployments", "kubeflow", "training-operator", {{"spec", {{"replicas", 0}}}});
  EXPECT_TRUE(eventually([&] { return api.names("pods", "ns").size() == 3; }));
}

TEST(ControllerLoop, RefusesToStartBesideATrainingOperatorAndSaysHowToHandItsJobsOver) {
  FakeApiClient api;
  api.put(kube::resources::deployments(),
          {{"metadata",
            {{"name", "training-operator"},
             {"namespace", "kubeflow"},
             {"labels", {{"control-plane", "kubeflow-training-operator"}}}}}});
  util::RealClock clock;
  std::ostringstream out;
  Logger log(out, LogFormat::text, clock);
  std::atomic<bool> stop{false};
  EXPECT_EQ(run_controller(api, quiet_config(), clock, log, stop), 1);
  EXPECT_NE(out.str().find(
                "refusing to reconcile pytorchjobs: a Training Operator runs (Deployment "
                "'kubeflow/training-operator') and reconciles the PyTorchJobs of every namespace: scale it "
                "to 0 to hand its jobs to this controller (--migrate-from operator@vX.Y.Z keeps their env), "
                "or run this controller with -n in a namespace it does not watch"),
            std::string::npos)
      << out.str();
}

TEST(ControllerKinds, ByDefaultTheServedKindsAndATrainerOnlyClusterGetsTrainJobsOnly) {
  const ControllerKinds both;
  auto k = effective_kinds(both, true, true);
  ASSERT_TRUE(k);
  EXPECT_TRUE(k->pytorchjobs && k->trainjobs);
  k = effective_kinds(both, true, false);
  EXPECT_TRUE(k->pytorchjobs && !k->trainjobs);
  k = effective_kinds(both, false, true);  // waiting for a PyTorchJob list would stall TrainJobs
  EXPECT_TRUE(!k->pytorchjobs && k->trainjobs);
  k = effective_kinds(both, false, false);  // nothing yet: wait for the CRD `manifests` installs
  EXPECT_TRUE(k->pytorchjobs && !k->trainjobs);
}

TEST(ControllerKinds, AKindNamedWithKindsThatIsNotServedIsAnError) {
  auto asked = parse_kinds("trainjobs");
  ASSERT_TRUE(asked);
  auto k = effective_kinds(*asked, true, false);
  ASSERT_FALSE(k);
  EXPECT_EQ(k.error().message,
            "the API server does not serve trainjobs.trainer.kubeflow.org: install the Trainer CRDs (kubectl "
            "pytorch controller manifests --trainer) or leave trainjobs out of --kinds");
  asked = parse_kinds("pytorchjobs,trainjobs");
  k = effective_kinds(*asked, false, true);
  ASSERT_FALSE(k);
  EXPECT_EQ(
      k.error().message,
      "the API server does not serve pytorchjobs.kubeflow.org: install the CRD (kubectl pytorch controller "
      "manifests) or leave pytorchjobs out of --kinds");
  k = effective_kinds(*parse_kinds("pytorchjobs"), true, true);
  EXPECT_TRUE(k->pytorchjobs && !k->trainjobs);
  EXPECT_FALSE(parse_kinds("pytorchjob"));
}

TEST(ViaJobSet, NeedsTrainJobsAndAServedJobSetAndNamesTheFixOtherwise) {
  const ControllerKinds both;
  EXPECT_TRUE(check_via_jobset(both, true, true, "v0.12.0"));
  auto r = check_via_jobset(both, true, false, "v0.12.0");
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, ErrorCode::usage);
  EXPECT_EQ(
      r.error().message,
      "the API server does not serve jobsets.jobset.x-k8s.io, which --via-jobset creates: install JobSet "
      "(kubectl apply --server-side -f https://github.com/kubernetes-sigs/jobset/releases/download/"
      "v0.12.0/manifests.yaml) or run without --via-jobset to create the pods directly");
  r = check_via_jobset(both, false, true, "v0.12.0");
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().message,
            "the API server does not serve trainjobs.trainer.kubeflow.org, which --via-jobset reconciles: "
            "install the Trainer CRDs (kubectl pytorch controller manifests --trainer --via-jobset) or drop "
            "--via-jobset");
  r = check_via_jobset(*parse_kinds("pytorchjobs"), true, true, "v0.12.0");
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().message,
            "--via-jobset reconciles TrainJobs: add trainjobs to --kinds or drop --via-jobset");
}

}  // namespace
}  // namespace kpt::controller
