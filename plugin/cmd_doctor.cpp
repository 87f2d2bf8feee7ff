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
};

}  // namespace

int run_doctor(const std::string& output, Context& ctx) {
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
  cmd->footer(
      "Reads Deployments in all namespaces, the CRD pytorchjobs.kubeflow.org, the validating webhook, the\n"
      "list of CRDs, the labels of up to 100 job pods (which release made them) and two\n"
      "SelfSubjectAccessReviews (create pytorchjobs, create pods in the namespace).\n"
      "A check the user may not read says 'not allowed to read'; nothing aborts the report.\n"
      "The verdict: the release the operator image's tag maps to, checked against the CRD's\n"
      "controller-gen annotation and schema; validate and env use it as their default --operator.\n"
      "-o json keys: server, namespace, operator, crd, webhook, jobPods, trainerV2, gangScheduling, "
      "permissions,\n"
      "verdict {kind: agree|image|crd|disagree|unknown, release, candidates, envStyle, summary, notes}.\n"
      "Exit codes: 0 the report was produced (even when nothing is installed), 1 the cluster cannot be\n"
      "reached, 2 usage error or no usable kubeconfig.\n"
      "Examples:\n"
      "  kubectl pytorch doctor\n"
      "  kubectl pytorch doctor --context prod -o json");
  cmd->callback([flags, &ctx] { ctx.exit_code = run_doctor(flags->output, ctx); });
}

}  // namespace kpt::plugin
