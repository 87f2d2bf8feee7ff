// kubectl pytorch env FILE|JOB: the exact env of every replica pod for an operator release or a style.
#include "model/pytorchjob/env.hpp"
#include "model/pytorchjob/env_style.hpp"
#include "plugin/commands.hpp"
#include "plugin/context.hpp"
#include "plugin/doctor_defaults.hpp"
#include "plugin/env_live.hpp"
#include "plugin/env_output.hpp"
#include "plugin/failure.hpp"
#include "plugin/job_target.hpp"
#include "plugin/plugin.hpp"
#include "util/strings.hpp"
#include "yaml/input_files.hpp"
#include "yaml/manifest_reader.hpp"
#include "yaml/node_json.hpp"

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <ostream>

namespace kpt::plugin {

namespace {

struct EnvOptions {
  std::string target;
  std::string operator_release;
  std::string style;
  std::string pod;
  std::string output = "table";
  bool live = false;
  bool local = false;
  bool offline = false;
};

/// The one PyTorchJob in FILE ("-" = stdin). Reader findings of error severity are printed and fail.
Expected<nlohmann::json> read_job(Context& ctx, const std::string& path) {
  auto disk = yaml::make_disk_reader();
  const yaml::ReadLimits limits{};
  auto inputs = yaml::collect_inputs({path}, *disk, ctx.in, limits.max_bytes);
  if (!inputs) return inputs.error();
  std::vector<nlohmann::json> jobs;
  for (const auto& input : *inputs) {
    if (input.too_large) {
      return make_error(ErrorCode::limit, "reading " + util::quote(input.name) + ": larger than " +
                                              std::to_string(limits.max_bytes) + " bytes");
    }
    const auto read = yaml::read_manifests(input.name, input.text, limits);
    for (const auto& d : read.findings) {
      if (d.severity != Severity::error) continue;
      return make_error(ErrorCode::parse, d.location.file + ":" + std::to_string(d.location.line) + ":" +
                                              std::to_string(d.location.col) + ": " + d.message);
    }
    for (const auto& doc : read.documents) {
      nlohmann::json j = yaml::to_json(doc.root);
      if (j.is_object() && j.value("kind", "") == "PyTorchJob") jobs.push_back(std::move(j));
    }
  }
  if (jobs.empty()) return make_error(ErrorCode::usage, util::quote(path) + " holds no PyTorchJob");
  if (jobs.size() > 1) {
    return make_error(ErrorCode::usage, util::quote(path) + " holds " + std::to_string(jobs.size()) +
                                            " PyTorchJobs: pass a file with one");
  }
  return std::move(jobs.front());
}

/// True when TARGET names a job in the cluster rather than a manifest file.
bool is_job_name(const std::string& target) {
  if (target == "-" || target.find('/') != std::string::npos) return false;
  for (const char* ext : {".yaml", ".yml", ".json"}) {
    const std::string e = ext;
    if (target.size() > e.size() && target.compare(target.size() - e.size(), e.size(), e) == 0) return false;
  }
  return yaml::make_disk_reader()->kind(target) == yaml::FileReader::Kind::missing;
}

Expected<model::pytorchjob::EnvStyle> chosen_style(const EnvOptions& o, Context& ctx) {
  if (!o.operator_release.empty()) {
    const auto release = model::pytorchjob::parse_release(o.operator_release);
    if (!release) {
      return make_error(ErrorCode::usage, "unknown operator release " + util::quote(o.operator_release) +
                                              " (known: " + model::pytorchjob::known_releases_list() + ")");
    }
    return model::pytorchjob::EnvStyle{model::pytorchjob::StyleKind::operator_release, *release};
  }
  if (!o.style.empty()) {
    const auto style = model::pytorchjob::parse_style(o.style);
    if (!style) {
      return make_error(ErrorCode::usage, "unknown style " + util::quote(o.style) +
                                              " (known: " + model::pytorchjob::known_styles_list() + ")");
    }
    return *style;
  }
  // The release doctor detects in the cluster; --local and --offline never ask it.
  ClusterDefaults cluster;
  if (!o.local && !o.offline) cluster = consult_cluster(ctx);
  const bool detected = cluster.detection && cluster.detection->verdict.release;
  if (o.live && !detected) {
    return model::pytorchjob::EnvStyle{model::pytorchjob::StyleKind::worker_only,
                                       model::pytorchjob::k_newest_release};  // our controller made the pods
  }
  return model::pytorchjob::EnvStyle{model::pytorchjob::StyleKind::operator_release,
                                     default_release(cluster, ctx)};
}

using model::pytorchjob::ReplicaPodPlan;

// The job: from the cluster when TARGET names one there, else from the manifest file.
Expected<nlohmann::json> load_job(Context& ctx, const EnvOptions& o, std::optional<JobTarget>& cluster) {
  const bool from_cluster = is_job_name(o.target);
  if (from_cluster || o.live) {
    auto opened = open_job_target(ctx, o.local);
    if (!opened) return opened.error();
    cluster = std::move(*opened);
  }
  if (!from_cluster) return read_job(ctx, o.target);
  return cluster->api->get(kube::resources::pytorchjobs(), cluster->ns, o.target);
}

// --pod NAME: only that pod's plan.
Expected<std::vector<ReplicaPodPlan>> pick_pod(std::vector<ReplicaPodPlan> pods, const std::string& pod,
                                               const std::string& job) {
  if (pod.empty()) return pods;
  std::vector<std::string> names;
  std::vector<ReplicaPodPlan> picked;
  for (auto& p : pods) {
    names.push_back(p.name);
    if (p.name == pod) picked.push_back(std::move(p));
  }
  if (picked.empty()) {
    return make_error(ErrorCode::usage, "no pod " + util::quote(pod) + " in job " + util::quote(job) +
                                            " (pods: " + util::join(names, ", ") + ")");
  }
  return picked;
}

// --live: the pods' env in the cluster against the plan; exit 1 on a difference.
int compare_live(Context& ctx, const EnvOptions& o, JobTarget& cluster, const std::string& job,
                 const model::pytorchjob::EnvStyle& style, const std::vector<ReplicaPodPlan>& pods) {
  kube::ListOptions opts;
  opts.label_selector = "training.kubeflow.org/job-name=" + job;
  auto listed = cluster.api->list(kube::resources::pods(), cluster.ns, opts);
  if (!listed) return fail(ctx, listed.error());
  std::vector<LivePod> live;
  for (const auto& item : listed->items) {
    auto pod = live_pod_from_json(item);
    if (o.pod.empty() || pod.name == o.pod) live.push_back(std::move(pod));
  }
  const auto result = compare_live_env(pods, live);
  ctx.out << "style: " << model::pytorchjob::to_string(style) << "\n";
  for (const auto& line : result.lines) ctx.out << line << "\n";
  return result.differs ? exit_code::findings : exit_code::ok;
}

int print_env(Context& ctx, const EnvOptions& o, const model::pytorchjob::JobSpec& spec,
              const model::pytorchjob::EnvStyle& style, const std::vector<ReplicaPodPlan>& pods) {
  if (o.output == "dotenv") {
    if (o.pod.empty()) return fail(ctx, make_error(ErrorCode::usage, "-o dotenv needs --pod NAME"));
    write_env_dotenv(ctx.out, pods.front());
    return exit_code::ok;
  }
  if (o.output == "json") {
    write_env_json(ctx.out, style, pods);
    return exit_code::ok;
  }
  ctx.out << "style: " << model::pytorchjob::to_string(style) << "\n\n";
  write_env_table(ctx.out, pods, ctx.colour_out());
  auto notes = model::pytorchjob::explain_env(spec, style);
  for (auto& n : duplicate_notes(pods)) notes.push_back(std::move(n));
  if (!notes.empty()) ctx.out << "\n";
  for (const auto& n : notes) ctx.out << "note: " << n << "\n";
  return exit_code::ok;
}

int run_env(Context& ctx, const EnvOptions& o) {
  if (o.output != "table" && o.output != "json" && o.output != "dotenv") {
    return fail(ctx, make_error(ErrorCode::usage, "unknown output format " + util::quote(o.output) +
                                                      " (known: table, json, dotenv)"));
  }
  const auto style = chosen_style(o, ctx);
  if (!style) return fail(ctx, style.error());
  std::optional<JobTarget> cluster;
  auto job = load_job(ctx, o, cluster);
  if (!job) return fail(ctx, job.error());
  const auto spec = model::pytorchjob::parse_job(*job);
  if (!spec) return fail(ctx, spec.error().context(util::quote(o.target)));
  auto plan = model::pytorchjob::plan_replica_pods(*job, *style);
  if (!plan) {  // the operator would not run this job: a finding about it, not a usage error
    Error e = plan.error();
    e.code = ErrorCode::invalid;
    return fail(ctx, e);
  }
  auto pods = pick_pod(std::move(*plan), o.pod, spec->name);
  if (!pods) return fail(ctx, pods.error());
  if (o.live) return compare_live(ctx, o, *cluster, spec->name, *style, *pods);
  return print_env(ctx, o, *spec, *style, *pods);
}

}  // namespace

void add_env_command(CLI::App& app, Context& ctx) {
  auto opts = std::make_shared<EnvOptions>();
  auto* cmd = app.add_subcommand("env", "Show the exact env of every replica pod of a PyTorchJob, and why");
  cmd->add_option(
         "target", opts->target,
         "Manifest file with one PyTorchJob ('-' for stdin), or the name of a PyTorchJob in the cluster")
      ->required();
  auto* op = cmd->add_option("--operator", opts->operator_release,
                             "Operator release to model, v1.3.0 ... v1.9.4 (default: the one detected in the "
                             "cluster, else v1.9.4; with --live and no operator: worker-only)");
  cmd->add_option("--style", opts->style, "Env style: worker-only, legacy, torchrun or operator@vX.Y.Z")
      ->excludes(op);
  cmd->add_option("--pod", opts->pod, "Only this pod (required for -o dotenv)");
  cmd->add_option("-o,--output", opts->output, "Output format: table, json or dotenv");
  cmd->add_flag("--live", opts->live,
                "Compare each pod's env in the cluster with the expectation (default style worker-only); "
                "exit 1 on any difference");
  cmd->add_flag("--local", opts->local, "Read the job and its pods from the embedded cluster");
  cmd->add_flag("--offline", opts->offline, "Do not ask the cluster which operator release it runs");
  cmd->footer(
      "The table shows each pod's variables in pod-spec order: the user's own env first, then what the\n"
      "style injects. Notes below the table say which init method works and what is missing.\n"
      "-o json: {\"style\", \"pods\": [{\"name\", \"replicaType\", \"index\", \"rank\", \"service\", "
      "\"env\"}]}.\n"
      "-o dotenv --pod NAME: NAME=value lines, e.g. env -i $(kubectl pytorch env job.yaml -o dotenv --pod P) "
      "...");
  cmd->callback([&ctx, opts] { ctx.exit_code = run_env(ctx, *opts); });
}

}  // namespace kpt::plugin
