#include "plugin/doctor/doctor_trainer.hpp"

#include "plugin/doctor/doctor_gather.hpp"
#include "plugin/doctor/doctor_output.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <sstream>

namespace kpt::plugin {
namespace {

using model::trainjob::TrainerRelease;
using nlohmann::json;

TrainerFindings findings(std::optional<TrainerRelease> image, std::vector<TrainerRelease> crd) {
  return {CheckState::found, "", std::move(crd), image, CheckState::found, "", {}};
}

TEST(DoctorTrainer, TheImageWinsAndTheCrdSaysWhetherItAgrees) {
  struct Case {
    std::string name;
    TrainerFindings t;
    std::optional<TrainerRelease> release;
    std::string agreement;
  };
  const std::vector<Case> cases = {
      {"both, agreeing", findings(TrainerRelease{2, 2, 1}, {{2, 2, 0}, {2, 2, 1}}), TrainerRelease{2, 2, 1},
       "agree"},
      {"both, disagreeing", findings(TrainerRelease{2, 3, 0}, {{2, 1, 0}}), TrainerRelease{2, 3, 0},
       "disagree"},
      {"the CRD only: its newest", findings(std::nullopt, {{2, 0, 0}, {2, 0, 1}}), TrainerRelease{2, 0, 1},
       "crd"},
      {"the image only", findings(TrainerRelease{2, 1, 0}, {}), TrainerRelease{2, 1, 0}, "image"},
      {"neither", findings(std::nullopt, {}), std::nullopt, "unknown"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    EXPECT_EQ(detected_trainer_release(c.t), c.release);
    EXPECT_EQ(trainer_agreement(c.t), c.agreement);
  }
}

TEST(DoctorTrainer, RuntimesAreListedByNameWithFrameworkAndNumNodes) {
  const auto infos = cluster_runtime_infos({
      json::parse(R"({"metadata": {"name": "torch-distributed",
                      "labels": {"trainer.kubeflow.org/framework": "torch"}}, "spec": {"mlPolicy": {"numNodes": 1}}})"),
      json::parse(R"({"metadata": {"name": "deepspeed-distributed", "labels": {
                      "trainer.kubeflow.org/framework": "deepspeed", "trainer.kubeflow.org/support": "deprecated"}},
                      "spec": {"mlPolicy": {"numNodes": 4}}})"),
      json::parse(R"({"metadata": {"name": "bare"}, "spec": {}})"),
      json("not an object"),
  });
  ASSERT_EQ(infos.size(), 3u);
  EXPECT_EQ(infos[0].name, "bare");
  EXPECT_EQ(infos[0].framework, "");
  EXPECT_EQ(infos[0].num_nodes, 1);
  EXPECT_EQ(infos[1].name, "deepspeed-distributed");
  EXPECT_EQ(infos[1].num_nodes, 4);
  EXPECT_TRUE(infos[1].deprecated);
  EXPECT_EQ(infos[2].framework, "torch");
}

DoctorReport trainer_report() {
  DoctorReport r;
  r.server = "https://k:6443";
  r.ns = "team";
  r.crd_list = CheckState::found;
  r.add_ons.trainer_v2 = true;
  r.add_ons.jobset = true;
  r.trainer = findings(TrainerRelease{2, 3, 0}, {{2, 3, 0}});
  r.trainer.cluster_runtimes = {{"torch-distributed", "torch", 1, false}, {"old", "", 2, true}};
  return r;
}

TEST(DoctorTrainer, TheTableHasTheReleaseJobSetAndEachRuntime) {
  std::ostringstream out;
  write_doctor_table(out, trainer_report(), false);
  const std::string text = out.str();
  for (const char* line : {
           "\ntrainer release            v2.3.0         image v2.3.0, CRD fingerprint v2.3.0 (they "
           "agree)\n",
           "\njobset                     found          jobsets.jobset.x-k8s.io\n",
           "\nruntime torch-distributed  torch          numNodes 1\n",
           "\nruntime old                -              numNodes 2, deprecated\n",
       }) {
    EXPECT_NE(text.find(line), std::string::npos) << line << "\nin:\n" << text;
  }
}

TEST(DoctorTrainer, JsonHasTheReleaseEvidenceAndRuntimes) {
  std::ostringstream out;
  write_doctor_json(out, trainer_report());
  const json t = json::parse(out.str())["trainerV2"];
  EXPECT_EQ(t["release"], "v2.3.0");
  EXPECT_EQ(t["imageRelease"], "v2.3.0");
  EXPECT_EQ(t["agreement"], "agree");
  EXPECT_EQ(t["jobset"], true);
  EXPECT_EQ(t["trainerCrd"], json::parse(R"({"state": "found", "fingerprintReleases": ["v2.3.0"]})"));
  EXPECT_EQ(t["clusterTrainingRuntimes"]["items"][1],
            json::parse(R"({"name": "old", "framework": "", "numNodes": 2, "deprecated": true})"));
}

}  // namespace
}  // namespace kpt::plugin
