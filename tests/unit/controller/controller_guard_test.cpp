#include "controller/controller_guard.hpp"

#include "controller/kind_status.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace kpt::controller {
namespace {

using nlohmann::json;

json deployment(const std::string& ns, const std::string& name, std::vector<std::string> args = {},
                std::optional<int> replicas = std::nullopt) {
  json d = {{"metadata", {{"namespace", ns}, {"name", name}}},
            {"spec", {{"template", {{"spec", {{"containers", {{{"name", "c"}, {"args", args}}}}}}}}}}};
  if (replicas) d["spec"]["replicas"] = *replicas;
  return d;
}

const char* const k_operator =
    "a Training Operator runs (Deployment 'kubeflow/training-operator') and reconciles the PyTorchJobs of "
    "every "
    "namespace: scale it to 0 to hand its jobs to this controller (--migrate-from operator@vX.Y.Z keeps "
    "their env), "
    "or run this controller with -n in a namespace it does not watch";
const char* const k_trainer =
    "Kubeflow Trainer's controller runs (Deployment 'kubeflow-system/kubeflow-trainer-controller-manager') "
    "and "
    "reconciles every TrainJob: scale it to 0 to hand its TrainJobs to this controller, or run this "
    "controller with "
    "--kinds pytorchjobs";
const char* const k_local =
    "another kubectl-pytorch controller (the local cluster's own controller) reconciles these jobs under the "
    "lease "
    "'default/kubectl-pytorch-controller': run this one with --lease-namespace default --lease-name "
    "kubectl-pytorch-controller to stand by for it, or give the two disjoint -n, --kinds or --job-selector";

TEST(ControllerGuard, EachOtherControllerBlocksTheKindsItReconciles) {
  GuardInput operator_only;
  operator_only.operator_deployments = {deployment("kubeflow", "training-operator")};
  GuardInput trainer_only;
  trainer_only.trainer_deployments = {deployment("kubeflow-system", "kubeflow-trainer-controller-manager")};
  GuardInput scaled_down;
  scaled_down.operator_deployments = {deployment("kubeflow", "training-operator", {}, 0)};
  GuardInput elsewhere;
  elsewhere.operator_deployments = {deployment("kubeflow", "training-operator", {"--namespace=team-b"})};
  GuardInput local;
  local.local_cluster_controller = true;
  GuardScope in_team_a;
  in_team_a.ns = "team-a";
  GuardScope other_lease;
  other_lease.lease_name = "mine";
  GuardScope embedded;
  embedded.embedded = true;
  GuardScope selected;
  selected.selector = *model::k8s::LabelSelector::parse("team=a");
  GuardInput ours_for_b;
  ours_for_b.our_deployments = {
      deployment("kubectl-pytorch", "kubectl-pytorch-controller", {"controller", "--job-selector=team=b"})};
  struct Case {
    const char* name;
    GuardScope scope;
    GuardInput in;
    GuardVerdict want;
  };
  const Case cases[] = {
      {"nothing else runs", {}, {}, {}},
      {"a Training Operator blocks PyTorchJobs only", {}, operator_only, {k_operator, ""}},
      {"Trainer blocks TrainJobs only", {}, trainer_only, {"", k_trainer}},
      {"an operator scaled to 0 hands its jobs over", {}, scaled_down, {}},
      {"an operator of another namespace", in_team_a, elsewhere, {}},
      {"the local cluster's controller under another lease", other_lease, local, {k_local, k_local}},
      {"the local cluster's controller under the same lease: standby", {}, local, {}},
      {"the local cluster's controller itself", embedded, local, {}},
      {"another instance of ours with a disjoint selector", selected, ours_for_b, {}},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    EXPECT_EQ(judge_controllers(c.scope, c.in), c.want);
  }
}

TEST(ControllerGuard, AnotherInstanceOfOursUnderItsOwnLeaseBlocksWhatBothReconcile) {
  GuardInput in;
  in.our_deployments = {deployment("ml", "kubectl-pytorch-controller",
                                   {"controller", "--lease-namespace=ml", "--kinds", "trainjobs"})};
  const auto v = judge_controllers({}, in);
  EXPECT_EQ(v.pytorchjobs, "");
  EXPECT_EQ(v.trainjobs,
            "another kubectl-pytorch controller (Deployment 'ml/kubectl-pytorch-controller') reconciles "
            "these jobs under "
            "the lease 'ml/kubectl-pytorch-controller': run this one with --lease-namespace ml --lease-name "
            "kubectl-pytorch-controller to stand by for it, or give the two disjoint -n, --kinds or "
            "--job-selector");
  GuardScope same_lease;
  same_lease.lease_namespace = "ml";
  EXPECT_EQ(judge_controllers(same_lease, in), GuardVerdict{});
}

TEST(ControllerGuard, FailsClosedWhenItCannotReadTheDeployments) {
  Error e = make_error(ErrorCode::api, "deployments.apps is forbidden: User \"x\" cannot list resource");
  e.http_status = 403;
  GuardScope pytorchjobs_only;
  pytorchjobs_only.trainjobs = false;
  const auto v = cannot_tell(pytorchjobs_only, e);
  EXPECT_EQ(v.pytorchjobs,
            "cannot tell whether another controller reconciles these jobs, so none is reconciled: listing "
            "Deployments "
            "failed (deployments.apps is forbidden: User \"x\" cannot list resource): grant list on "
            "deployments.apps "
            "(the manifests' ClusterRole does), or pass --skip-controller-check where no Training Operator, "
            "Trainer "
            "or other kubectl-pytorch controller runs");
  EXPECT_EQ(v.trainjobs, "");
  EXPECT_FALSE(v.transient);  // a refusal: looking again will not help
  Error blip = make_error(ErrorCode::api, "the server is currently unable to handle the request");
  blip.http_status = 503;
  EXPECT_TRUE(cannot_tell(pytorchjobs_only, blip).transient);
}

TEST(KindHealth, AForbiddenKindLeavesTheOthersReadyAndOnlyAllForbiddenFailsLiveness) {
  const KindReport working{"pytorchjobs", KindState::reconciling, ""};
  const KindReport forbidden{"trainjobs", KindState::forbidden, "the controller may not list trainjobs"};
  const KindReport waiting{"trainjobs", KindState::waiting, ""};
  const KindReport blocked{"pytorchjobs", KindState::blocked, "a Training Operator runs"};
  auto h = evaluate_health({working, forbidden}, true, true);
  EXPECT_TRUE(h.live);
  EXPECT_TRUE(h.ready);
  EXPECT_EQ(
      h.text,
      "ok\npytorchjobs: reconciling\ntrainjobs: not reconciled (forbidden): the controller may not list "
      "trainjobs\n");
  h = evaluate_health({working, waiting}, true, true);
  EXPECT_TRUE(h.live);
  EXPECT_FALSE(h.ready);
  h = evaluate_health({{"pytorchjobs", KindState::forbidden, "no"}, forbidden}, true, false);
  EXPECT_FALSE(h.live);
  EXPECT_FALSE(h.ready);
  EXPECT_EQ(h.text.substr(0, h.text.find('\n')), "failed: no kind can be reconciled");
  h = evaluate_health({blocked}, true, false);
  EXPECT_TRUE(h.live);  // waiting for the other controller to go: a restart would not help
  EXPECT_FALSE(h.ready);
  h = evaluate_health({waiting}, false, true);
  EXPECT_TRUE(h.live && h.ready);
  EXPECT_EQ(h.text, "ok: standby, waiting for the lease");
}

TEST(KindHealth, TheForbiddenMessageNamesTheManifestsAndTheKindsThatLeaveItOut) {
  Error e = make_error(ErrorCode::api, "trainjobs.trainer.kubeflow.org is forbidden");
  e.http_status = 403;
  EXPECT_TRUE(is_forbidden(e));
  EXPECT_EQ(
      forbidden_message("trainjobs", kube::resources::trainjobs(), e),
      "the controller may not list trainjobs.trainer.kubeflow.org (trainjobs.trainer.kubeflow.org is "
      "forbidden): grant it the rules of 'kubectl pytorch controller manifests --trainer', or run it with "
      "--kinds pytorchjobs");
  EXPECT_EQ(
      forbidden_message("pytorchjobs", kube::resources::pods(), e),
      "the controller may not list pods (trainjobs.trainer.kubeflow.org is forbidden): grant it the rules of "
      "'kubectl pytorch controller manifests', or run it with --kinds trainjobs");
}

}  // namespace
}  // namespace kpt::controller
