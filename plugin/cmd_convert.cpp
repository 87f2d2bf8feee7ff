// kubectl pytorch convert FILE: a PyTorchJob as the Kubeflow Trainer v2 TrainJob that gives torchrun
// the same rendezvous, with a per-field report of what carries over, changes meaning or has no equivalent.
#include "model/trainjob/from_pytorchjob.hpp"
#include "plugin/commands.hpp"
#include "plugin/context.hpp"
#include "plugin/failure.hpp"
#include "plugin/manifest_objects.hpp"
#include "plugin/plugin.hpp"
#include "util/strings.hpp"
#include "yaml/yaml_writer.hpp"

#include <CLI/CLI.hpp>

#include <ostream>

namespace kpt::plugin {

namespace {

int run_convert(Context& ctx, const std::string& path) {
  auto objects = read_manifest_objects(path, ctx.in);
  if (!objects) return fail(ctx, objects.error());
  std::vector<nlohmann::json> jobs;
  for (auto& o : *objects) {
    if (o.value("kind", "") == "PyTorchJob") jobs.push_back(std::move(o));
  }
  if (jobs.size() != 1) {
    return fail_usage(ctx, util::quote(path) + " holds " + std::to_string(jobs.size()) +
                               " PyTorchJobs: pass a file with one");
  }
  auto converted = model::trainjob::convert_pytorchjob(jobs.front());
  if (!converted) return fail(ctx, converted.error().context(util::quote(path)));
  const std::string text = yaml::to_yaml(converted->trainjob);
  ctx.out << text << (text.empty() || text.back() != '\n' ? "\n" : "");
  for (const auto& n : converted->notes) {
    ctx.err << model::trainjob::to_string(n.kind) << ": " << n.field << ": " << n.text << "\n";
  }
  return exit_code::ok;
}

}  // namespace

void add_convert_command(CLI::App& app, Context& ctx) {
  auto path = std::make_shared<std::string>();
  auto* cmd =
      app.add_subcommand("convert", "Turn a PyTorchJob into the equivalent Kubeflow Trainer v2 TrainJob");
  cmd->add_option("file", *path, "Manifest file with one PyTorchJob ('-' for stdin)")->required();
  cmd->footer(
      "The TrainJob (on the torch-distributed runtime) goes to stdout, ready for kubectl apply -f -;\n"
      "one line per field on stderr: carried (where it went), changed (what it means now) or\n"
      "no equivalent (and where to set it instead).\n"
      "Examples:\n"
      "  kubectl pytorch convert pytorchjob.yaml > trainjob.yaml\n"
      "  kubectl pytorch convert pytorchjob.yaml 2>/dev/null | kubectl apply -f -\n"
      "Exit codes: 0 converted; 1 the job cannot be converted; 2 usage or I/O error (an unreadable file, a "
      "file\n"
      "that does not hold exactly one PyTorchJob).");
  cmd->callback([&ctx, path] { ctx.exit_code = run_convert(ctx, *path); });
}

}  // namespace kpt::plugin
