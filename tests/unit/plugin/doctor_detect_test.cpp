#include "plugin/doctor/doctor_detect.hpp"

#include "schema/crd_fingerprint.hpp"

#include <gtest/gtest.h>

#include <map>

namespace kpt::plugin {
namespace {

using model::pytorchjob::Release;
using Kind = ImageMatch::Kind;

std::string text_of(const std::vector<Release>& rs) { return releases_text(rs); }

TEST(DoctorDetect, EveryImageOfTheDeploymentTableMapsToItsRelease) {
  struct Case {
    std::string image;
    Kind kind;
    std::string releases;
  };
  const std::vector<Case> cases = {
      {"public.ecr.aws/j1r0q0g6/training/training-operator:760ac1171dd30039a7363ffa03c77454bd714da5",
       Kind::release, "v1.3.0"},
      {"public.ecr.aws/j1r0q0g6/training/training-operator:174e8813666951ded505daf334a37f60fd50c18d",
       Kind::release, "v1.4.0"},
      {"kubeflow/training-operator:v1-e1434f6", Kind::release, "v1.5.0"},
      {"kubeflow/training-operator:v1-5a5f92d", Kind::release, "v1.6.0"},
      {"kubeflow/training-operator:v1-855e096", Kind::release, "v1.7.0"},
      {"kubeflow/training-operator:v1-9e52eb7", Kind::release, "v1.8.0"},
      {"kubeflow/training-operator:v1-04f9f13", Kind::release, "v1.8.1"},
      {"kubeflow/training-operator:v1-5170a36", Kind::release, "v1.9.0"},
      {"kubeflow/training-operator", Kind::untagged, "v1.9.1"},
      {"ghcr.io/kubeflow/training-v1/training-operator:v1-3f15cb8", Kind::release, "v1.9.2"},
      {"ghcr.io/kubeflow/training-v1/training-operator:v1-d6eb98e", Kind::release, "v1.9.3"},
      {"ghcr.io/kubeflow/training-v1/training-operator:v1-93c5489", Kind::release, "v1.9.4"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.image);
    const auto m = match_operator_image(c.image);
    EXPECT_EQ(m.kind, c.kind);
    EXPECT_EQ(text_of(m.releases), c.releases);
  }
}

TEST(DoctorDetect, ImageReferencesAreParsedWhateverTheRegistryPortTagFormOrDigest) {
  struct Case {
    std::string image;
    Kind kind;
    std::string releases;
    std::string tag;
  };
  const std::vector<Case> cases = {
      {"registry.local:5000/mirror/training-operator:v1-855e096", Kind::release, "v1.7.0", "v1-855e096"},
      {"registry.local:5000/mirror/training-operator", Kind::untagged, "v1.9.1", ""},
      {"kubeflow/training-operator:latest", Kind::latest, "", "latest"},
      {"kubeflow/training-operator@sha256:0123abcd", Kind::digest, "", ""},
      {"kubeflow/training-operator:v1-93c5489@sha256:0123abcd", Kind::release, "v1.9.4", "v1-93c5489"},
      {"kubeflow/training-operator:v1-855e0961234", Kind::release, "v1.7.0", "v1-855e0961234"},
      {"public.ecr.aws/j1r0q0g6/training/training-operator:v1-760ac11", Kind::release, "v1.3.0",
       "v1-760ac11"},
      {"kubeflow/training-operator:v1.7.0", Kind::unknown, "", "v1.7.0"},
      {"kubeflow/training-operator:v1-abcdef0", Kind::unknown, "", "v1-abcdef0"},
      {"kubeflow/training-operator:v1-855", Kind::unknown, "", "v1-855"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.image);
    const auto m = match_operator_image(c.image);
    EXPECT_EQ(m.kind, c.kind);
    EXPECT_EQ(text_of(m.releases), c.releases);
    EXPECT_EQ(m.tag, c.tag);
  }
}

TEST(DoctorDetect, TrainerV2VersionComesFromASemverTag) {
  EXPECT_EQ(trainer_version_from_image("ghcr.io/kubeflow/trainer/trainer-controller-manager:v2.1.0"),
            "v2.1.0");
  EXPECT_EQ(trainer_version_from_image("ghcr.io/kubeflow/trainer/trainer-controller-manager"), "");
  EXPECT_EQ(trainer_version_from_image("ghcr.io/kubeflow/trainer/trainer-controller-manager:latest"), "");
}

TEST(DoctorDetect, ControllerGenVersionsMapToReleaseRanges) {
  struct Case {
    std::string version;
    std::string releases;
  };
  const std::vector<Case> cases = {
      {"v0.6.0", "v1.3.0-v1.5.0"},  {"v0.10.0", "v1.6.0"},        {"v0.12.0", "v1.7.0"},
      {"v0.14.0", "v1.8.0-v1.8.1"}, {"v0.16.5", "v1.9.0-v1.9.4"}, {"v0.17.0", ""},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.version);
    EXPECT_EQ(text_of(schema::releases_from_generator(c.version)), c.releases);
  }
}

TEST(DoctorDetect, ReleaseListsCollapseConsecutiveReleasesIntoRanges) {
  EXPECT_EQ(releases_text({{1, 3, 0}, {1, 5, 0}}), "v1.3.0, v1.5.0");
  EXPECT_EQ(releases_text({{1, 9, 1}, {1, 9, 0}, {1, 9, 2}, {1, 7, 0}}), "v1.7.0, v1.9.0-v1.9.2");
  EXPECT_EQ(releases_text({}), "");
}

ImageMatch image(const std::string& ref) { return match_operator_image(ref); }

TEST(DoctorDetect, CombiningImageCrdAndWebhookFollowsTheRules) {
  struct Case {
    std::string name;
    DetectionInput in;
    Verdict::Kind kind;
    std::string release;
    std::string summary;
    std::vector<std::string> notes;
  };
  const std::vector<Release> v19 = {{1, 9, 0}, {1, 9, 1}, {1, 9, 2}, {1, 9, 3}};
  const std::vector<Case> cases = {
      {"image and CRD agree on one release",
       {image("kubeflow/training-operator:v1-855e096"), std::vector<Release>{{1, 7, 0}}, false, std::nullopt},
       Verdict::Kind::agree,
       "v1.7.0",
       "operator v1.7.0: the image and the CRD agree",
       {}},
      {"an untagged image inside the CRD's range picks v1.9.1",
       {image("kubeflow/training-operator"), v19, true, std::nullopt},
       Verdict::Kind::agree,
       "v1.9.1",
       "operator v1.9.1: the image and the CRD agree",
       {"the operator image has no tag: v1.9.1's manifests deploy it so (#2583), but it is whatever 'latest' "
        "was when the pod started"}},
      {"a new image with an old CRD disagrees and uses the image's release",
       {image("ghcr.io/kubeflow/training-v1/training-operator:v1-93c5489"), std::vector<Release>{{1, 5, 0}},
        true, std::nullopt},
       Verdict::Kind::disagree,
       "v1.9.4",
       "the image says v1.9.4 but the CRD says v1.5.0: the CRD was not upgraded with the operator; using "
       "v1.9.4",
       {}},
      {"an old image with a new CRD disagrees the other way",
       {image("kubeflow/training-operator:v1-855e096"), std::vector<Release>{{1, 9, 4}}, true, std::nullopt},
       Verdict::Kind::disagree,
       "v1.7.0",
       "the image says v1.7.0 but the CRD says v1.9.4: the CRD is newer than the operator; using v1.7.0",
       {"a validating webhook 'validator.training-operator.kubeflow.org' exists, which only v1.8+ installs"}},
      {"only the image speaks when the CRD cannot be read",
       {image("kubeflow/training-operator:v1-04f9f13"), std::nullopt, std::nullopt, std::nullopt},
       Verdict::Kind::image,
       "v1.8.1",
       "operator v1.8.1 from the image (the CRD says nothing)",
       {}},
      {"only the CRD speaks when no Deployment is found, newest of its range used",
       {std::nullopt, v19, std::nullopt, std::nullopt},
       Verdict::Kind::crd,
       "v1.9.3",
       "operator v1.9.0-v1.9.3 from the CRD (no operator Deployment found); using v1.9.3",
       {}},
      {"a 'latest' image leaves the CRD to speak",
       {image("kubeflow/training-operator:latest"), std::vector<Release>{{1, 6, 0}}, false, std::nullopt},
       Verdict::Kind::crd,
       "v1.6.0",
       "operator v1.6.0 from the CRD (the image says nothing)",
       {"the operator image tag 'latest' names no release"}},
      {"a v1.8+ release without its webhook gets a note",
       {image("kubeflow/training-operator:v1-9e52eb7"), std::vector<Release>{{1, 8, 0}, {1, 8, 1}}, false,
        std::nullopt},
       Verdict::Kind::agree,
       "v1.8.0",
       "operator v1.8.0: the image and the CRD agree",
       {"no validating webhook 'validator.training-operator.kubeflow.org', which v1.8.0 installs: invalid "
        "jobs "
        "are not rejected when created"}},
      {"a hand-edited CRD and an unknown tag leave the release unknown",
       {image("my/operator:dev"), std::vector<Release>{}, false, std::nullopt},
       Verdict::Kind::unknown,
       "",
       "the operator release is unknown",
       {"the operator image tag 'dev' is in no release's manifests",
        "the PyTorchJob CRD matches no release's schema (edited by hand, or from a fork)"}},
      {"a digest-pinned image says nothing",
       {image("kubeflow/training-operator@sha256:00ff"), std::nullopt, std::nullopt, std::nullopt},
       Verdict::Kind::unknown,
       "",
       "the operator release is unknown",
       {"the operator image is pinned by digest only: no tag to map to a release"}},
      {"nothing installed",
       {std::nullopt, std::nullopt, false, std::nullopt},
       Verdict::Kind::unknown,
       "",
       "no Training Operator v1 found",
       {}},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    const auto v = combine(c.in);
    EXPECT_EQ(v.kind, c.kind);
    EXPECT_EQ(v.release ? v.release->to_string() : "", c.release);
    EXPECT_EQ(v.summary, c.summary);
    EXPECT_EQ(v.notes, c.notes);
  }
}

TEST(DoctorDetect, JobPodLabelsNameTheReleasesThatMakeThem) {
  struct Case {
    std::string name;
    std::map<std::string, std::string> labels;
    std::string releases;
  };
  const std::vector<Case> cases = {
      {"v1.3: only the old keys",
       {{"group-name", "kubeflow.org"}, {"job-name", "j"}, {"replica-type", "master"}},
       "v1.3.0"},
      {"v1.4-v1.5: old and new keys",
       {{"group-name", "kubeflow.org"}, {"training.kubeflow.org/operator-name", "pytorchjob-controller"}},
       "v1.4.0-v1.5.0"},
      {"v1.6+: only the new keys",
       {{"training.kubeflow.org/operator-name", "pytorchjob-controller"},
        {"training.kubeflow.org/replica-type", "master"},
        {"training.kubeflow.org/job-role", "master"}},
       "v1.6.0-v1.9.4"},
      {"v1.8+: a worker with job-role master",
       {{"training.kubeflow.org/operator-name", "pytorchjob-controller"},
        {"training.kubeflow.org/replica-type", "worker"},
        {"training.kubeflow.org/replica-index", "0"},
        {"training.kubeflow.org/job-role", "master"}},
       "v1.8.0-v1.9.4"},
      {"our controller's pods say nothing",
       {{"training.kubeflow.org/operator-name", "pytorchjob-controller"}, {"app.kubernetes.io/name", "j"}},
       ""},
      {"a group-name of another project says nothing", {{"group-name", "example.com"}}, ""},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    EXPECT_EQ(releases_text(releases_from_pod_labels(c.labels)), c.releases);
  }
}

TEST(DoctorDetect, JobPodsOfAnotherReleaseAddANoteAndChangeNothingElse) {
  DetectionInput in{image("kubeflow/training-operator:v1-855e096"), std::vector<Release>{{1, 7, 0}}, false,
                    std::vector<Release>{{1, 4, 0}, {1, 5, 0}}};
  const auto v = combine(in);
  EXPECT_EQ(v.kind, Verdict::Kind::agree);
  EXPECT_EQ(v.release->to_string(), "v1.7.0");
  EXPECT_EQ(v.notes,
            (std::vector<std::string>{"pods of existing jobs carry the labels of v1.4.0-v1.5.0, not of "
                                      "v1.7.0: another release made them (before an upgrade?)"}));
  in.pod_labels = std::vector<Release>{{1, 6, 0}, {1, 7, 0}};
  EXPECT_TRUE(combine(in).notes.empty());
}

TEST(DoctorDetect, EnvStyleIsTheDetectedOperatorRelease) {
  EXPECT_EQ(model::pytorchjob::to_string(style_for({1, 7, 0})), "operator@v1.7.0");
  EXPECT_NE(env_style_summary({1, 3, 0}), env_style_summary({1, 5, 0}));
  EXPECT_NE(env_style_summary({1, 5, 0}), env_style_summary({1, 9, 4}));
}

TEST(DoctorDetect, AddOnsAreRecognisedFromCrdNames) {
  const auto none = add_ons_from_crd_names({"pytorchjobs.kubeflow.org", "foos.example.com"});
  EXPECT_FALSE(none.trainer_v2 || none.v1_9_0_trainjob || none.volcano || none.scheduler_plugins ||
               none.kueue);
  const auto all = add_ons_from_crd_names(
      {"trainjobs.trainer.kubeflow.org", "trainjobs.kubeflow.org", "podgroups.scheduling.volcano.sh",
       "podgroups.scheduling.sigs.k8s.io", "podgroups.scheduling.x-k8s.io", "workloads.kueue.x-k8s.io"});
  EXPECT_TRUE(all.trainer_v2 && all.v1_9_0_trainjob && all.volcano && all.scheduler_plugins && all.kueue);
  EXPECT_EQ(all.scheduler_plugins_group, "scheduling.x-k8s.io");
  EXPECT_EQ(add_ons_from_crd_names({"podgroups.scheduling.sigs.k8s.io"}).scheduler_plugins_group,
            "scheduling.sigs.k8s.io");
  EXPECT_TRUE(add_ons_from_crd_names({"clusterqueues.kueue.x-k8s.io"}).kueue);
}

TEST(DoctorDetect, DeploymentsAreRecognisedByNameOrLabels) {
  EXPECT_TRUE(is_training_operator_deployment("training-operator", {}));
  EXPECT_TRUE(is_training_operator_deployment("renamed", {{"control-plane", "kubeflow-training-operator"}}));
  EXPECT_FALSE(is_training_operator_deployment("kubeflow-training-operator", {{"app", "x"}}));
  EXPECT_TRUE(is_trainer_v2_deployment("kubeflow-trainer-controller-manager", {}));
  EXPECT_TRUE(is_trainer_v2_deployment(
      "renamed", {{"app.kubernetes.io/name", "trainer"}, {"app.kubernetes.io/component", "manager"}}));
  EXPECT_FALSE(is_trainer_v2_deployment("renamed", {{"app.kubernetes.io/name", "trainer"}}));
}

TEST(DoctorDetect, OurControllerDecidesTheStyleUnlessTheTrainingOperatorAlsoRuns) {
  const OurController ours{"the local cluster", *model::pytorchjob::parse_style("worker-only")};
  DetectionInput crd_only;
  crd_only.crd = std::vector<Release>{{1, 9, 4}};
  crd_only.webhook = false;
  const auto v = combine(crd_only, ours);
  EXPECT_EQ(v.kind, Verdict::Kind::ours);
  EXPECT_EQ(v.summary, "kubectl-pytorch's controller (the local cluster), env style worker-only");
  EXPECT_EQ(model::pytorchjob::to_string(style_for(v)), "worker-only");
  EXPECT_TRUE(v.notes.empty());
  DetectionInput both = crd_only;
  both.image = match_operator_image("kubeflow/training-operator:v1-855e096");
  const auto b = combine(both, ours);
  EXPECT_NE(b.kind, Verdict::Kind::ours);
  ASSERT_FALSE(b.notes.empty());
  EXPECT_NE(b.notes.back().find("runs beside the Training Operator"), std::string::npos);
  EXPECT_EQ(combine(crd_only).kind, Verdict::Kind::crd);
}

TEST(DoctorDetect, OurControllerIsFoundByItsVersionOrItsDeploymentAndArgs) {
  EXPECT_TRUE(is_local_cluster_version(R"({"gitVersion": "v1.32.0-kubectl-pytorch+controller"})"));
  EXPECT_FALSE(is_local_cluster_version(R"({"gitVersion": "v1.32.0-kubectl-pytorch"})"));  // --server-only
  EXPECT_FALSE(is_local_cluster_version(R"({"gitVersion": "v1.32.0"})"));
  EXPECT_FALSE(is_local_cluster_version("not json"));
  EXPECT_TRUE(is_our_controller_deployment("kubectl-pytorch-controller", {}));
  EXPECT_TRUE(
      is_our_controller_deployment("renamed", {{"app.kubernetes.io/name", "kubectl-pytorch-controller"}}));
  EXPECT_FALSE(is_our_controller_deployment("training-operator", {}));
  EXPECT_EQ(model::pytorchjob::to_string(style_from_controller_args({"controller", "--leader-elect"})),
            "worker-only");
  EXPECT_EQ(model::pytorchjob::to_string(style_from_controller_args({"controller", "--env-style=legacy"})),
            "legacy");
  EXPECT_EQ(
      model::pytorchjob::to_string(style_from_controller_args({"controller", "--env-style", "torchrun"})),
      "torchrun");
}

}  // namespace
}  // namespace kpt::plugin
