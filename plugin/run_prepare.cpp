#include "plugin/run_prepare.hpp"

#include "model/pytorchjob/release.hpp"
#include "plugin/context.hpp"
#include "plugin/diagnostic_output.hpp"
#include "plugin/job_builder.hpp"
#include "plugin/validate_runner.hpp"
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

Expected<PreparedJob> job_from_image(const Context& ctx, const JobSource& s) {
  if (s.args.empty()) return make_error(ErrorCode::usage, "--image needs the command after '--'");
  if (s.workers < 1) return make_error(ErrorCode::usage, "--workers must be at least 1");
  JobRequest r;
  r.name = s.name.empty() ? "pytorch-" + random_suffix() : s.name;
  r.ns = ctx.connection.namespace_;
  r.image = s.image;
  r.workers = s.workers;
  r.nproc_per_node = s.nproc_per_node;
  r.command = s.args;
  return PreparedJob{build_job(r), std::filesystem::current_path().string()};
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

// `run` follows PyTorchJobs; a TrainJob gets the commands that run and follow it today.
Error not_yet_trainjob(const yaml::InputFile& input, const json& trainjob) {
  const std::string name = trainjob.value("metadata", json::object()).value("name", "NAME");
  return make_error(ErrorCode::usage,
                    "'" + input.name +
                        "' holds a TrainJob: run follows PyTorchJobs only so far; run it with "
                        "'kubectl apply -f " +
                        input.name +
                        "' (the local cluster serves TrainJobs too) and follow it with "
                        "'kubectl logs -f -l jobset.sigs.k8s.io/jobset-name=" +
                        name + " --prefix'");
}

Expected<json> the_one_job(const yaml::InputFile& input) {
  auto read = yaml::read_manifests(input);
  std::vector<json> jobs;
  std::optional<json> trainjob;
  for (const auto& doc : expand_lists(std::move(read.documents))) {
    json j = yaml::to_json(doc.root);
    if (j.is_object() && j.value("kind", "") == "PyTorchJob") jobs.push_back(std::move(j));
    if (j.is_object() && j.value("kind", "") == "TrainJob" && !trainjob) trainjob = std::move(j);
  }
  if (jobs.empty() && trainjob) return not_yet_trainjob(input, *trainjob);
  if (jobs.size() != 1) {
    return make_error(ErrorCode::usage, "'" + input.name + "' holds " + std::to_string(jobs.size()) +
                                            " PyTorchJobs; run takes exactly one");
  }
  return std::move(jobs.front());
}

Expected<PreparedJob> job_from_file(const Context& ctx, const JobSource& s) {
  if (s.args.size() != 1)
    return make_error(ErrorCode::usage, "run takes one FILE (or --image IMG -- CMD...)");
  auto fs = yaml::make_disk_reader();
  auto inputs = yaml::collect_inputs(s.args, *fs, ctx.in, yaml::ReadLimits{}.max_bytes);
  if (!inputs) return inputs.error();
  if (auto checked = check_manifest(ctx, s, inputs->front()); !checked) return checked.error();
  auto job = the_one_job(inputs->front());
  if (!job) return job.error();
  const bool from_stdin = s.args.front() == "-";
  const auto path = std::filesystem::absolute(from_stdin ? "." : s.args.front());
  return PreparedJob{std::move(*job), from_stdin ? path.string() : path.parent_path().string()};
}

}  // namespace

Expected<PreparedJob> prepare_job(const Context& ctx, const JobSource& source) {
  return source.image.empty() ? job_from_file(ctx, source) : job_from_image(ctx, source);
}

}  // namespace kpt::plugin
