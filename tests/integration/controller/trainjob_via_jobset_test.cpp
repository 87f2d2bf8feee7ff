// `controller --via-jobset` against the embedded API server with a JobSet CRD of our own
// (testdata/controller/jobset-crd.yaml): the controller applies each TrainJob's JobSet, the test
// plays the JobSet controller (its status: Completed, Failed, suspended) and checks the TrainJobs'
// conditions, the writes each job cost, and that deleting a TrainJob takes its JobSet along.
#include "schema/carried/carried_trainer_schema.hpp"
#include "tests/integration/controller/fixture.hpp"
#include "yaml/manifest_reader.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <mutex>

namespace kpt::controller::integration {
namespace {

/// Forwards to a real client and counts its writes by "<verb> <resource> <name>", a status
/// update counting under the object's name.
class CountingClient final : public kube::ApiClient {
 public:
  explicit CountingClient(kube::ApiClient& inner) : m_inner(inner) {}

  Expected<nlohmann::json> get(const kube::ResourceRef& ref, const std::string& ns,
                               const std::string& name) override {
    return m_inner.get(ref, ns, name);
  }
  Expected<kube::ListResult> list(const kube::ResourceRef& ref, const std::string& ns,
                                  const kube::ListOptions& opts) override {
    return m_inner.list(ref, ns, opts);
  }
  Expected<void> watch(const kube::ResourceRef& ref, const std::string& ns, const kube::ListOptions& opts,
                       const std::function<bool(const kube::WatchEvent&)>& on_event,
                       const std::atomic<bool>* cancel) override {
    return m_inner.watch(ref, ns, opts, on_event, cancel);
  }
  Expected<nlohmann::json> create(const kube::ResourceRef& ref, const std::string& ns,
                                  const nlohmann::json& obj, const kube::WriteOptions& opts) override {
    count("create", ref, obj["metadata"].value("name", ""));
    return m_inner.create(ref, ns, obj, opts);
  }
  Expected<nlohmann::json> update(const kube::ResourceRef& ref, const std::string& ns,
                                  const nlohmann::json& obj, const kube::WriteOptions& opts) override {
    count("update", ref, obj["metadata"].value("name", ""));
    return m_inner.update(ref, ns, obj, opts);
  }
  Expected<nlohmann::json> update_status(const kube::ResourceRef& ref, const std::string& ns,
                                         const nlohmann::json& obj) override {
    count("update_status", ref, obj["metadata"].value("name", ""));
    return m_inner.update_status(ref, ns, obj);
  }
  Expected<nlohmann::json> patch(const kube::ResourceRef& ref, const std::string& ns, const std::string& name,
                                 kube::PatchType type, const std::string& body,
                                 const kube::WriteOptions& opts) override {
    count(type == kube::PatchType::apply ? "apply" : "patch", ref, name);
    return m_inner.patch(ref, ns, name, type, body, opts);
  }
  Expected<void> remove(const kube::ResourceRef& ref, const std::string& ns, const std::string& name,
                        const kube::DeleteOptions& opts) override {
    count("delete", ref, name);
    return m_inner.remove(ref, ns, name, opts);
  }
  Expected<std::string> get_raw(const std::string& path) override { return m_inner.get_raw(path); }
  Expected<void> stream_raw(const std::string& path, const std::function<bool(std::string_view)>& on_data,
                            const std::atomic<bool>* cancel) override {
    return m_inner.stream_raw(path, on_data, cancel);
  }
  Expected<nlohmann::json> post_raw(const std::string& path, const nlohmann::json& body) override {
    return m_inner.post_raw(path, body);
  }
  std::vector<std::string> take_warnings() override { return m_inner.take_warnings(); }

  /// Writes whose key starts with `prefix` ("apply jobsets tj0").
  int writes(const std::string& prefix) const {
    std::lock_guard lock(m_mutex);
    int n = 0;
    for (const auto& [key, count] : m_counts) n += key.rfind(prefix, 0) == 0 ? count : 0;
    return n;
  }

 private:
  void count(const std::string& verb, const kube::ResourceRef& ref, const std::string& name) {
    std::lock_guard lock(m_mutex);
    ++m_counts[verb + " " + ref.resource + " " + name];
  }
  kube::ApiClient& m_inner;
  mutable std::mutex m_mutex;
  std::map<std::string, int> m_counts;
};

nlohmann::json trainjob(const std::string& name) {
  return {{"apiVersion", "trainer.kubeflow.org/v1alpha1"},
          {"kind", "TrainJob"},
          {"metadata", {{"name", name}, {"namespace", "default"}}},
          {"spec",
           {{"runtimeRef", {{"name", "torch-distributed"}}},
            {"trainer", {{"numNodes", 2}, {"command", {"torchrun", "train.py"}}}}}}};
}

nlohmann::json counts(int ready, int succeeded, int failed, int active, int suspended) {
  return nlohmann::json::array({{{"name", "node"},
                                 {"ready", ready},
                                 {"succeeded", succeeded},
                                 {"failed", failed},
                                 {"active", active},
                                 {"suspended", suspended}}});
}

class ViaJobSetIntegration : public ControllerIntegration {
 protected:
  void SetUp() override {
    ControllerIntegration::SetUp();
    auto text = std::make_shared<const std::string>(schema::carried_trainer_crds_yaml());
    const auto read = yaml::read_manifests("trainer-crds.yaml", text);
    ASSERT_TRUE(read.findings.empty());
    for (const auto& doc : read.documents) {
      auto created = api->create(kube::resources::crds(), "", yaml::to_json(doc.root));
      ASSERT_TRUE(created.has_value()) << created.error().message;
    }
    ASSERT_TRUE(
        eventually([&] { return api->list(kube::resources::trainjobs(), "default", {}).has_value(); }));
  }

  void install_jobset_crd() {
    std::ifstream in(std::string(KPT_SOURCE_DIR) + "/testdata/controller/jobset-crd.yaml");
    std::stringstream text;
    text << in.rdbuf();
    auto crd = yaml::yaml_to_json("jobset-crd.yaml", text.str());
    ASSERT_TRUE(crd.has_value()) << crd.error().message;
    auto created = api->create(kube::resources::crds(), "", *crd);
    ASSERT_TRUE(created.has_value()) << created.error().message;
    ASSERT_TRUE(eventually([&] { return api->list(kube::resources::jobsets(), "default", {}).has_value(); }));
  }

  nlohmann::json get(const kube::ResourceRef& ref, const std::string& name) {
    auto got = api->get(ref, "default", name);
    return got ? *got : nlohmann::json();
  }

  /// Plays the JobSet controller: writes the status of JobSet `name` through its subresource.
  void jobset_status(const std::string& name, const nlohmann::json& status) {
    ASSERT_TRUE(eventually([&] {
      auto js = get(kube::resources::jobsets(), name);
      if (js.is_null()) return false;
      js["status"] = status;
      return api->update_status(kube::resources::jobsets(), "default", js).has_value();
    }));
  }

  /// The TrainJob's condition of `type`, or null.
  nlohmann::json condition(const std::string& name, const std::string& type) {
    const auto tj = get(kube::resources::trainjobs(), name);
    if (tj.is_null()) return nullptr;
    for (const auto& c :
         tj.value("status", nlohmann::json::object()).value("conditions", nlohmann::json::array()))
      if (c.value("type", "") == type) return c;
    return nullptr;
  }
  bool condition_is(const std::string& name, const std::string& type, const std::string& status,
                    const std::string& reason) {
    const auto c = condition(name, type);
    return !c.is_null() && c.value("status", "") == status && c.value("reason", "") == reason;
  }
};

ControllerConfig via_jobset_config() {
  auto c = config();
  c.trainjob.via_jobset = true;
  c.trainjob.emit_events = false;
  return c;
}

TEST_F(ViaJobSetIntegration, TheJobSetIsAppliedAndTheTrainJobFollowsTheJobSetControllersStatus) {
  install_jobset_crd();
  for (const char* name : {"done", "broken", "paused"})
    ASSERT_TRUE(api->create(kube::resources::trainjobs(), "default", trainjob(name)));
  auto raw = client_for(*server);
  CountingClient counting(*raw);
  Running controller(counting, via_jobset_config());
  ASSERT_TRUE(eventually(
      [&] { return count(kube::resources::jobsets()) == 3 && count(kube::resources::configmaps()) == 3; }));
  const auto done_tj = get(kube::resources::trainjobs(), "done");
  const auto js = get(kube::resources::jobsets(), "done");
  EXPECT_EQ(js["metadata"]["ownerReferences"],
            (nlohmann::json::array({{{"apiVersion", "trainer.kubeflow.org/v1alpha1"},
                                     {"kind", "TrainJob"},
                                     {"name", "done"},
                                     {"uid", done_tj["metadata"]["uid"]},
                                     {"controller", true},
                                     {"blockOwnerDeletion", true}}})));
  EXPECT_EQ(js["spec"]["suspend"], false);
  const auto& node = js["spec"]["replicatedJobs"][0];
  EXPECT_EQ(node["name"], "node");
  EXPECT_EQ(node["template"]["spec"]["parallelism"], 2);
  EXPECT_EQ(node["template"]["spec"]["template"]["spec"]["containers"][0]["command"],
            (nlohmann::json{"torchrun", "train.py"}));
  EXPECT_EQ(count(kube::resources::pods()), 0u);  // the JobSet controller's job, not ours
  EXPECT_EQ(count(kube::resources::services()), 0u);

  jobset_status("done", {{"conditions",
                          {{{"type", "Completed"},
                            {"status", "True"},
                            {"reason", "AllJobsCompleted"},
                            {"message", "jobset completed successfully"},
                            {"lastTransitionTime", "2026-11-29T12:05:00Z"}}}},
                         {"replicatedJobsStatus", counts(0, 1, 0, 0, 0)},
                         {"terminalState", "Completed"}});
  const char* failed = "jobset failed due to one or more job failures (first failed job: broken-node-0)";
  jobset_status("broken", {{"conditions",
                            {{{"type", "Failed"},
                              {"status", "True"},
                              {"reason", "FailedJobs"},
                              {"message", failed},
                              {"lastTransitionTime", "2026-11-29T12:05:00Z"}}}},
                           {"replicatedJobsStatus", counts(0, 0, 1, 0, 0)},
                           {"terminalState", "Failed"}});
  EXPECT_TRUE(eventually([&] { return condition_is("done", "Complete", "True", "AllJobsCompleted"); }));
  EXPECT_EQ(condition("done", "Complete")["message"], "jobset completed successfully");
  EXPECT_EQ(get(kube::resources::trainjobs(), "done")["status"]["jobsStatus"], counts(0, 1, 0, 0, 0));
  EXPECT_TRUE(eventually([&] { return condition_is("broken", "Failed", "True", "FailedJobs"); }));
  EXPECT_EQ(condition("broken", "Failed")["message"], failed);

  // Suspend and resume reach the JobSet; what the JobSet controller then reports reaches the TrainJob.
  ASSERT_TRUE(api->patch(kube::resources::trainjobs(), "default", "paused", kube::PatchType::merge,
                         R"({"spec":{"suspend":true}})"));
  EXPECT_TRUE(eventually([&] {
    return get(kube::resources::jobsets(), "paused")["spec"].value("suspend", false) &&
           condition_is("paused", "Suspended", "True", "Suspended");
  }));
  jobset_status("paused", {{"replicatedJobsStatus", counts(0, 0, 0, 0, 1)}});
  EXPECT_TRUE(eventually([&] {
    return get(kube::resources::trainjobs(), "paused")["status"].value("jobsStatus", nlohmann::json()) ==
           counts(0, 0, 0, 0, 1);
  }));
  ASSERT_TRUE(api->patch(kube::resources::trainjobs(), "default", "paused", kube::PatchType::merge,
                         R"({"spec":{"suspend":false}})"));
  EXPECT_TRUE(eventually([&] {
    return !get(kube::resources::jobsets(), "paused")["spec"].value("suspend", true) &&
           condition_is("paused", "Suspended", "False", "Resumed");
  }));
  std::this_thread::sleep_for(std::chrono::milliseconds{500});  // room for any write too many

  // The minimum: the snapshot, one apply, and a status write for each change the JobSet reported.
  for (const char* name : {"done", "broken"}) {
    SCOPED_TRACE(name);
    EXPECT_EQ(counting.writes(std::string("create configmaps ") + name), 1);
    EXPECT_EQ(counting.writes(std::string("apply jobsets ") + name), 1);
    EXPECT_EQ(counting.writes(std::string("update_status trainjobs ") + name), 1);
  }
  // And per suspend or resume: one apply and the Suspended condition; the suspended counts once.
  EXPECT_EQ(counting.writes("create configmaps paused"), 1);
  EXPECT_EQ(counting.writes("apply jobsets paused"), 3);
  EXPECT_EQ(counting.writes("update_status trainjobs paused"), 3);
  EXPECT_EQ(counting.writes("delete "), 0);
  EXPECT_EQ(counting.writes("patch "), 0);

  // Deleting a TrainJob takes its JobSet and snapshot with it (owner references, garbage collector).
  ASSERT_TRUE(api->remove(kube::resources::trainjobs(), "default", "done").has_value());
  EXPECT_TRUE(eventually([&] {
    return get(kube::resources::jobsets(), "done").is_null() &&
           get(kube::resources::configmaps(), "done-runtime-snapshot").is_null();
  }));
  EXPECT_FALSE(get(kube::resources::jobsets(), "broken").is_null());
  EXPECT_EQ(counting.writes("apply jobsets done"), 1);  // and it is not recreated
}

TEST_F(ViaJobSetIntegration, UnderInjectedFaultsEveryTrainJobGetsOneJobSetAndCompletes) {
  install_jobset_crd();
  constexpr int k_jobs = 8;
  for (int i = 0; i < k_jobs; ++i)
    ASSERT_TRUE(api->create(kube::resources::trainjobs(), "default", trainjob("tj" + std::to_string(i))));
  inject_faults(*server);
  auto raw = client_for(*server);
  CountingClient counting(*raw);
  {
    Running controller(counting, via_jobset_config());
    // Plays the JobSet controller: every JobSet it sees completes.
    EXPECT_TRUE(eventually([&] {
      auto listed = api->list(kube::resources::jobsets(), "default", {});
      if (!listed) return false;
      for (auto js : listed->items) {
        if (js.contains("status")) continue;
        js["status"] = {{"conditions",
                         {{{"type", "Completed"},
                           {"status", "True"},
                           {"reason", "AllJobsCompleted"},
                           {"message", "jobset completed successfully"},
                           {"lastTransitionTime", "2026-11-29T12:05:00Z"}}}},
                        {"replicatedJobsStatus", counts(0, 1, 0, 0, 0)},
                        {"terminalState", "Completed"}};
        (void)api->update_status(kube::resources::jobsets(), "default", js);
      }
      for (int i = 0; i < k_jobs; ++i) {
        if (!condition_is("tj" + std::to_string(i), "Complete", "True", "AllJobsCompleted")) return false;
      }
      return true;
    }));
  }
  server->set_fault_plan({});
  EXPECT_GT(server->faults_injected(), 0u);
  EXPECT_EQ(count(kube::resources::jobsets()), static_cast<std::size_t>(k_jobs));
  EXPECT_EQ(count(kube::resources::configmaps()), static_cast<std::size_t>(k_jobs));
  EXPECT_EQ(count(kube::resources::pods()), 0u);
  // A failed request is retried, so faults cost writes; a JobSet that exists is never applied again.
  for (int i = 0; i < k_jobs; ++i) {
    const std::string name = "tj" + std::to_string(i);
    SCOPED_TRACE(name);
    EXPECT_LE(counting.writes("apply jobsets " + name), 3);
    EXPECT_LE(counting.writes("update_status trainjobs " + name), 3);
  }
}

TEST_F(ViaJobSetIntegration, WithoutTheJobSetCrdTheControllerRefusesAndNamesTheFix) {
  util::RealClock clock;
  std::ostringstream out;
  Logger log(out, LogFormat::text, clock);
  std::atomic<bool> stop{false};
  auto client = client_for(*server);
  EXPECT_EQ(run_controller(*client, via_jobset_config(), clock, log, stop), 1);
  EXPECT_NE(out.str().find("the API server does not serve jobsets.jobset.x-k8s.io, which --via-jobset "
                           "creates: install JobSet (kubectl apply --server-side -f "
                           "https://github.com/kubernetes-sigs/jobset/releases/download/v0.12.0/"
                           "manifests.yaml) or run without --via-jobset to create the pods directly"),
            std::string::npos)
      << out.str();
}

}  // namespace
}  // namespace kpt::controller::integration
