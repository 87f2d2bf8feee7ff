// `run FILE` / `run --image IMG -- CMD`: validate, server-side apply, follow to the end.
#include "local/cluster_paths.hpp"
#include "local/embedded_cluster.hpp"
#include "local/pod_spec.hpp"
#include "model/k8s/object_meta.hpp"
#include "plugin/commands.hpp"
#include "plugin/context.hpp"
#include "plugin/failure.hpp"
#include "plugin/follow/diagnosis_output.hpp"
#include "plugin/follow/job_follower.hpp"
#include "plugin/follow/job_kind.hpp"
#include "plugin/follow/progress_hook.hpp"
#include "plugin/interrupt.hpp"
#include "plugin/job_hints.hpp"
#include "plugin/job_target.hpp"
#include "plugin/plugin.hpp"
#include "plugin/run/run_prepare.hpp"
#include "util/json_access.hpp"
#include "util/messages.hpp"
#include "util/strings.hpp"
#include "util/time.hpp"
#include "yaml/yaml_writer.hpp"

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <ostream>
#include <thread>

namespace kpt::plugin {

namespace {

using nlohmann::json;

struct RunFlags {
  JobSource source;
  std::string timeout;
  std::string pending_timeout = "5m";
  std::string stall_timeout;  ///< empty: warn after k_default_stall; given: end the follow
  bool detach = false;
  bool rm = false;
  bool replace = false;  ///< a running job the manifest changes is deleted and created again
  std::string dry_run = "none";
  std::string output;  ///< -o: yaml, json or name; default yaml for --dry-run, NAME for --detach
  bool force_conflicts = false;
  std::string workdir;
  std::string progress;  ///< --progress REGEX
};

// A rank silent this long is named in a warning unless --stall-timeout says otherwise: longer
// than a cold start of Python and torch, or an evaluation pass that prints nothing.
constexpr std::chrono::minutes k_default_stall{5};

struct Deadlines {
  std::optional<std::chrono::milliseconds> timeout;
  std::chrono::milliseconds pending{};
  std::chrono::milliseconds stall{k_default_stall};
  bool stall_ends = false;                          ///< --stall-timeout given: a silent rank ends the follow
  std::shared_ptr<const ProgressPattern> progress;  ///< --progress, compiled
};

Expected<Deadlines> check_flags(const RunFlags& f) {
  if (f.dry_run != "none" && f.dry_run != "client" && f.dry_run != "server")
    return make_error(ErrorCode::usage, "--dry-run must be none, client or server");
  if (!f.output.empty() && f.output != "yaml" && f.output != "json" && f.output != "name")
    return make_error(ErrorCode::usage, "-o must be yaml, json or name");
  Deadlines d;
  if (!f.timeout.empty()) {
    auto ms = util::parse_duration_ms(f.timeout);
    if (!ms || *ms <= 0) {
      return make_error(ErrorCode::usage,
                        "invalid --timeout " + util::quote(f.timeout) + " (use e.g. 30s, 5m, 1h)");
    }
    d.timeout = std::chrono::milliseconds(*ms);
  }
  auto pending = util::parse_duration_ms(f.pending_timeout);
  if (!pending || *pending <= 0)
    return make_error(ErrorCode::usage, "invalid --pending-timeout " + util::quote(f.pending_timeout));
  d.pending = std::chrono::milliseconds(*pending);
  if (!f.stall_timeout.empty()) {
    auto stall = util::parse_duration_ms(f.stall_timeout);
    if (!stall || *stall <= 0) {
      return make_error(ErrorCode::usage,
                        "invalid --stall-timeout " + util::quote(f.stall_timeout) + " (use e.g. 90s, 10m)");
    }
    d.stall = std::chrono::milliseconds(*stall);
    d.stall_ends = true;
  }
  if (!f.progress.empty()) {
    auto pattern = ProgressPattern::compile(f.progress);
    if (!pattern) return pattern.error();
    d.progress = std::make_shared<const ProgressPattern>(std::move(*pattern));
  }
  return d;
}

// The manager of the runtime patch that tells a TrainJob's pods where to run locally.
constexpr const char* k_local_patch_manager = "local.kubectl-pytorch.io/run";

// A TrainJob's pod templates come from its runtime: the folder reaches its trainer pods through a
// runtime patch (the local cluster serves Trainer v2.3, where patches carry pod template metadata).
void localize_trainjob(json& job, const std::string& workdir) {
  json pod_meta = {{"annotations", {{local::k_workdir_annotation, workdir}}}};
  json patch = {
      {"manager", k_local_patch_manager},
      {"trainingRuntimeSpec",
       {{"template",
         {{"spec",
           {{"replicatedJobs",
             json::array({{{"name", "node"},
                           {"template", {{"spec", {{"template", {{"metadata", pod_meta}}}}}}}}})}}}}}}}};
  json& patches = job["spec"]["runtimePatches"];
  if (!patches.is_array()) patches = json::array();
  for (auto& existing : patches) {
    if (existing.is_object() && util::string_at(existing, "manager") == k_local_patch_manager) {
      existing = patch;
      return;
    }
  }
  patches.push_back(patch);
}

// The local cluster runs each container's command in a folder on this machine, named on the pod
// template: the manifest's (or --workdir), whether the cluster was started by --local or by `local up`.
void localize(const Context& ctx, const RunFlags& f, const std::string& folder, json& job) {
  const std::string workdir = f.workdir.empty() ? folder : std::filesystem::absolute(f.workdir).string();
  if (kind_of(job) == &trainjob_kind()) {
    localize_trainjob(job, workdir);
  } else {
    for (auto& [type, spec] : job["spec"]["pytorchReplicaSpecs"].items()) {
      (void)type;
      spec["template"]["metadata"]["annotations"][local::k_workdir_annotation] = workdir;
    }
  }
  if (f.dry_run != "client") {
    util::print_note(ctx.err,
                     std::string(f.source.local ? "--local" : "the local cluster") +
                         " ignores container images: each container's command runs as a local process in '" +
                         workdir + "'");
    if (local::find_nss_wrapper().empty()) util::print_warning(ctx.err, local::k_no_name_resolution_warning);
  }
}

kube::WriteOptions apply_options(const RunFlags& f) {
  kube::WriteOptions write;
  write.field_manager = "kubectl-pytorch";
  write.force = f.force_conflicts;
  write.field_validation = "Strict";
  write.dry_run = f.dry_run == "server";
  return write;
}

// Deletes the job and waits until it is gone, so that the same name can be created afresh.
Expected<void> delete_and_wait(kube::ApiClient& api, const JobKind& kind, const std::string& ns,
                               const std::string& name) {
  kube::DeleteOptions del;
  del.propagation_policy = "Foreground";
  if (auto r = api.remove(kind.resource(), ns, name, del); !r && !kube::is_not_found(r.error())) {
    return r.error();
  }
  for (int i = 0; i < 300; ++i) {  // bounded: 60 s
    auto again = api.get(kind.resource(), ns, name);
    if (!again && kube::is_not_found(again.error())) return {};
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  return make_error(ErrorCode::timeout, "the " + std::string(kind.singular) + " " + util::quote(name) +
                                            " was not deleted within 60s");
}

// Whether applying `job` would change the spec of `existing`: a server-side dry run of the
// apply, so that the server's defaults do not count as changes.
Expected<bool> changes_spec(kube::ApiClient& api, const JobKind& kind, const RunFlags& f,
                            const json& existing, const json& job) {
  kube::WriteOptions preview = apply_options(f);
  preview.dry_run = true;
  auto applied =
      api.patch(kind.resource(), model::k8s::meta_string(existing, "namespace"),
                model::k8s::meta_string(existing, "name"), kube::PatchType::apply, job.dump(), preview);
  (void)api.take_warnings();  // the real apply reports them
  if (!applied) return applied.error();
  return applied->value("spec", json::object()) != existing.value("spec", json::object());
}

// A job of the same name that apply cannot simply update: a finished one is replaced (running a
// manifest again runs it again); a running one whose spec the manifest changes would keep its old
// pods, so it is replaced only with --replace, and refused otherwise.
Expected<void> make_way(const Context& ctx, const RunFlags& f, kube::ApiClient& api, const JobKind& kind,
                        const json& job) {
  const std::string ns = model::k8s::meta_string(job, "namespace");
  const std::string name = model::k8s::meta_string(job, "name");
  auto existing = api.get(kind.resource(), ns, name);
  if (!existing) return {};
  if (is_finished(kind, *existing)) {
    ctx.err << kind.singular << " " << name << " had finished: replacing it\n";
    return delete_and_wait(api, kind, ns, name);
  }
  auto changed = changes_spec(api, kind, f, *existing, job);
  if (!changed) return changed.error();
  if (!*changed) return {};
  if (!f.replace) {
    return make_error(ErrorCode::invalid, std::string(kind.singular) + " " + util::quote(name) +
                                              " is running and the manifest changes its spec, which its pods "
                                              "would not get; run with --replace to delete and recreate it");
  }
  ctx.err << kind.singular << " " << name << " is running with another spec: replacing it (--replace)\n";
  return delete_and_wait(api, kind, ns, name);
}

// What -o asks for on stdout: the object (yaml, json), its resource name (name), or `fallback`.
void print_object(const Context& ctx, const RunFlags& f, const json& object, const std::string& fallback) {
  const std::string output = f.output.empty() ? fallback : f.output;
  const std::string name = model::k8s::meta_string(object, "name");
  if (output == "json") {
    ctx.out << object.dump(2) << "\n";
  } else if (output == "yaml") {
    ctx.out << yaml::to_yaml(object);
  } else {
    const JobKind* kind = kind_of(object);
    ctx.out << (output == "name" && kind != nullptr ? resource_name(*kind, name) : name) << "\n";
  }
}

struct Applied {
  json object;
  bool existed = false;
};

// Server-side apply (a re-run of the same manifest is a no-op); make_way first, unless a dry run.
Expected<Applied> apply_job(const Context& ctx, const RunFlags& f, kube::ApiClient& api, const JobKind& kind,
                            const json& job) {
  const std::string ns = model::k8s::meta_string(job, "namespace");
  const std::string name = model::k8s::meta_string(job, "name");
  if (f.dry_run == "none") {
    if (auto made = make_way(ctx, f, api, kind, job); !made) return made.error();
  }
  Applied out;
  out.existed = static_cast<bool>(api.get(kind.resource(), ns, name));
  auto applied = api.patch(kind.resource(), ns, name, kube::PatchType::apply, job.dump(), apply_options(f));
  for (const auto& w : api.take_warnings()) ctx.err << "Warning: " << w << "\n";
  if (!applied) return applied.error();
  out.object = std::move(*applied);
  return out;
}

void remove_job(const Context& ctx, kube::ApiClient& api, const JobKind& kind, const std::string& ns,
                const std::string& name) {
  kube::DeleteOptions del;
  del.propagation_policy = "Foreground";
  if (auto r = api.remove(kind.resource(), ns, name, del); r || kube::is_not_found(r.error())) {
    ctx.err << resource_name(kind, name) << " deleted\n";
  } else {
    util::print_warning(ctx.err,
                        std::string("deleting ") + kind.singular + " " + name + ": " + r.error().message);
  }
}

// Timeout, Ctrl-C, a stall or a crash loop: the job keeps running (unless --rm), and how to get
// back to it.
int left_running(const Context& ctx, const RunFlags& f, JobTarget& target, const JobKind& kind,
                 const std::string& name, const FollowResult& result) {
  const std::string what = f.rm ? "deleting the job (--rm)" : "the job keeps running";
  if (result.end == FollowEnd::timeout) {
    util::print_error(ctx.err, result.message + ": " + what);
  } else if (result.end == FollowEnd::interrupted) {
    ctx.err << "interrupted: " << what << "\n";
  } else {
    const bool limited = result.diagnosis && result.diagnosis->backoff;
    ctx.err << (f.rm ? what
                : result.end == FollowEnd::crash_loop
                    ? (limited ? "the job keeps restarting until its backoffLimit"
                               : "the job keeps restarting")
                    : what)
            << "\n";
  }
  if (f.rm) {
    remove_job(ctx, *target.api, kind, target.ns, name);
    return result.exit_code;
  }
  ctx.err << "  follow again: "
          << plugin_hint(ctx, f.source.local, "logs " + job_word(kind, name) + " -f", target.ns)
          << "\n  delete it:    "
          << kubectl_hint(ctx, f.source.local, "delete " + std::string(kind.singular) + " " + name, target.ns)
          << "\n";
  if (target.session && target.session->started_here) {
    ctx.err << "  the local cluster stays up for it: " << ctx.program << " local down  stops it\n";
    target.session->started_here = false;
  }
  return result.exit_code;
}

// A crash loop or a stall: the diagnosis, its verdict as the error.
void print_verdict(const Context& ctx, const FollowResult& result, const StepContext& step) {
  if (!result.diagnosis) {
    util::print_error(ctx.err, result.message);
    return;
  }
  const auto lines = diagnosis_lines(*result.diagnosis, step);
  util::print_error(ctx.err, lines.front());
  for (std::size_t i = 1; i < lines.size(); ++i) ctx.err << lines[i] << "\n";
}

int follow_to_end(Context& ctx, const RunFlags& f, const Deadlines& deadlines, JobTarget& target,
                  const JobKind& kind, const std::string& name) {
  InterruptGuard guard;
  FollowOptions follow;
  follow.kind = &kind;
  follow.ns = target.ns;
  follow.job = name;
  follow.timeout = deadlines.timeout;
  follow.pending_timeout = deadlines.pending;
  follow.stall_timeout = deadlines.stall;
  follow.stall_ends = deadlines.stall_ends;
  follow.live_status = ctx.err_is_tty;
  follow.colour = ctx.colour_out();
  follow.step = step_context(ctx, f.source.local, kind, name, target.ns);
  RunProgress progress(deadlines.progress);
  follow.hooks = progress.hooks(ctx.err_is_tty);
  const FollowResult result = follow_job(*target.api, follow, ctx.out, ctx.err, guard.flag());
  switch (result.end) {
    case FollowEnd::succeeded:
    case FollowEnd::failed:
      if (f.rm) remove_job(ctx, *target.api, kind, target.ns, name);
      return result.exit_code;
    case FollowEnd::timeout:
    case FollowEnd::interrupted:
      return left_running(ctx, f, target, kind, name, result);
    case FollowEnd::crash_loop:
    case FollowEnd::stalled:
      print_verdict(ctx, result, follow.step);
      return left_running(ctx, f, target, kind, name, result);
    case FollowEnd::stuck:
    case FollowEnd::gone:
      util::print_error(ctx.err, result.message);
      if (result.diagnosis) {
        // The verdict line says what the error said: the class, the next step and the events follow.
        const auto lines = diagnosis_lines(*result.diagnosis, follow.step);
        for (std::size_t i = 1; i < lines.size(); ++i) ctx.err << lines[i] << "\n";
      }
      if (f.rm) remove_job(ctx, *target.api, kind, target.ns, name);
      return exit_code::findings;
  }
  return exit_code::findings;
}

// The file's TrainingRuntimes and ClusterTrainingRuntimes, applied before its TrainJob names them.
Expected<void> apply_runtimes(const Context& ctx, const RunFlags& f, kube::ApiClient& api,
                              const std::vector<json>& runtimes, const std::string& ns) {
  for (json runtime : runtimes) {
    const bool cluster = util::string_at(runtime, "kind") == "ClusterTrainingRuntime";
    const kube::ResourceRef ref =
        cluster ? kube::resources::clustertrainingruntimes() : kube::resources::trainingruntimes();
    if (!cluster && model::k8s::meta_string(runtime, "namespace").empty())
      runtime["metadata"]["namespace"] = ns;
    const std::string name = model::k8s::meta_string(runtime, "name");
    auto applied = api.patch(ref, cluster ? std::string() : model::k8s::meta_string(runtime, "namespace"),
                             name, kube::PatchType::apply, runtime.dump(), apply_options(f));
    for (const auto& w : api.take_warnings()) ctx.err << "Warning: " << w << "\n";
    if (!applied) return applied.error().context(util::to_lower(ref.kind) + " " + util::quote(name));
    if (f.dry_run == "none")
      ctx.err << util::to_lower(ref.kind) << "." << ref.group << "/" << name << " applied\n";
  }
  return {};
}

// Applies the job to the target and, unless a dry run or --detach, follows it to its end.
int run_on(Context& ctx, const RunFlags& f, const Deadlines& deadlines, JobTarget& target,
           PreparedJob prepared) {
  json& job = prepared.job;
  if (model::k8s::meta_string(job, "namespace").empty()) job["metadata"]["namespace"] = target.ns;
  target.ns = model::k8s::meta_string(job, "namespace");
  const std::string name = model::k8s::meta_string(job, "name");
  const JobKind& kind = *kind_of(job);
  if (auto runtimes = apply_runtimes(ctx, f, *target.api, prepared.runtimes, target.ns); !runtimes)
    return fail(ctx, runtimes.error());
  auto applied = apply_job(ctx, f, *target.api, kind, job);
  if (!applied) return fail(ctx, applied.error());
  if (f.dry_run == "server") {
    print_object(ctx, f, applied->object, "yaml");
    return exit_code::ok;
  }
  ctx.err << resource_name(kind, name) << (applied->existed ? " configured" : " created") << "\n";
  if (f.detach) {
    print_object(ctx, f, applied->object, "bare");
    ctx.err << "follow it with: "
            << plugin_hint(ctx, f.source.local, "logs " + job_word(kind, name) + " -f", target.ns) << "\n";
    if (target.session) target.session->started_here = false;  // the job needs the cluster to keep running
    return exit_code::ok;
  }
  return follow_to_end(ctx, f, deadlines, target, kind, name);
}

int run_job(Context& ctx, const RunFlags& f) {
  const auto deadlines = check_flags(f);
  if (!deadlines) return fail(ctx, deadlines.error());
  auto prepared = prepare_job(ctx, f.source);
  if (!prepared) return fail(ctx, prepared.error());
  if (f.source.local || prepared->local_cluster) localize(ctx, f, prepared->folder, prepared->job);
  if (f.dry_run == "client") {
    print_object(ctx, f, prepared->job, "yaml");
    return exit_code::ok;
  }
  auto target = open_job_target(ctx, f.source.local, true);
  if (!target) return fail(ctx, target.error());
  const int code = run_on(ctx, f, *deadlines, *target, std::move(*prepared));
  if (target->session) close_local_session(ctx, *target->session);
  return code;
}

}  // namespace

void add_run_command(CLI::App& app, Context& ctx) {
  auto flags = std::make_shared<RunFlags>();
  auto* cmd = app.add_subcommand("run", "Validate, create and follow a PyTorchJob or TrainJob to its end");
  cmd->footer(
      "The job is validated first, for the target it runs on (as validate does there): the release and\n"
      "controller detected in the cluster, or --operator; with --local, kubectl-pytorch's controller.\n"
      "Examples:\n"
      "  kubectl pytorch run job.yaml                     # on the current cluster\n"
      "  kubectl pytorch run --local job.yaml             # on the embedded cluster, pods as local "
      "processes\n"
      "  kubectl pytorch run --image IMG --workers 2 -- python train.py   # a Master and a Worker "
      "(worker-only\n"
      "                                                   # where kubectl-pytorch's controller runs it)\n"
      "  kubectl pytorch run --image IMG --nodes 2 --nproc-per-node 2 -- torchrun train.py   # a TrainJob\n"
      "  kubectl pytorch run --detach -o name job.yaml    # prints pytorchjob.kubeflow.org/NAME\n"
      "  kubectl pytorch run --replace job.yaml           # the job runs with another spec: recreate it\n"
      "When the job fails, run ends with a diagnosis (as 'diagnose' prints it): the first rank to fail,\n"
      "its exit code decoded, its exception, the class of failure and a next step. It stops following\n"
      "a crash loop (a rank failing the same way 3 times in a row) and, with --stall-timeout, a rank\n"
      "that prints nothing.\n"
      "Exit code: 0 the job succeeded; rank 0's exit code when it failed (1 without one);\n"
      "124 --timeout; 130 interrupted (the job keeps running unless --rm); 1 stuck, in a crash loop,\n"
      "stalled (--stall-timeout), deleted or refused (a running job the manifest changes, without\n"
      "--replace); 2 usage.");
  JobSource& source = flags->source;
  cmd->add_option("args", source.args, "FILE, or with --image the command after '--'");
  cmd->add_flag("--local", source.local,
                "Run on the embedded cluster (started if not up, stopped afterwards)");
  cmd->add_option("--image", source.image, "Build the job: container image");
  cmd->add_option("--workers", source.workers, "Build a PyTorchJob: number of workers")
      ->each([&source](const std::string&) { source.workers_set = true; });
  cmd->add_option("--nodes", source.nodes, "Build a TrainJob: number of nodes (spec.trainer.numNodes)");
  cmd->add_option("--runtime", source.runtime,
                  "Build a TrainJob on this ClusterTrainingRuntime (default torch-distributed)");
  cmd->add_option("--nproc-per-node", source.nproc_per_node,
                  "Build the job: processes per pod (spec.nprocPerNode; a TrainJob's numProcPerNode)");
  cmd->add_option("--name", source.name, "Build the job: its name (default pytorch-<random>)");
  cmd->add_option("--timeout", flags->timeout, "Give up following after this long (30s, 5m, 1h): exit 124");
  cmd->add_option(
      "--stall-timeout", flags->stall_timeout,
      "Give up when a running rank prints nothing for this long (90s, 10m): exit 1, the job keeps "
      "running (default: a warning after 5m)");
  cmd->add_option("--pending-timeout", flags->pending_timeout,
                  "Give up when a replica has not started after this long")
      ->capture_default_str();
  cmd->add_flag("--detach", flags->detach, "Create the job and return");
  cmd->add_flag("--replace", flags->replace,
                "Delete and recreate a running job of the same name when the manifest changes its spec");
  cmd->add_flag("--rm", flags->rm, "Delete the job when run ends, also on timeout or Ctrl-C");
  cmd->add_option("--dry-run", flags->dry_run, "none, client (print the job) or server (dryRun=All)")
      ->capture_default_str();
  cmd->add_option(
         "-o,--output", flags->output,
         "With --dry-run or --detach: yaml, json or name (default: yaml with --dry-run, the name with "
         "--detach)")
      ->type_name("FORMAT");
  cmd->add_flag("--force", source.force, "Run even when validation finds errors");
  cmd->add_flag("--force-conflicts", flags->force_conflicts,
                "Server-side apply: take over conflicting fields");
  cmd->add_option(
         "--progress", flags->progress,
         "Read progress from rank 0's lines this RE2 pattern matches: groups current and total "
         "(named, or the first two), or percent; for lines no known shape matches (docs/progress.md)")
      ->type_name("REGEX");
  cmd->add_option(
      "--workdir", flags->workdir,
      "On the local cluster (--local or `local up`): where commands run (default: the manifest's folder)");
  cmd->add_option(
      "--operator", source.operator_release,
      "Validate for this operator release (default: the one detected in the cluster, else v1.9.4)");
  cmd->callback([&ctx, flags] { ctx.exit_code = run_job(ctx, *flags); });
}

}  // namespace kpt::plugin
