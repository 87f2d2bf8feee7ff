// kubectl pytorch convert FILE: a PyTorchJob as the Kubeflow Trainer v2 TrainJob (and, when the shipped
// torch-distributed cannot hold it, a TrainingRuntime) that gives torchrun the same rendezvous, with a
// per-field report of what carries over, changes meaning or has no equivalent.
#include "model/trainjob/from_pytorchjob.hpp"
#include "plugin/commands.hpp"
#include "plugin/context.hpp"
#include "plugin/failure.hpp"
#include "plugin/manifest_objects.hpp"
#include "plugin/plugin.hpp"
#include "util/json_access.hpp"
#include "util/strings.hpp"
#include "yaml/yaml_writer.hpp"

#include <CLI/CLI.hpp>

#include <ostream>

namespace kpt::plugin {

namespace {

void write_document(std::ostream& out, const nlohmann::json& object) {
  const std::string text = yaml::to_yaml(object);
  out << text << (text.empty() || text.back() != '\n' ? "\n" : "");
}

int run_convert(Context& ctx, const std::string& path, const std::string& trainer) {
  auto release = model::trainjob::k_newest_trainer_release;
  if (!trainer.empty()) {
    const auto parsed = model::trainjob::parse_trainer_release(trainer);
    if (!parsed) {
      return fail_usage(ctx, "unknown Trainer release " + util::quote(trainer) +
                                 "; known: " + model::trainjob::known_trainer_releases_list());
    }
    release = *parsed;
  }
  auto objects = read_manifest_objects(path, ctx.in);
  if (!objects) return fail(ctx, objects.error());
  std::vector<nlohmann::json> jobs;
  for (auto& o : *objects) {
    if (util::string_at(o, "kind") == "PyTorchJob") jobs.push_back(std::move(o));
  }
  if (jobs.size() != 1) {
    return fail_usage(ctx, util::quote(path) + " holds " + std::to_string(jobs.size()) +
                               " PyTorchJobs: pass a file with one");
  }
  auto converted = model::trainjob::convert_pytorchjob(jobs.front(), release);
  if (!converted) return fail(ctx, converted.error().context(util::quote(path)));
  // The runtime first: kubectl apply -f creates the documents in order, and Trainer's webhook denies
  // a TrainJob whose runtime does not exist yet.
  if (!converted->runtime.is_null()) {
    write_document(ctx.out, converted->runtime);
    ctx.out << "---\n";
  }
  write_document(ctx.out, converted->trainjob);
  for (const auto& n : converted->notes) {
    ctx.err << model::trainjob::to_string(n.kind) << ": " << n.field << ": " << n.text << "\n";
  }
  return exit_code::ok;
}

}  // namespace

void add_convert_command(CLI::App& app, Context& ctx) {
  auto path = std::make_shared<std::string>();
  auto trainer = std::make_shared<std::string>();
  auto* cmd =
      app.add_subcommand("convert", "Turn a PyTorchJob into the equivalent Kubeflow Trainer v2 TrainJob");
  cmd->add_option("file", *path, "Manifest file with one PyTorchJob ('-' for stdin)")->required();
  cmd->add_option("--trainer", *trainer,
                  "Kubeflow Trainer release to convert for, " +
                      model::trainjob::known_trainer_releases_list() + " (default " +
                      model::trainjob::k_newest_trainer_release.to_string() + ")")
      ->type_name("vX.Y.Z");
  cmd->footer(
      "The TrainJob goes to stdout, ready for kubectl apply -f -: on the shipped torch-distributed runtime,\n"
      "with the pod fields the release's TrainJob can override. When the job needs more (init containers,\n"
      "sidecars, other pod or container fields, restartPolicy Never, runPolicy.backoffLimit, ...), a\n"
      "TrainingRuntime <job>-runtime built on the release's torch-distributed holds it and comes first, "
      "then\n"
      "---, then the TrainJob that names it. One line per field on stderr: carried (where it went), changed\n"
      "(what it means now) or no equivalent (and where to set it instead).\n"
      "Examples:\n"
      "  kubectl pytorch convert pytorchjob.yaml > trainjob.yaml\n"
      "  kubectl pytorch convert --trainer v2.1.0 pytorchjob.yaml\n"
      "  kubectl pytorch convert pytorchjob.yaml 2>/dev/null | kubectl apply -f -\n"
      "Exit codes: 0 converted; 1 the job cannot be converted; 2 usage or I/O error (an unreadable file, a "
      "file\n"
      "that does not hold exactly one PyTorchJob).");
  cmd->callback([&ctx, path, trainer] { ctx.exit_code = run_convert(ctx, *path, *trainer); });
}

}  // namespace kpt::plugin
