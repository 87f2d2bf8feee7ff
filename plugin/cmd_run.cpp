#include "local/cluster_paths.hpp"
#include "local/pod_spec.hpp"
#include "model/pytorchjob/release.hpp"
#include "plugin/cluster_client.hpp"
#include "plugin/commands.hpp"
#include "plugin/context.hpp"
#include "plugin/diagnostic_output.hpp"
#include "plugin/interrupt.hpp"
#include "plugin/job_builder.hpp"
#include "plugin/job_follower.hpp"
#include "plugin/local_session.hpp"
#include "plugin/plugin.hpp"
#include "plugin/validate_runner.hpp"
#include "schema/carried/carried_schema.hpp"
#include "util/strings.hpp"
#include "util/time.hpp"
#include "yaml/input_files.hpp"
#include "yaml/manifest_reader.hpp"
#include "yaml/node_json.hpp"
#include "yaml/yaml_writer.hpp"

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <ostream>
#include <random>
#include <string_view>
#include <thread>

namespace kpt::plugin {

namespace {

using nlohmann::json;

struct RunFlags {
  std::vector<std::string> args;  ///< FILE, or with --image the command
  bool local = false;
  std::string image;
  int workers = 1;
  std::string nproc_per_node;
  std::string name;
  std::string timeout;
  std::string pending_timeout = "5m";
  bool detach = false;
  bool rm = false;
  bool replace = false;  ///< a running job the manifest changes is deleted and created again
  std::string dry_run = "none";
  std::string output;  ///< -o: yaml, json or name; default yaml for --dry-run, NAME for --detach
  bool force = false;
  bool force_conflicts = false;
  std::string workdir;
  std::string operator_release;
};

struct Prepared {
  json job;
  std::string folder;  ///< the manifest's folder (absolute), for --local
};

std::string random_suffix() {
  static const char k_chars[] = "bcdfghjklmnpqrstvwxz2456789";
  std::string out;
  std::random_device rd;
  for (int i = 0; i < 5; ++i) out += k_chars[rd() % (sizeof k_chars - 1)];
  return out;
}

// The job from --image or from FILE, validated: errors stop the run unless --force, and set
// `invalid` so the command exits 1 (findings) rather than 2 (usage).
Expected<Prepared> prepare_job(const Context& ctx, const RunFlags& f, bool& invalid) {
  Prepared p;
  if (!f.image.empty()) {
    if (f.args.empty()) return make_error(ErrorCode::usage, "--image needs the command after '--'");
    if (f.workers < 1) return make_error(ErrorCode::usage, "--workers must be at least 1");
    JobRequest r;
    r.name = f.name.empty() ? "pytorch-" + random_suffix() : f.name;
    r.ns = ctx.connection.namespace_;
    r.image = f.image;
    r.workers = f.workers;
    r.nproc_per_node = f.nproc_per_node;
    r.command = f.args;
    p.job = build_job(r);
    p.folder = std::filesystem::current_path().string();
    return p;
  }
  if (f.args.size() != 1)
    return make_error(ErrorCode::usage, "run takes one FILE (or --image IMG -- CMD...)");
  auto fs = yaml::make_disk_reader();
  auto inputs = yaml::collect_inputs(f.args, *fs, ctx.in, yaml::ReadLimits{}.max_bytes);
  if (!inputs) return inputs.error();

  ValidateSettings settings;
  settings.schemas = &schema::carried_schema();
  if (!f.operator_release.empty()) {
    auto release = model::pytorchjob::parse_release(f.operator_release);
    if (!release) {
      return make_error(ErrorCode::usage, "unknown operator release '" + f.operator_release +
                                              "' (known: " + model::pytorchjob::known_releases_list() + ")");
    }
    settings.rules.release = *release;
  }
  if (f.local) {
    // Locally our controller injects the worker-only env and the image is not pulled.
    settings.rules.disabled.insert("lint.worker-only-no-master-env");
    settings.rules.disabled.insert("lint.image-placeholder");
  }
  Report report;
  report.files.push_back(validate_file(inputs->front(), settings));
  const Summary summary = summarize(report);
  if (summary.errors + summary.warnings > 0) {
    OutputOptions out;
    out.colour = ctx.colour_err();
    write_text(report, out, ctx.err);
  }
  if (summary.errors > 0 && !f.force) {
    invalid = true;
    return make_error(ErrorCode::usage, "the manifest has errors; fix them or run with --force");
  }

  auto read = yaml::read_manifests(inputs->front());
  std::vector<json> jobs;
  for (const auto& doc : expand_lists(std::move(read.documents))) {
    json j = yaml::to_json(doc.root);
    if (j.is_object() && j.value("kind", "") == "PyTorchJob") jobs.push_back(std::move(j));
  }
  if (jobs.size() != 1) {
    return make_error(ErrorCode::usage, "'" + inputs->front().name + "' holds " +
                                            std::to_string(jobs.size()) +
                                            " PyTorchJobs; run takes exactly one");
  }
  p.job = std::move(jobs.front());
  const auto path = std::filesystem::absolute(f.args.front() == "-" ? "." : f.args.front());
  p.folder = f.args.front() == "-" ? path.string() : path.parent_path().string();
  return p;
}

void annotate_workdir(json& job, const std::string& workdir) {
  for (auto& [type, spec] : job["spec"]["pytorchReplicaSpecs"].items()) {
    (void)type;
    spec["template"]["metadata"]["annotations"][local::k_workdir_annotation] = workdir;
  }
}

bool is_finished(const json& job) {
  for (const auto& c : job.value("/status/conditions"_json_pointer, json::array())) {
    const auto type = c.value("type", "");
    if ((type == "Succeeded" || type == "Failed") && c.value("status", "") == "True") return true;
  }
  return false;
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
Expected<void> delete_and_wait(kube::ApiClient& api, const std::string& ns, const std::string& name) {
  kube::DeleteOptions del;
  del.propagation_policy = "Foreground";
  if (auto r = api.remove(kube::resources::pytorchjobs(), ns, name, del);
      !r && !kube::is_not_found(r.error())) {
    return r.error();
  }
  for (int i = 0; i < 300; ++i) {  // bounded: 60 s
    auto again = api.get(kube::resources::pytorchjobs(), ns, name);
    if (!again && kube::is_not_found(again.error())) return {};
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  return make_error(ErrorCode::timeout, "the pytorchjob '" + name + "' was not deleted within 60s");
}

// Whether applying `job` would change the spec of `existing`: a server-side dry run of the
// apply, so that the server's defaults do not count as changes.
Expected<bool> changes_spec(kube::ApiClient& api, const RunFlags& f, const json& existing, const json& job) {
  kube::WriteOptions preview = apply_options(f);
  preview.dry_run = true;
  auto applied =
      api.patch(kube::resources::pytorchjobs(), existing["metadata"].value("namespace", ""),
                existing["metadata"].value("name", ""), kube::PatchType::apply, job.dump(), preview);
  (void)api.take_warnings();  // the real apply reports them
  if (!applied) return applied.error();
  return applied->value("spec", json::object()) != existing.value("spec", json::object());
}

// A job of the same name that apply cannot simply update: a finished one is replaced (running a
// manifest again runs it again); a running one whose spec the manifest changes would keep its old
// pods, so it is replaced only with --replace, and refused otherwise.
Expected<void> make_way(const Context& ctx, const RunFlags& f, kube::ApiClient& api, const json& job) {
  const std::string ns = job["metadata"].value("namespace", "");
  const std::string name = job["metadata"].value("name", "");
  auto existing = api.get(kube::resources::pytorchjobs(), ns, name);
  if (!existing) return {};
  if (is_finished(*existing)) {
    ctx.err << "pytorchjob " << name << " had finished: replacing it\n";
    return delete_and_wait(api, ns, name);
  }
  auto changed = changes_spec(api, f, *existing, job);
  if (!changed) return changed.error();
  if (!*changed) return {};
  if (!f.replace) {
    return make_error(ErrorCode::usage, "pytorchjob '" + name +
                                            "' is running and the manifest changes its spec, which its pods "
                                            "would not get; run with --replace to delete and recreate it");
  }
  ctx.err << "pytorchjob " << name << " is running with another spec: replacing it (--replace)\n";
  return delete_and_wait(api, ns, name);
}

// What -o asks for on stdout: the object (yaml, json), its resource name (name), or `fallback`.
void print_object(const Context& ctx, const RunFlags& f, const json& object, const std::string& fallback) {
  const std::string output = f.output.empty() ? fallback : f.output;
  if (output == "json") {
    ctx.out << object.dump(2) << "\n";
  } else if (output == "yaml") {
    ctx.out << yaml::to_yaml(object);
  } else {
    ctx.out << (output == "name" ? "pytorchjob.kubeflow.org/" : "") << object["metadata"].value("name", "")
            << "\n";
  }
}

// A word as a POSIX shell reads it back: unchanged when it is plain, else in single quotes.
std::string shell_word(const std::string& word) {
  const auto plain = [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) != 0 ||
           std::string_view("_-./:=@%+,").find(c) != std::string_view::npos;
  };
  if (!word.empty() && std::all_of(word.begin(), word.end(), plain)) return word;
  std::string out = "'";
  for (char c : word) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

std::string flag_words(const std::string& name, const std::string& value) {
  return value.empty() ? std::string() : " " + name + " " + shell_word(value);
}

std::string connection_words(const Context& ctx) {
  return flag_words("--kubeconfig", ctx.connection.kubeconfig) +
         flag_words("--context", ctx.connection.context);
}

// Hints that work when pasted: they reach the same cluster (the --kubeconfig and --context this
// command was given; for a --local job the embedded cluster) and name the namespace. Credentials
// are never repeated.
std::string plugin_hint(const Context& ctx, const RunFlags& f, const std::string& args,
                        const std::string& ns) {
  return ctx.program + " " + args + (f.local ? std::string(" --local") : connection_words(ctx)) +
         flag_words("-n", ns);
}

std::string kubectl_hint(const Context& ctx, const RunFlags& f, const std::string& args,
                         const std::string& ns) {
  const std::string where =
      f.local ? flag_words("--kubeconfig", local::default_kubeconfig_path(ctx.env)) : connection_words(ctx);
  return "kubectl " + args + where + flag_words("-n", ns);
}

int run_job(Context& ctx, const RunFlags& f) {
  if (f.dry_run != "none" && f.dry_run != "client" && f.dry_run != "server") {
    ctx.err << "error: --dry-run must be none, client or server\n";
    return exit_code::usage;
  }
  if (!f.output.empty() && f.output != "yaml" && f.output != "json" && f.output != "name") {
    ctx.err << "error: -o must be yaml, json or name\n";
    return exit_code::usage;
  }
  std::optional<std::chrono::milliseconds> timeout;
  if (!f.timeout.empty()) {
    auto ms = util::parse_duration_ms(f.timeout);
    if (!ms || *ms <= 0) {
      ctx.err << "error: invalid --timeout " << util::quote(f.timeout) << " (use e.g. 30s, 5m, 1h)\n";
      return exit_code::usage;
    }
    timeout = std::chrono::milliseconds(*ms);
  }
  auto pending = util::parse_duration_ms(f.pending_timeout);
  if (!pending || *pending <= 0) {
    ctx.err << "error: invalid --pending-timeout " << util::quote(f.pending_timeout) << "\n";
    return exit_code::usage;
  }

  bool invalid = false;
  auto prepared = prepare_job(ctx, f, invalid);
  if (!prepared) {
    ctx.err << "error: " << prepared.error().message << "\n";
    return invalid ? exit_code::findings : exit_code::usage;
  }
  json job = std::move(prepared->job);
  if (f.local) {
    const std::string workdir =
        f.workdir.empty() ? prepared->folder : std::filesystem::absolute(f.workdir).string();
    annotate_workdir(job, workdir);
    if (f.dry_run != "client") {
      ctx.err
          << "note: --local ignores container images: each container's command runs as a local process in '"
          << workdir << "'\n";
    }
  }
  if (f.dry_run == "client") {
    print_object(ctx, f, job, "yaml");
    return exit_code::ok;
  }

  std::optional<LocalSession> session;
  std::unique_ptr<kube::ApiClient> remote;
  kube::ApiClient* api = nullptr;
  std::string ns = job["metadata"].value("namespace", "");
  if (f.local) {
    auto s = open_local_session(ctx, true);
    if (!s) {
      ctx.err << "error: " << s.error().message << "\n";
      return exit_code::usage;
    }
    session = std::move(*s);
    api = session->client.get();
    if (ns.empty()) ns = ctx.connection.namespace_.empty() ? "default" : ctx.connection.namespace_;
  } else {
    auto c = connect(ctx);
    if (!c) {
      ctx.err << "error: " << c.error().message << "\n";
      return exit_code::usage;
    }
    remote = std::move(*c);
    api = remote.get();
    if (ns.empty()) ns = target_namespace(ctx);
  }
  job["metadata"]["namespace"] = ns;
  const std::string name = job["metadata"].value("name", "");

  auto finish = [&](int code) {
    if (session) close_local_session(ctx, *session);
    return code;
  };

  if (f.dry_run == "none") {
    if (auto made = make_way(ctx, f, *api, job); !made) {
      ctx.err << "error: " << made.error().message << "\n";
      return finish(exit_code::findings);
    }
  }
  const bool existed = static_cast<bool>(api->get(kube::resources::pytorchjobs(), ns, name));
  auto applied = api->patch(kube::resources::pytorchjobs(), ns, name, kube::PatchType::apply, job.dump(),
                            apply_options(f));
  for (const auto& w : api->take_warnings()) ctx.err << "Warning: " << w << "\n";
  if (!applied) {
    ctx.err << "error: " << applied.error().message << "\n";
    return finish(exit_code::findings);
  }
  if (f.dry_run == "server") {
    print_object(ctx, f, *applied, "yaml");
    return finish(exit_code::ok);
  }
  ctx.err << "pytorchjob.kubeflow.org/" << name << (existed ? " configured" : " created") << "\n";
  if (f.detach) {
    print_object(ctx, f, *applied, "bare");
    ctx.err << "follow it with: " << plugin_hint(ctx, f, "logs " + name + " -f", ns) << "\n";
    if (session) session->started_here = false;  // the job needs the cluster to keep running
    return finish(exit_code::ok);
  }

  InterruptGuard guard;
  FollowOptions follow;
  follow.ns = ns;
  follow.job = name;
  follow.timeout = timeout;
  follow.pending_timeout = std::chrono::milliseconds(*pending);
  follow.live_status = ctx.err_is_tty;
  follow.colour = ctx.colour_out();
  const FollowResult result = follow_job(*api, follow, ctx.out, ctx.err, guard.flag());

  auto remove_job = [&] {
    kube::DeleteOptions del;
    del.propagation_policy = "Foreground";
    if (auto r = api->remove(kube::resources::pytorchjobs(), ns, name, del);
        r || kube::is_not_found(r.error())) {
      ctx.err << "pytorchjob.kubeflow.org/" << name << " deleted\n";
    } else {
      ctx.err << "warning: deleting pytorchjob " << name << ": " << r.error().message << "\n";
    }
  };
  switch (result.end) {
    case FollowEnd::succeeded:
    case FollowEnd::failed:
      if (f.rm) remove_job();
      return finish(result.exit_code);
    case FollowEnd::timeout:
    case FollowEnd::interrupted:
      ctx.err << (result.end == FollowEnd::timeout ? "error: " + result.message + ": "
                                                   : std::string("interrupted: "));
      if (f.rm) {
        ctx.err << "deleting the job (--rm)\n";
        remove_job();
        return finish(result.exit_code);
      }
      ctx.err << "the job keeps running\n  follow again: " << plugin_hint(ctx, f, "logs " + name + " -f", ns)
              << "\n  delete it:    " << kubectl_hint(ctx, f, "delete pytorchjob " + name, ns) << "\n";
      if (session && session->started_here) {
        ctx.err << "  the local cluster stays up for it: " << ctx.program << " local down  stops it\n";
        session->started_here = false;
      }
      return finish(result.exit_code);
    case FollowEnd::stuck:
    case FollowEnd::gone:
      ctx.err << "error: " << result.message << "\n";
      if (result.end == FollowEnd::stuck) {
        ctx.err << "  inspect: " << plugin_hint(ctx, f, "status " + name, ns) << "\n";
      }
      if (f.rm) remove_job();
      return finish(exit_code::findings);
  }
  return finish(exit_code::findings);
}

}  // namespace

void add_run_command(CLI::App& app, Context& ctx) {
  auto flags = std::make_shared<RunFlags>();
  auto* cmd = app.add_subcommand("run", "Validate, create and follow a PyTorchJob to its end");
  cmd->footer(
      "Examples:\n"
      "  kubectl pytorch run job.yaml                     # on the current cluster\n"
      "  kubectl pytorch run --local job.yaml             # on the embedded cluster, pods as local "
      "processes\n"
      "  kubectl pytorch run --image IMG --workers 2 -- python train.py\n"
      "  kubectl pytorch run --detach -o name job.yaml    # prints pytorchjob.kubeflow.org/NAME\n"
      "  kubectl pytorch run --replace job.yaml           # the job runs with another spec: recreate it\n"
      "Exit code: 0 the job succeeded; rank 0's exit code when it failed (1 without one);\n"
      "124 --timeout; 130 interrupted (the job keeps running unless --rm); 1 stuck, deleted or\n"
      "refused (a running job the manifest changes, without --replace); 2 usage.");
  cmd->add_option("args", flags->args, "FILE, or with --image the command after '--'");
  cmd->add_flag("--local", flags->local,
                "Run on the embedded cluster (started if not up, stopped afterwards)");
  cmd->add_option("--image", flags->image, "Build the job: container image");
  cmd->add_option("--workers", flags->workers, "Build the job: number of workers");
  cmd->add_option("--nproc-per-node", flags->nproc_per_node,
                  "Build the job: processes per pod (spec.nprocPerNode)");
  cmd->add_option("--name", flags->name, "Build the job: its name (default pytorch-<random>)");
  cmd->add_option("--timeout", flags->timeout, "Give up following after this long (30s, 5m, 1h): exit 124");
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
      "--detach)");
  cmd->add_flag("--force", flags->force, "Run even when validation finds errors");
  cmd->add_flag("--force-conflicts", flags->force_conflicts,
                "Server-side apply: take over conflicting fields");
  cmd->add_option("--workdir", flags->workdir,
                  "--local: where commands run (default: the manifest's folder)");
  cmd->add_option("--operator", flags->operator_release,
                  "Validate for this operator release (default v1.9.4)");
  cmd->callback([&ctx, flags] { ctx.exit_code = run_job(ctx, *flags); });
}

}  // namespace kpt::plugin
