#include "plugin/run/run_prepare.hpp"

#include "model/pytorchjob/release.hpp"
#include "plugin/context.hpp"
#include "plugin/doctor/doctor_defaults.hpp"
#include "plugin/follow/job_kind.hpp"
#include "plugin/run/job_builder.hpp"
#include "plugin/validate/diagnostic_output.hpp"
#include "plugin/validate/live_validate.hpp"
#include "plugin/validate/validate_runner.hpp"
#include "schema/carried/carried_trainer_schema.hpp"
#include "util/json_access.hpp"
#include "util/messages.hpp"
#include "util/strings.hpp"
#include "yaml/input_files.hpp"
#include "yaml/manifest_reader.hpp"
#include "yaml/node_json.hpp"
#include "yaml/yaml_writer.hpp"

#include <filesystem>
#include <memory>
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

/// What the job is checked for: the target `run` creates it on. --local is our controller (worker-only
/// env, images not pulled); otherwise the cluster's, detected as validate detects it (the same release and
/// the same lints made moot), so validate and run give one verdict for one target.
struct RunTarget {
  ValidateSettings settings;
  std::shared_ptr<const schema::SchemaSet> live;  ///< the cluster's PyTorchJob schema, when it has one
  bool ours = false;           ///< our controller runs the job: worker-only jobs get their env
  bool local_cluster = false;  ///< the kubeconfig's cluster is the local one: pods run on this machine
};

Expected<RunTarget> run_target(const Context& ctx, const JobSource& s, bool trainer) {
  RunTarget out;
  out.settings = default_validate_settings();
  auto& settings = out.settings;
  if (!s.operator_release.empty()) {
    auto release = model::pytorchjob::parse_release(s.operator_release);
    if (!release) {
      return make_error(ErrorCode::usage, "unknown operator release " + util::quote(s.operator_release) +
                                              " (known: " + model::pytorchjob::known_releases_list() + ")");
    }
    settings.rules.release = *release;
  }
  if (s.local) {
    // Locally our controller injects the worker-only env and the image is not pulled.
    out.ours = true;
    settings.rules.disabled.insert("lint.worker-only-no-master-env");
    settings.rules.disabled.insert("lint.image-placeholder");
    settings.rules.disabled.insert("lint.image-unpinned");
    return out;
  }
  ClusterDefaults cluster = consult_cluster(ctx);
  if (cluster.detection) {
    const auto dir =
        schema_cache_dir(ctx.connection.cache_dir, ctx.getenv("KUBECACHEDIR"), ctx.getenv("HOME"));
    if (auto live = cluster_schema(cluster, dir, ctx)) {
      out.live = std::make_shared<const schema::SchemaSet>(std::move(live->set));
      settings.schemas = out.live.get();
    }
  }
  if (s.operator_release.empty()) {
    settings.rules.release = default_release(cluster, ctx);
    out.ours = ours_worker_only(cluster);
    out.local_cluster = is_local_cluster(cluster);
    for (auto& id : lints_moot_for(cluster)) settings.rules.disabled.insert(std::move(id));
  }
  if (trainer) {
    settings.trainer.release = default_trainer_release(cluster, ctx);
    settings.fallback_schemas = &schema::carried_trainer_schema(settings.trainer.release);
  }
  return out;
}

// Prints the input's findings on ctx.err; errors stop the run unless --force.
Expected<void> check_input(const Context& ctx, const JobSource& s, const ValidateSettings& settings,
                           const yaml::InputFile& input) {
  Report report;
  report.files.push_back(validate_file(input, settings));
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
  auto target = run_target(ctx, s, trainjob);
  if (!target) return target.error();
  Expected<json> job = json{};
  if (!trainjob) {
    // The Training Operator gives a worker-only job no MASTER_ADDR/RANK/WORLD_SIZE: there the job
    // gets a Master, as the worker-only lint asks; our controller runs worker-only jobs as they are.
    r.with_master = !target->ours;
    util::print_note(ctx.err, "--image sets spec.runPolicy.backoffLimit " + std::to_string(r.backoff_limit) +
                                  ": the job fails after that many restarts instead of restarting forever");
    job = build_job(r);
  } else {
    r.workers = s.nodes > 0 ? s.nodes : 1;
    r.runtime = s.runtime.empty() ? "torch-distributed" : s.runtime;
    job = build_trainjob(r);
  }
  if (!job) return job.error();
  // The built job is checked as a FILE would be: what run creates, validate accepts.
  const yaml::InputFile built{"<--image job>", std::make_shared<const std::string>(yaml::to_yaml(*job)),
                              false};
  if (auto checked = check_input(ctx, s, target->settings, built); !checked) return checked.error();
  return PreparedJob{std::move(*job), std::filesystem::current_path().string(), target->local_cluster, {}};
}

bool is_runtime(const json& doc) {
  if (!doc.is_object()) return false;
  const std::string kind = util::string_at(doc, "kind");
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
  const auto& input = inputs->front();
  const bool trainer =
      input.text != nullptr && input.text->find("trainer.kubeflow.org/") != std::string::npos;
  auto target = run_target(ctx, s, trainer);
  if (!target) return target.error();
  if (auto checked = check_input(ctx, s, target->settings, input); !checked) return checked.error();
  auto prepared = the_one_job(inputs->front());
  if (!prepared) return prepared.error();
  const bool from_stdin = s.args.front() == "-";
  const auto path = std::filesystem::absolute(from_stdin ? "." : s.args.front());
  prepared->folder = from_stdin ? path.string() : path.parent_path().string();
  prepared->local_cluster = target->local_cluster;
  return prepared;
}

}  // namespace

Expected<PreparedJob> prepare_job(const Context& ctx, const JobSource& source) {
  return source.image.empty() ? job_from_file(ctx, source) : job_from_image(ctx, source);
}

}  // namespace kpt::plugin
