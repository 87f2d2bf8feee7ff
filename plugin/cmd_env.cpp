// kubectl pytorch env FILE|JOB: the exact env of every replica pod of a PyTorchJob for an operator release
// or a style, or of every node pod of a TrainJob for a Trainer release.
#include "model/k8s/object_meta.hpp"
#include "model/pytorchjob/env.hpp"
#include "model/pytorchjob/env_style.hpp"
#include "plugin/commands.hpp"
#include "plugin/context.hpp"
#include "plugin/doctor/doctor_defaults.hpp"
#include "plugin/env/env_live.hpp"
#include "plugin/env/env_output.hpp"
#include "plugin/env/trainjob_env.hpp"
#include "plugin/failure.hpp"
#include "plugin/job_target.hpp"
#include "plugin/manifest_objects.hpp"
#include "plugin/plugin.hpp"
#include "plugin/structured_output.hpp"
#include "util/json_access.hpp"
#include "util/strings.hpp"
#include "yaml/input_files.hpp"

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <ostream>

namespace kpt::plugin {

namespace {

struct EnvOptions {
  std::string target;
  std::vector<std::string> runtime_files;  ///< -f: TrainingRuntimes and ClusterTrainingRuntimes
  std::string trainer_release;
  std::string operator_release;
  std::string style;
  std::string pod;
  std::string output = "table";
  bool live = false;
  bool local = false;
  bool offline = false;
};

Expected<std::vector<nlohmann::json>> read_objects(Context& ctx, const std::string& path) {
  return read_manifest_objects(path, ctx.in);
}

bool is_kind(const nlohmann::json& object, const char* kind) {
  return util::string_at(object, "kind") == kind;
}

/// A job and the runtimes the input holds beside it (TrainJobs only).
struct LoadedJob {
  nlohmann::json job;
  model::trainjob::AvailableRuntimes runtimes;
  [[nodiscard]] bool is_trainjob() const { return is_kind(job, "TrainJob"); }
};

/// Objects without a namespace land in the one kubectl would use.
void default_namespace(nlohmann::json& object, const std::string& ns) {
  auto& meta = object["metadata"];
  if (!meta.is_object()) meta = nlohmann::json::object();
  if (!meta.contains("namespace") || !meta["namespace"].is_string() || meta["namespace"] == "")
    meta["namespace"] = ns;
}

void add_runtimes(model::trainjob::AvailableRuntimes& runtimes, std::vector<nlohmann::json>& objects,
                  const std::string& ns) {
  for (auto& o : objects) {
    if (is_kind(o, "TrainingRuntime")) {
      default_namespace(o, ns);
      runtimes.training_runtimes.push_back(std::move(o));
    } else if (is_kind(o, "ClusterTrainingRuntime")) {
      runtimes.cluster_training_runtimes.push_back(std::move(o));
    }
  }
}

/// The one PyTorchJob or TrainJob in FILE, with the runtimes of FILE and of every -f file.
Expected<LoadedJob> read_job(Context& ctx, const EnvOptions& o) {
  auto objects = read_objects(ctx, o.target);
  if (!objects) return objects.error();
  std::vector<nlohmann::json> jobs;
  for (const auto& obj : *objects) {
    if (is_kind(obj, "PyTorchJob") || is_kind(obj, "TrainJob")) jobs.push_back(obj);
  }
  if (jobs.empty())
    return make_error(ErrorCode::usage, util::quote(o.target) + " holds no PyTorchJob or TrainJob");
  if (jobs.size() > 1) {
    return make_error(ErrorCode::usage, util::quote(o.target) + " holds " + std::to_string(jobs.size()) +
                                            " jobs: pass a file with one");
  }
  const std::string ns = ctx.connection.namespace_.empty() ? "default" : ctx.connection.namespace_;
  LoadedJob loaded{std::move(jobs.front()), {}};
  if (!loaded.is_trainjob()) return loaded;
  default_namespace(loaded.job, ns);
  add_runtimes(loaded.runtimes, *objects, ns);
  for (const auto& file : o.runtime_files) {
    auto more = read_objects(ctx, file);
    if (!more) return more.error();
    add_runtimes(loaded.runtimes, *more, ns);
  }
  return loaded;
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
  const auto release = default_release(cluster, ctx);
  if (cluster.detection && cluster.detection->verdict.ours) return cluster.detection->verdict.ours->style;
  return model::pytorchjob::EnvStyle{model::pytorchjob::StyleKind::operator_release, release};
}

using model::pytorchjob::ReplicaPodPlan;

// A job named in the cluster: a PyTorchJob, else a TrainJob of that name; neither: the PyTorchJob's 404.
Expected<LoadedJob> get_job(JobTarget& cluster, const std::string& name) {
  auto job = cluster.api->get(kube::resources::pytorchjobs(), cluster.ns, name);
  if (job) return LoadedJob{std::move(*job), {}};
  if (!kube::is_not_found(job.error())) return job.error();
  auto trainjob = cluster.api->get(kube::resources::trainjobs(), cluster.ns, name);
  if (!trainjob) return kube::is_not_found(trainjob.error()) ? job.error() : trainjob.error();
  return LoadedJob{std::move(*trainjob), {}};
}

// The job: from the cluster when TARGET names one there, else from the manifest file.
Expected<LoadedJob> load_job(Context& ctx, const EnvOptions& o, std::optional<JobTarget>& cluster) {
  const bool from_cluster = is_job_name(o.target);
  if (from_cluster || o.live) {
    auto opened = open_job_target(ctx, o.local);
    if (!opened) return opened.error();
    cluster = std::move(*opened);
  }
  if (!from_cluster) return read_job(ctx, o);
  auto loaded = get_job(*cluster, o.target);
  if (!loaded || !loaded->is_trainjob()) return loaded;
  for (const auto& file : o.runtime_files) {
    auto more = read_objects(ctx, file);
    if (!more) return more.error();
    add_runtimes(loaded->runtimes, *more, cluster->ns);
  }
  return loaded;
}

// --pod NAME: only that pod's plan.
Expected<std::vector<ReplicaPodPlan>> pick_pod(std::vector<ReplicaPodPlan> pods, const std::string& pod,
                                               const std::string& job) {
  if (pod.empty()) return pods;
  std::vector<std::string> names;
  std::vector<ReplicaPodPlan> picked;
  for (auto& p : pods) {
    names.push_back(p.name);
    // The short replica name (`worker-0`) as `logs --replica` takes it, or the pod's own name.
    if (p.name == pod || p.name == job + "-" + pod) picked.push_back(std::move(p));
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
    if (o.pod.empty() || pod.name == o.pod || pod.name == job + "-" + o.pod) live.push_back(std::move(pod));
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
  if (o.output == "json" || o.output == "yaml") {
    write_structured(ctx.out, o.output, [&](std::ostream& out) { write_env_json(out, style, pods); });
    return exit_code::ok;
  }
  ctx.out << "style: " << model::pytorchjob::to_string(style) << "\n\n";
  write_env_table(ctx.out, pods, ctx.colour_out());
  auto notes = model::pytorchjob::explain_env(spec, style);
  for (auto& n : duplicate_notes(pods)) notes.push_back(std::move(n));
  if (!notes.empty()) ctx.out << "\n";
  ctx.out << util::note_lines(notes);
  return exit_code::ok;
}

Expected<model::trainjob::TrainerRelease> chosen_trainer(const EnvOptions& o, Context& ctx) {
  if (o.trainer_release.empty()) {
    // The release doctor detects in the cluster; --local and --offline never ask it.
    return o.local || o.offline ? model::trainjob::k_newest_trainer_release
                                : default_trainer_release(consult_cluster(ctx), ctx);
  }
  const auto parsed = model::trainjob::parse_trainer_release(o.trainer_release);
  if (!parsed) {
    return make_error(ErrorCode::usage, "unknown Trainer release " + util::quote(o.trainer_release) +
                                            "; known: " + model::trainjob::known_trainer_releases_list());
  }
  return *parsed;
}

// The runtime the TrainJob names: the input's, the cluster's (when one is open), or a carried one.
Expected<FoundRuntime> trainjob_runtime(const LoadedJob& loaded, std::optional<JobTarget>& cluster,
                                        model::trainjob::TrainerRelease release) {
  RuntimeLookup lookup;
  if (cluster) {
    lookup = [&cluster](const model::trainjob::RuntimeRef& ref) -> Expected<nlohmann::json> {
      const bool namespaced = ref.kind == "TrainingRuntime";
      const auto resource =
          namespaced ? kube::resources::trainingruntimes() : kube::resources::clustertrainingruntimes();
      auto got = cluster->api->get(resource, namespaced ? cluster->ns : "", ref.name);
      if (!got && kube::is_not_found(got.error()))
        return make_error(ErrorCode::not_found, got.error().message);
      return got;
    };
  }
  return find_trainjob_runtime(loaded.job, loaded.runtimes, lookup, release);
}

// --pod NAME (a hostname or the pod name shown): only that pod.
Expected<std::vector<EnvTablePod>> pick_trainjob_pod(std::vector<EnvTablePod> rows, const std::string& pod,
                                                     const std::string& job) {
  if (pod.empty()) return rows;
  std::vector<std::string> names;
  for (auto& r : rows) {
    names.push_back(r.key);
    if (r.key == pod || r.cells.front() == pod) return std::vector<EnvTablePod>{std::move(r)};
  }
  return make_error(ErrorCode::usage, "no pod " + util::quote(pod) + " in TrainJob " + util::quote(job) +
                                          " (hostnames: " + util::join(names, ", ") + ")");
}

// --live for a TrainJob: the node pods of its JobSet, matched by hostname; exit 1 on a difference.
int compare_trainjob_live(Context& ctx, const EnvOptions& o, JobTarget& cluster, const std::string& job,
                          const std::vector<EnvTablePod>& rows) {
  kube::ListOptions opts;
  opts.label_selector = "jobset.sigs.k8s.io/jobset-name=" + job;
  auto listed = cluster.api->list(kube::resources::pods(), cluster.ns, opts);
  if (!listed) return fail(ctx, listed.error());
  std::vector<LivePod> live;
  for (const auto& item : listed->items) {
    auto pod = live_trainjob_pod(item);
    if (pod && (o.pod.empty() || pod->name == rows.front().key)) live.push_back(std::move(*pod));
  }
  const auto result = compare_live_env(rows, live, "the model");
  for (const auto& line : result.lines) ctx.out << line << "\n";
  return result.differs ? exit_code::findings : exit_code::ok;
}

int run_trainjob_env(Context& ctx, const EnvOptions& o, const LoadedJob& loaded,
                     std::optional<JobTarget>& cluster) {
  if (!o.operator_release.empty() || !o.style.empty()) {
    return fail_usage(ctx, "--operator and --style are for PyTorchJobs; a TrainJob takes --trainer vX.Y.Z");
  }
  const auto release = chosen_trainer(o, ctx);
  if (!release) return fail(ctx, release.error());
  const std::string name = model::k8s::meta_string(loaded.job, "name");
  auto runtime = trainjob_runtime(loaded, cluster, *release);
  if (!runtime) return fail(ctx, runtime.error().context("TrainJob " + util::quote(name)));
  auto plan = model::trainjob::plan_env(loaded.job, runtime->runtime, *release);
  if (!plan) return fail(ctx, plan.error().context("TrainJob " + util::quote(name)));
  auto rows = pick_trainjob_pod(trainjob_env_rows(*plan), o.pod, name);
  if (!rows) return fail(ctx, rows.error());
  if (o.live) return compare_trainjob_live(ctx, o, *cluster, name, *rows);
  if (o.output == "dotenv") {
    if (o.pod.empty()) return fail(ctx, make_error(ErrorCode::usage, "-o dotenv needs --pod NAME"));
    write_env_dotenv(ctx.out, rows->front().env);
    return exit_code::ok;
  }
  if (o.output == "json" || o.output == "yaml") {
    write_structured(ctx.out, o.output, [&](std::ostream& out) {
      write_trainjob_env_json(out, *plan, *release, loaded.job, *runtime);
    });
    return exit_code::ok;
  }
  for (const auto& line : trainjob_env_heading(*plan, *release, loaded.job, *runtime))
    ctx.out << line << "\n";
  ctx.out << "\n";
  write_env_table(ctx.out, trainjob_env_header(), *rows, ctx.colour_out());
  if (!plan->notes.empty()) ctx.out << "\n";
  ctx.out << util::note_lines(plan->notes);
  return exit_code::ok;
}

int run_pytorchjob_env(Context& ctx, const EnvOptions& o, const nlohmann::json& job,
                       std::optional<JobTarget>& cluster) {
  if (!o.trainer_release.empty() || !o.runtime_files.empty()) {
    return fail_usage(ctx, "--trainer and -f are for TrainJobs; a PyTorchJob takes --operator or --style");
  }
  const auto style = chosen_style(o, ctx);
  if (!style) return fail(ctx, style.error());
  const auto spec = model::pytorchjob::parse_job(job);
  if (!spec) return fail(ctx, spec.error().context(util::quote(o.target)));
  auto plan = model::pytorchjob::plan_replica_pods(job, *style);
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

int run_env(Context& ctx, const EnvOptions& o) {
  if (o.output != "table" && o.output != "json" && o.output != "yaml" && o.output != "dotenv") {
    return fail(ctx, make_error(ErrorCode::usage, "unknown output format " + util::quote(o.output) +
                                                      " (known: table, json, yaml, dotenv)"));
  }
  std::optional<JobTarget> cluster;
  auto loaded = load_job(ctx, o, cluster);
  if (!loaded) return fail(ctx, loaded.error());
  if (loaded->is_trainjob()) return run_trainjob_env(ctx, o, *loaded, cluster);
  return run_pytorchjob_env(ctx, o, loaded->job, cluster);
}

}  // namespace

void add_env_command(CLI::App& app, Context& ctx) {
  auto opts = std::make_shared<EnvOptions>();
  auto* cmd =
      app.add_subcommand("env", "Show the exact env of every pod of a PyTorchJob or TrainJob, and why");
  cmd->add_option("target", opts->target,
                  "Manifest file with one PyTorchJob or TrainJob ('-' for stdin), or the name of one in the "
                  "cluster")
      ->required();
  cmd->add_option("-f,--runtime", opts->runtime_files,
                  "TrainJob: a file with the TrainingRuntime or ClusterTrainingRuntime it names (repeatable; "
                  "else the input's, the cluster's with --live or a job name, or the carried defaults)");
  cmd->add_option("--trainer", opts->trainer_release,
                  "TrainJob: the Kubeflow Trainer release to model, " +
                      model::trainjob::known_trainer_releases_list() +
                      " (default: the one detected in the cluster, else " +
                      model::trainjob::k_newest_trainer_release.to_string() + ")");
  auto* op = cmd->add_option("--operator", opts->operator_release,
                             "Operator release to model, v1.3.0 ... v1.9.4 (default: the one detected in the "
                             "cluster, else v1.9.4; with --live and no operator: worker-only)");
  cmd->add_option("--style", opts->style, "Env style: worker-only, legacy, torchrun or operator@vX.Y.Z")
      ->excludes(op);
  cmd->add_option("--pod", opts->pod,
                  "Only this pod: its name or its replica's (worker-0; required for -o dotenv)");
  cmd->add_option("-o,--output", opts->output, "Output format: table (default), json, yaml or dotenv")
      ->type_name("FORMAT");
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
      "...\n"
      "A TrainJob: each node pod (name prefix, hostname, node rank, headless Service), the env of container\n"
      "node in pod order with fieldRefs read on that pod, the master address and port, and notes;\n"
      "-o json: {\"kind\", \"name\", \"trainer\", \"runtime\", \"framework\", \"masterAddr\", "
      "\"masterPort\", "
      "\"pods\", \"notes\"}; --pod takes a hostname.\n"
      "Examples:\n"
      "  kubectl pytorch env job.yaml                     # every pod's env under the detected release\n"
      "  kubectl pytorch env job.yaml --operator v1.7.0 --offline   # a release, without a cluster\n"
      "  env -i $(kubectl pytorch env job.yaml -o dotenv --pod worker-1) python3 train.py\n"
      "  kubectl pytorch env job.yaml --live              # the running pods' env against the expectation\n"
      "Exit codes: 0 printed; 1 --live found a pod whose env differs, or the runtime or the cluster cannot "
      "be\n"
      "read; 2 usage or I/O error (a bad flag, an unreadable file, no usable kubeconfig).");
  cmd->callback([&ctx, opts] { ctx.exit_code = run_env(ctx, *opts); });
}

}  // namespace kpt::plugin
