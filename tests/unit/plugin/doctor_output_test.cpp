#include "plugin/doctor/doctor_output.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <sstream>

namespace kpt::plugin {
namespace {

DoctorReport sample() {
  DoctorReport r;
  r.server = "https://k:6443";
  r.ns = "team";
  r.operator_deployment = {CheckState::found, "", "kubeflow", "training-operator",
                           "kubeflow/training-operator:v1-855e096"};
  r.operator_image = match_operator_image(r.operator_deployment.image);
  r.crd.state = CheckState::forbidden;
  r.crd.message = "customresourcedefinitions is forbidden";
  r.webhook = CheckState::not_installed;
  r.crd_list = CheckState::found;
  r.add_ons.volcano = true;
  r.permissions = {{"create", "pytorchjobs.kubeflow.org", CheckState::found, "", true, "rbac"},
                   {"create", "pods", CheckState::found, "", false, ""}};
  DetectionInput in;
  in.image = r.operator_image;
  in.webhook = false;
  r.verdict = combine(in);
  return r;
}

TEST(DoctorOutput, TheTableIsAlignedAndEndsWithTheVerdict) {
  std::ostringstream out;
  write_doctor_table(out, sample(), false);
  const std::string expected =
      "CHECK                            STATUS               DETAIL\n"
      "server                           reachable            https://k:6443\n"
      "operator deployment              found                kubeflow/training-operator, image "
      "kubeflow/training-operator:v1-855e096 -> v1.7.0\n"
      "pytorchjob CRD                   not allowed to read  customresourcedefinitions is forbidden\n"
      "validating webhook               not installed        validator.training-operator.kubeflow.org\n"
      "job pods                         none\n"
      "env style                        operator@v1.7.0      MASTER_*, RANK, WORLD_SIZE (x nprocPerNode) and "
      "PET_* "
      "only with a Master replica; worker-only jobs get PET_NNODES and no MASTER_ADDR\n"
      "trainer v2                       not installed\n"
      "volcano                          found                podgroups.scheduling.volcano.sh\n"
      "scheduler-plugins                not installed\n"
      "kueue                            not installed\n"
      "create pytorchjobs.kubeflow.org  allowed              in namespace 'team'\n"
      "create pods                      denied               in namespace 'team'\n"
      "\n"
      "verdict: operator v1.7.0 from the image (the CRD says nothing)\n";
  EXPECT_EQ(out.str(), expected);
}

TEST(DoctorOutput, ColourOnlyWhenAskedAndItDoesNotBreakTheColumns) {
  std::ostringstream plain;
  write_doctor_table(plain, sample(), false);
  EXPECT_EQ(plain.str().find('\033'), std::string::npos);
  std::ostringstream coloured;
  write_doctor_table(coloured, sample(), true);
  EXPECT_NE(coloured.str().find("\033[31mnot allowed to read\033[0m  customresourcedefinitions"),
            std::string::npos);
  EXPECT_NE(coloured.str().find("\033[32mfound\033[0m                kubeflow/"), std::string::npos);
}

TEST(DoctorOutput, JsonCarriesStatesMessagesAndTheVerdict) {
  std::ostringstream out;
  write_doctor_json(out, sample());
  const auto j = nlohmann::json::parse(out.str());
  EXPECT_EQ(j["crd"],
            nlohmann::json({{"state", "forbidden"}, {"message", "customresourcedefinitions is forbidden"}}));
  EXPECT_EQ(j["operator"]["imageReleases"], nlohmann::json::array({"v1.7.0"}));
  EXPECT_EQ(j["gangScheduling"]["volcano"], true);
  EXPECT_EQ(j["permissions"][1]["allowed"], false);
  EXPECT_EQ(j["verdict"]["kind"], "image");
  EXPECT_EQ(j["verdict"]["release"], "v1.7.0");
  EXPECT_EQ(j["verdict"]["envStyle"], "operator@v1.7.0");
  DoctorReport nothing;
  std::ostringstream none;
  write_doctor_json(none, nothing);
  const auto n = nlohmann::json::parse(none.str());
  EXPECT_TRUE(n["verdict"]["release"].is_null());
  EXPECT_TRUE(n["verdict"]["envStyle"].is_null());
}

}  // namespace
}  // namespace kpt::plugin
