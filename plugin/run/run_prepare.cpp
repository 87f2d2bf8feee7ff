#include "plugin/run/run_prepare.hpp"

#include "model/pytorchjob/release.hpp"
#include "plugin/context.hpp"
#include "plugin/follow/job_kind.hpp"
#include "plugin/run/job_builder.hpp"
#include "plugin/validate/diagnostic_output.hpp"
#include "plugin/validate/validate_runner.hpp"
#include "schema/carried/carried_schema.hpp"
#include "yaml/input_files.hpp"
#include "yaml/manifest_reader.hpp"
#include "yaml/node_json.hpp"

#include <filesystem>
#include <optional>
#include <random>

namespace kpt::plugin {

namespace {

using nlohmann::json;

std::string random_suffix() {
  static const char k_chars[] = "bcdfghjklmnpqrstvwxz2456789";
  std::string out;
  std::random_device rd;
  for (int i = 0; i < 5; ++i) out += k_chars[rd() % (sizeof k_chars - 1)];
  return out;
}

// --nodes builds a TrainJob on a runtime; otherwise --workers builds a PyTorchJob.
Expected<PreparedJob> job_from_image(const Context& ctx, const JobSource& s) {
  if (s.args.empty()) return make_error(ErrorCode::usage, "--image needs the command after '--'");
  const bool trainjob = s.nodes > 0 || !s.runtime.empty();
  if (trainjob && s.workers_set)
    return make_error(ErrorCode::usage, "--workers builds a PyTorchJob and --nodes a TrainJob: give one");
  if (!trainjob && s.workers < 1) return make_error(ErrorCode::usage, "--workers must be at least 1");
  JobRequest r;
  r.name = s.name.empty() ? (trainjob ? "train-" : "pytorch-") + random_suffix() : s.name;
  r.ns = ctx.connection.namespace_;
  r.image = s.image;
  r.workers = s.workers;
  r.nproc_per_node = s.nproc_per_node;
  r.command = s.args;
  if (!trainjob) {
    ctx.err << "note: --image sets spec.runPolicy.backoffLimit " << r.backoff_limit
            << ": the job fails after that many restarts instead of restarting forever\n";
    return PreparedJob{build_job(r), std::filesystem::current_path().string(), {}};
  }
  r.workers = s.nodes > 0 ? s.nodes : 1;
  r.runtime = s.runtime.empty() ? "torch-distributed" : s.runtime;
  auto job = build_trainjob(r);
  if (!job) return job.error();
  return PreparedJob{std::move(*job), std::filesystem::current_path().string(), {}};
}

Expected<ValidateSettings> validate_settings(const JobSource& s) {
  ValidateSettings settings;
  settings.schemas = &schema::carried_schema();
  if (!s.operator_release.empty()) {
    auto release = model::pytorchjob::parse_release(s.operator_release);
    if (!release) {
      return make_error(ErrorCode::usage, "unknown operator release '" + s.operator_release +
                                              "' (known: " + model::pytorchjob::known_releases_list() + ")");
    }
    settings.rules.release = *release;
  }
  if (s.local) {
    // Locally our controller injects the worker-only env and the image is not pulled.
    settings.rules.disabled.insert("lint.worker-only-no-master-env");
    settings.rules.disabled.insert("lint.image-placeholder");
    settings.rules.disabled.insert("lint.image-unpinned");
  }
  return settings;
}

// Prints the file's findings on ctx.err; errors stop the run unless --force.
Expected<void> check_manifest(const Context& ctx, const JobSource& s, const yaml::InputFile& input) {
  auto settings = validate_settings(s);
  if (!settings) return settings.error();
  Report report;
  report.files.push_back(validate_file(input, *settings));
  const Summary summary = summarize(report);
  if (summary.errors + summary.warnings > 0) {
    OutputOptions out;
    out.colour = ctx.colour_err();
    write_text(report, out, ctx.err);
  }
  if (summary.errors > 0 && !s.force)
    return make_error(ErrorCode::invalid, "the manifest has errors; fix them or run with --force");
  return {};
}

bool is_runtime(const json& doc) {
  if (!doc.is_object()) return false;
  const std::string kind = doc.value("kind", "");
  return kind == "TrainingRuntime" || kind == "ClusterTrainingRuntime";
}

// The file's one job, and the runtimes beside it (applied first, so a TrainJob finds its own).
Expected<PreparedJob> the_one_job(const yaml::InputFile& input) {
  auto read = yaml::read_manifests(input);
  std::vector<json> jobs;
  PreparedJob out;
  for (const auto& doc : expand_lists(std::move(read.documents))) {
    json j = yaml::to_json(doc.root);
    if (kind_of(j) != nullptr)
      jobs.push_back(std::move(j));
    else if (is_runtime(j))
      out.runtimes.push_back(std::move(j));
  }
  if (jobs.size() != 1) {
    return make_error(ErrorCode::usage, "'" + input.name + "' holds " + std::to_string(jobs.size()) +
                                            " PyTorchJobs and TrainJobs; run takes exactly one");
  }
  out.job = std::move(jobs.front());
  return out;
}

Expected<PreparedJob> job_from_file(const Context& ctx, const JobSource& s) {
  if (s.args.size() != 1)
    return make_error(ErrorCode::usage, "run takes one FILE (or --image IMG -- CMD...)");
  auto fs = yaml::make_disk_reader();
  auto inputs = yaml::collect_inputs(s.args, *fs, ctx.in, yaml::ReadLimits{}.max_bytes);
  if (!inputs) return inputs.error();
  if (auto checked = check_manifest(ctx, s, inputs->front()); !checked) return checked.error();
  auto prepared = the_one_job(inputs->front());
  if (!prepared) return prepared.error();
  const bool from_stdin = s.args.front() == "-";
  const auto path = std::filesystem::absolute(from_stdin ? "." : s.args.front());
  prepared->folder = from_stdin ? path.string() : path.parent_path().string();
  return prepared;
}

}  // namespace

Expected<PreparedJob> prepare_job(const Context& ctx, const JobSource& source) {
  return source.image.empty() ? job_from_file(ctx, source) : job_from_image(ctx, source);
}

}  // namespace kpt::plugin
