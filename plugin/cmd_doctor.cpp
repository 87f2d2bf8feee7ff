// `doctor`: what is installed in the cluster (operator release, CRD, webhook, Trainer v2, gang
// schedulers, Kueue) and what the current user may do.
#include "kube/rest_client.hpp"
#include "plugin/cluster_client.hpp"
#include "plugin/commands.hpp"
#include "plugin/context.hpp"
#include "plugin/doctor/doctor_gather.hpp"
#include "plugin/doctor/doctor_output.hpp"
#include "plugin/failure.hpp"
#include "plugin/plugin.hpp"
#include "plugin/structured_output.hpp"
#include "util/strings.hpp"

#include <CLI/CLI.hpp>

#include <ostream>

namespace kpt::plugin {

namespace {

struct DoctorFlags {
  std::string output = "table";
  bool check = false;
};

}  // namespace

int run_doctor(const std::string& output, Context& ctx, bool check) {
  auto api = connect(ctx);
  if (!api) return fail(ctx, api.error());  // no usable kubeconfig: a config error
  const auto* rest = dynamic_cast<const kube::RestClient*>(api->get());
  const std::string server = rest != nullptr ? rest->config().server : std::string{};
  auto report = gather_doctor_report(**api, server, target_namespace(ctx));
  if (!report) {
    return fail(ctx, make_error(ErrorCode::http, "cannot reach the cluster at " + util::quote(server) + ": " +
                                                     report.error().message));
  }
  if (output == "json" || output == "yaml") {
    write_structured(ctx.out, output, [&](std::ostream& o) { write_doctor_json(o, *report); });
  } else {
    write_doctor_table(ctx.out, *report, ctx.colour_out());
  }
  if (check && !report->problems.empty()) {
    ctx.err << "doctor: " << report->problems.size()
            << (report->problems.size() == 1 ? " problem" : " problems") << " found\n";
    return exit_code::findings;
  }
  return exit_code::ok;
}

void add_doctor_command(CLI::App& app, Context& ctx) {
  auto flags = std::make_shared<DoctorFlags>();
  auto* cmd = app.add_subcommand(
      "doctor",
      "Detect the Training Operator release, CRD, webhook, Trainer v2 and gang schedulers in the cluster");
  cmd->add_option("-o,--output", flags->output, "Output format: table (default), json or yaml")
      ->check(CLI::IsMember({"table", "json", "yaml"}).description(""))
      ->type_name("FORMAT");
  cmd->add_flag(
      "--check", flags->check,
      "Exit 1 when a problem is found: the controller Deployment short of ready replicas, its Lease not "
      "renewed, jobs stuck");
  cmd->footer(
      "Reads Deployments in all namespaces, the CRD pytorchjobs.kubeflow.org, the validating webhook, the\n"
      "list of CRDs, the labels of up to 100 job pods (which release made them), two\n"
      "SelfSubjectAccessReviews (create pytorchjobs, create pods in the namespace), kubectl-pytorch's\n"
      "controller Deployment and Lease, and up to 500 PyTorchJobs (stuck: no condition 5 minutes after\n"
      "creation, or Created or Restarting for 15 minutes).\n"
      "A check the user may not read says 'not allowed to read'; nothing aborts the report.\n"
      "The verdict: the release the operator image's tag maps to, checked against the CRD's\n"
      "controller-gen annotation and schema; validate and env use it as their default --operator.\n"
      "-o json keys: server, namespace, operator, crd, webhook, jobPods, trainerV2, gangScheduling, "
      "permissions,\n"
      "verdict {kind: agree|image|crd|disagree|ours|unknown, release, candidates, envStyle, summary, "
      "notes},\n"
      "controller {deployment, lease, jobs}, problems (docs/controller.md).\n"
      "Exit codes: 0 the report was produced (even when nothing is installed), 1 the cluster cannot be\n"
      "reached or, with --check, a problem was found, 2 usage error or no usable kubeconfig.\n"
      "Examples:\n"
      "  kubectl pytorch doctor\n"
      "  kubectl pytorch doctor --context prod -o json\n"
      "  kubectl pytorch doctor --check   # in a probe or CI: exit 1 on a problem");
  cmd->callback([flags, &ctx] { ctx.exit_code = run_doctor(flags->output, ctx, flags->check); });
}

}  // namespace kpt::plugin
