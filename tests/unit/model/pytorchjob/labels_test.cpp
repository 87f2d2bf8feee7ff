#include "model/pytorchjob/labels.hpp"

#include <gtest/gtest.h>

namespace kpt::model::pytorchjob {
namespace {

EnvStyle op(int minor, int patch = 0) {
  return EnvStyle{StyleKind::operator_release, Release{1, minor, patch}};
}

// The labels of pkg/util/labels (v1.3-v1.5) and common_types.go (v1.6+) per release.
TEST(PodLabels, FollowTheReleasesLabelKeys) {
  struct Case {
    std::string name;
    EnvStyle style;
    ReplicaRef ref;
    std::string labels;
  };
  const std::vector<Case> cases = {
      {"v1.3 master",
       op(3),
       {"mnist", "Master", 0, true},
       "group-name=kubeflow.org,job-name=mnist,job-role=master,replica-index=0,replica-type=master"},
      {"v1.4 worker: old and new keys",
       op(4),
       {"mnist", "Worker", 1, true},
       "group-name=kubeflow.org,job-name=mnist,replica-index=1,replica-type=worker,"
       "training.kubeflow.org/job-name=mnist,training.kubeflow.org/operator-name=pytorchjob-controller,"
       "training.kubeflow.org/replica-index=1,training.kubeflow.org/replica-type=worker"},
      {"v1.6 master",
       op(6),
       {"mnist", "Master", 0, true},
       "training.kubeflow.org/job-name=mnist,training.kubeflow.org/job-role=master,"
       "training.kubeflow.org/operator-name=pytorchjob-controller,training.kubeflow.org/replica-index=0,"
       "training.kubeflow.org/replica-type=master"},
      {"v1.7 worker 0 without master: no role",
       op(7),
       {"w", "Worker", 0, false},
       "training.kubeflow.org/job-name=w,training.kubeflow.org/operator-name=pytorchjob-controller,"
       "training.kubeflow.org/replica-index=0,training.kubeflow.org/replica-type=worker"},
      {"v1.8 worker 0 without master: role master",
       op(8),
       {"w", "Worker", 0, false},
       "training.kubeflow.org/job-name=w,training.kubeflow.org/job-role=master,"
       "training.kubeflow.org/operator-name=pytorchjob-controller,training.kubeflow.org/replica-index=0,"
       "training.kubeflow.org/replica-type=worker"},
      {"v1.9.4 worker 0 with master: no role",
       op(9, 4),
       {"m", "Worker", 0, true},
       "training.kubeflow.org/job-name=m,training.kubeflow.org/operator-name=pytorchjob-controller,"
       "training.kubeflow.org/replica-index=0,training.kubeflow.org/replica-type=worker"},
      {"worker-only style adds app.kubernetes.io/name",
       EnvStyle{},
       {"w", "Worker", 0, false},
       "app.kubernetes.io/name=w,training.kubeflow.org/job-name=w,training.kubeflow.org/job-role=master,"
       "training.kubeflow.org/operator-name=pytorchjob-controller,training.kubeflow.org/replica-index=0,"
       "training.kubeflow.org/replica-type=worker"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    EXPECT_EQ(selector_string(pod_labels(c.ref, c.style)), c.labels);
  }
}

TEST(ServiceLabels, AreThePodLabelsWithoutJobRole) {
  const ReplicaRef ref{"mnist", "Master", 0, true};
  EXPECT_EQ(selector_string(service_labels(ref, op(9, 4))),
            "training.kubeflow.org/job-name=mnist,training.kubeflow.org/operator-name=pytorchjob-controller,"
            "training.kubeflow.org/replica-index=0,training.kubeflow.org/replica-type=master");
  EXPECT_EQ(selector_string(service_labels(ref, op(3))),
            "group-name=kubeflow.org,job-name=mnist,replica-index=0,replica-type=master");
}

TEST(JobSelector, MatchesGenLabelsPerRelease) {
  EXPECT_EQ(selector_string(job_selector("j", op(3))), "group-name=kubeflow.org,job-name=j");
  EXPECT_EQ(selector_string(job_selector("j", op(5))),
            "group-name=kubeflow.org,job-name=j,training.kubeflow.org/job-name=j,"
            "training.kubeflow.org/operator-name=pytorchjob-controller");
  EXPECT_EQ(selector_string(job_selector("j", op(9, 4))),
            "training.kubeflow.org/job-name=j,training.kubeflow.org/operator-name=pytorchjob-controller");
}

}  // namespace
}  // namespace kpt::model::pytorchjob
