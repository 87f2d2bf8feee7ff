// `validate FILE|DIR|- ...`: structural schema, operator rules, lints; findings on stdout.
#include "model/pytorchjob/env_style.hpp"
#include "model/pytorchjob/release.hpp"
#include "model/trainjob/release.hpp"
#include "plugin/build_info.hpp"
#include "plugin/cluster_client.hpp"
#include "plugin/commands.hpp"
#include "plugin/context.hpp"
#include "plugin/doctor/doctor_defaults.hpp"
#include "plugin/failure.hpp"
#include "plugin/plugin.hpp"
#include "plugin/structured_output.hpp"
#include "plugin/validate/diagnostic_output.hpp"
#include "plugin/validate/input_selection.hpp"
#include "plugin/validate/live_validate.hpp"
#include "plugin/validate/rule_catalog.hpp"
#include "plugin/validate/validate_runner.hpp"
#include "schema/builtin/builtin_schema.hpp"
#include "schema/carried/carried_schema.hpp"
#include "schema/carried/carried_trainer_schema.hpp"
#include "schema/schema_cache.hpp"
#include "schema/structural_schema.hpp"
#include "util/messages.hpp"
#include "util/strings.hpp"
#include "yaml/input_files.hpp"
#include "yaml/manifest_reader.hpp"

#include <CLI/CLI.hpp>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <ostream>
#include <thread>
#include <tuple>

namespace kpt::plugin {

namespace {

constexpr std::size_t k_max_crd_bytes = 16u * 1024 * 1024;

struct ValidateFlags {
  std::vector<std::string> paths;
  std::string output = "text";
  std::string crd;
  std::string operator_release;  ///< "" = detected in the cluster, else v1.9.4
  std::string trainer_release;   ///< Trainer v2 schemas for TrainJobs and runtimes; "" = the newest
  bool strict = true;
  bool quiet = false;
  bool offline = false;
  bool server_dry_run = false;
  std::string fail_on = "error";  ///< the lowest severity that fails the run: error or warning
  std::size_t max_bytes = yaml::ReadLimits{}.max_bytes;
  std::vector<std::string> disabled;
  unsigned jobs = 0;
  InputFilter filter;          ///< --include / --exclude, for directory walks
  std::string stdin_filename;  ///< the name findings on stdin carry ("" = <stdin>)
};

std::filesystem::path cache_dir(const Context& ctx) {
  return schema_cache_dir(ctx.connection.cache_dir, ctx.getenv("KUBECACHEDIR"), ctx.getenv("HOME"));
}

/// Compiles (or takes from the cache) the CRD in `path`.
Expected<schema::SchemaSet> load_crd(const std::string& path, const Context& ctx) {
  auto fs = yaml::make_disk_reader();
  if (fs->kind(path) != yaml::FileReader::Kind::file) {
    return make_error(ErrorCode::io, "reading CRD " + util::quote(path) + ": no such file");
  }
  auto text = fs->read(path, k_max_crd_bytes);
  if (!text) return text.error().context("reading CRD " + util::quote(path));
  if (text->size() > k_max_crd_bytes) {
    return make_error(ErrorCode::limit, "reading CRD " + util::quote(path) + ": larger than 16 MiB");
  }
  const auto compile = [&]() -> Expected<schema::SchemaSet> {
    auto shared = std::make_shared<const std::string>(*text);
    yaml::ReadLimits limits;
    limits.max_bytes = k_max_crd_bytes;
    auto read = yaml::read_manifests(path, shared, limits);
    for (const auto& f : read.findings) {
      if (f.severity == Severity::error) {
        return make_error(ErrorCode::parse, "reading CRD " + util::quote(path) + ": " +
                                                std::to_string(f.location.line) + ":" +
                                                std::to_string(f.location.col) + ": " + f.message);
      }
    }
    std::vector<const yaml::Document*> crds;
    for (const auto& doc : read.documents) {
      const auto* kind = doc.root.find("kind");
      if (kind != nullptr && kind->text == "CustomResourceDefinition") crds.push_back(&doc);
    }
    if (crds.empty()) {
      return make_error(ErrorCode::usage,
                        "reading CRD " + util::quote(path) + ": no CustomResourceDefinition in it");
    }
    auto set = schema::SchemaSet::from_crds(crds);
    if (!set) return set.error().context("compiling CRD " + util::quote(path));
    return set;
  };
  schema::SchemaCache cache(cache_dir(ctx));
  auto set = cache.load_or_compile(*text, compile);
  if (set) set->set_origin("CRD file " + util::quote(path));
  return set;
}

// The inputs, each argument read on its own: a path that cannot be read is a finding on that
// path (exit 2 once the others are validated), not the end of the run.
struct Inputs {
  std::vector<yaml::InputFile> files;
  std::vector<FileReport> unreadable;
};

/// The files of one argument: a directory's walk through --include/--exclude and the default skips
/// (saying on stderr which Helm charts were left out), stdin named and split at Helm's `# Source:`.
Expected<std::vector<yaml::InputFile>> read_argument(const std::string& path, const ValidateFlags& flags,
                                                     yaml::FileReader& fs, Context& ctx) {
  if (path == "-") {
    auto files = yaml::collect_inputs({path}, fs, ctx.in, flags.max_bytes);
    if (!files) return files;
    std::vector<yaml::InputFile> out;
    for (auto& f : *files) {
      if (!flags.stdin_filename.empty()) f.name = flags.stdin_filename;
      for (auto& part : split_helm_sources(f)) out.push_back(std::move(part));
    }
    return out;
  }
  if (fs.kind(path) != yaml::FileReader::Kind::directory) {
    return yaml::collect_inputs({path}, fs, ctx.in, flags.max_bytes);
  }
  auto listed = fs.manifests_under(path);
  if (!listed) return listed.error().context("listing " + util::quote(path, std::string::npos));
  if (listed->empty()) return yaml::collect_inputs({path}, fs, ctx.in, flags.max_bytes);  // its error
  auto selection = select_files(path, *listed, flags.filter);
  for (const auto& note : selection.notes) ctx.err << "note: " << note << "\n";
  return yaml::collect_inputs(selection.files, fs, ctx.in, flags.max_bytes);
}

Expected<Inputs> read_inputs(const ValidateFlags& flags, Context& ctx) {
  auto fs = yaml::make_disk_reader();
  if (flags.paths.empty()) return make_error(ErrorCode::usage, "validate needs FILE, DIR or '-'");
  if (std::count(flags.paths.begin(), flags.paths.end(), "-") > 1)
    return make_error(ErrorCode::usage, "'-' (stdin) given more than once");
  Inputs out;
  for (const auto& path : flags.paths) {
    auto files = read_argument(path, flags, *fs, ctx);
    if (!files && files.error().code != ErrorCode::io) return files.error();
    if (files) {
      for (auto& f : *files) out.files.push_back(std::move(f));
      continue;
    }
    FileReport report;
    report.name = path;
    report.file_findings.push_back(
        Diagnostic{Severity::error, Location{path, 0, 0}, "", "input.unreadable", files.error().message, ""});
    out.unreadable.push_back(std::move(report));
  }
  return out;
}

/// Whether any input holds a Kubeflow Trainer document (so the Trainer release matters).
bool mentions_trainer(const std::vector<yaml::InputFile>& files) {
  return std::any_of(files.begin(), files.end(), [](const yaml::InputFile& f) {
    return f.text != nullptr && f.text->find("trainer.kubeflow.org/") != std::string::npos;
  });
}

std::set<std::string, std::less<>> flags_disabled(const ValidateFlags& flags) {
  return {flags.disabled.begin(), flags.disabled.end()};
}

/// The first of the run's schema sets (in validate_runner's order) that serves `kind`, or null.
const schema::SchemaSet* serving(const ValidateSettings& s, std::string_view kind) {
  for (const schema::SchemaSet* set : {s.schemas, s.carried_schemas, s.fallback_schemas, s.builtin_schemas}) {
    if (set != nullptr && !set->api_versions(kind).empty()) return set;
  }
  return nullptr;
}

/// What the run checks against, for -o json: two runs that disagree (a kubeconfig around or not) say why.
ReportTarget report_target(const ValidateSettings& s, const ClusterDefaults& cluster,
                           const ValidateFlags& flags) {
  ReportTarget t;
  t.cluster = cluster.detection ? cluster.server : "";
  t.operator_release = s.rules.release.to_string();
  t.trainer_release = s.trainer.release.to_string();
  if (const auto* set = serving(s, "PyTorchJob")) t.schemas.emplace_back("PyTorchJob", set->origin());
  if (const auto* set = serving(s, "TrainJob"))
    t.schemas.emplace_back("TrainJob, TrainingRuntime, ClusterTrainingRuntime", set->origin());
  if (!flags.crd.empty() && s.schemas != nullptr)
    t.schemas.emplace_back("the kinds of --crd", s.schemas->origin());
  if (s.builtin_schemas != nullptr) t.schemas.emplace_back("built-in kinds", s.builtin_schemas->origin());
  t.disabled.assign(s.rules.disabled.begin(), s.rules.disabled.end());
  return t;
}

/// --disable's usage error: the closest id, else the ids of the same group (lint., schema., ...), else
/// the groups.
std::string unknown_rule_message(const std::string& id) {
  const auto ids = rule_ids();
  std::string out = "--disable: unknown rule " + util::quote(id);
  if (const auto guess = util::closest_match(id, ids))
    return out + "; did you mean " + util::quote(*guess) + "?";
  const auto dot = id.find('.');
  std::vector<std::string> same_group;
  std::vector<std::string> groups;
  for (const auto& known : ids) {
    const auto group = known.substr(0, known.find('.'));
    if (dot != std::string::npos && group == id.substr(0, dot)) same_group.push_back(known);
    if (groups.empty() || groups.back() != group) groups.push_back(group);
  }
  if (!same_group.empty())
    return out + "; " + same_group.front().substr(0, dot) + " rules: " + util::join(same_group, ", ");
  return out + "; rule groups: " + util::join(groups, ", ") + " (each finding shows its rule in [brackets])";
}

OutputFormat output_format(const std::string& name) {
  if (name == "json" || name == "yaml") return OutputFormat::json;
  if (name == "junit") return OutputFormat::junit;
  if (name == "sarif") return OutputFormat::sarif;
  if (name == "github") return OutputFormat::github;
  return OutputFormat::text;
}

bool mentions_pytorchjob(const std::vector<yaml::InputFile>& files) {
  return std::any_of(files.begin(), files.end(), [](const yaml::InputFile& f) {
    return f.text != nullptr && f.text->find("PyTorchJob") != std::string::npos;
  });
}

int run_validate(const ValidateFlags& flags, Context& ctx) {
  ValidateSettings settings;
  std::optional<model::pytorchjob::Release> release;
  if (!flags.operator_release.empty()) {
    release = model::pytorchjob::parse_release(flags.operator_release);
    if (!release) {
      return fail_usage(ctx, "unknown operator release " + util::quote(flags.operator_release) +
                                 "; known: " + model::pytorchjob::known_releases_list());
    }
  }
  auto trainer = model::trainjob::k_newest_trainer_release;
  if (!flags.trainer_release.empty()) {
    const auto parsed = model::trainjob::parse_trainer_release(flags.trainer_release);
    if (!parsed) {
      return fail_usage(ctx, "unknown Trainer release " + util::quote(flags.trainer_release) +
                                 "; known: " + model::trainjob::known_trainer_releases_list());
    }
    trainer = *parsed;
  }
  settings.fallback_schemas = &schema::carried_trainer_schema(trainer);
  settings.builtin_schemas = &schema::builtin_schemas();
  settings.verbose = ctx.verbosity > 0;
  settings.trainer.release = trainer;
  for (const auto& id : flags.disabled) {
    if (find_rule(id) == nullptr) return fail_usage(ctx, unknown_rule_message(id));
    settings.rules.disabled.insert(id);
  }
  if (flags.server_dry_run && flags.offline) {
    return fail_usage(ctx, "--server-dry-run needs the cluster: drop --offline");
  }
  // --offline: no network at all; without a kubeconfig consult_cluster makes no request either.
  ClusterDefaults cluster;
  if (!flags.offline) cluster = consult_cluster(ctx);
  if (flags.server_dry_run && !cluster.api) {
    return fail(ctx, make_error(ErrorCode::config,
                                "--server-dry-run needs a reachable cluster" +
                                    (cluster.server.empty() ? std::string(": no kubeconfig")
                                                            : " (" + util::quote(cluster.server) + ")")));
  }
  if (!release) {
    release = default_release(cluster, ctx);
    for (auto& id : lints_moot_for(cluster)) settings.rules.disabled.insert(std::move(id));
  } else if (!cluster.unreachable.empty() && flags.crd.empty()) {
    util::print_warning(ctx.err, "cannot reach the cluster at " + util::quote(cluster.server) +
                                     ": using the carried schemas");
  }
  settings.rules.release = *release;
  settings.rules.strict = flags.strict;
  settings.limits.max_bytes = flags.max_bytes;
  settings.jobs = flags.jobs != 0 ? flags.jobs : std::max(1u, std::thread::hardware_concurrency());

  schema::SchemaSet from_crd;
  settings.schemas = &schema::carried_schema();
  settings.carried_schemas = &schema::carried_schema();
  if (flags.crd.empty() && cluster.detection) {
    if (auto live = cluster_schema(cluster, cache_dir(ctx), ctx)) {
      from_crd = std::move(live->set);
      settings.schemas = &from_crd;
    }
  }
  if (!flags.crd.empty()) {
    auto set = load_crd(flags.crd, ctx);
    if (!set) return fail(ctx, set.error());
    from_crd = std::move(*set);
    settings.schemas = &from_crd;
  }

  auto inputs = read_inputs(flags, ctx);
  if (!inputs) return fail(ctx, inputs.error());
  if (flags.trainer_release.empty() && mentions_trainer(inputs->files)) {
    settings.trainer.release = default_trainer_release(cluster, ctx);
    settings.fallback_schemas = &schema::carried_trainer_schema(settings.trainer.release);
  }
  if (!flags.crd.empty() && from_crd.api_versions("PyTorchJob").empty() &&
      mentions_pytorchjob(inputs->files)) {
    ctx.err << "note: " << util::quote(flags.crd)
            << " has no PyTorchJob CRD: PyTorchJobs are checked against " << schema::carried_schema().origin()
            << "\n";
  }
  Report report = validate_inputs(inputs->files, settings);
  if (flags.server_dry_run)
    add_server_findings(*cluster.api, inputs->files, settings, target_namespace(ctx), report);
  for (auto& unreadable : inputs->unreadable) report.files.push_back(std::move(unreadable));
  drop_disabled(report, flags_disabled(flags));
  report.target = report_target(settings, cluster, flags);
  OutputOptions out_opts;
  out_opts.format = output_format(flags.output);
  out_opts.colour = ctx.colour_out();
  out_opts.quiet = flags.quiet;
  out_opts.tool.version = build_info().git_version;
  write_structured(ctx.out, flags.output, [&](std::ostream& o) { write_report(report, out_opts, o); });
  ctx.out.flush();
  // An unreadable input is an I/O error, reported once the readable inputs are validated.
  if (!inputs->unreadable.empty()) return exit_code_for(ErrorCode::io);
  const Summary summary = summarize(report);
  const bool failed = summary.errors != 0 || (flags.fail_on == "warning" && summary.warnings != 0);
  return failed ? exit_code::findings : exit_code::ok;
}

}  // namespace

void add_validate_command(CLI::App& app, Context& ctx) {
  auto flags = std::make_shared<ValidateFlags>();
  auto* cmd = app.add_subcommand(
      "validate",
      "Check PyTorchJob and Trainer v2 manifests against the CRD schemas, the operator's rules for a "
      "release, and lints");
  cmd->footer(
      "Findings go to stdout (they are the command's output, as with kubeconform), one per finding:\n"
      "  file:line:col: error|warning: <field>: <message> [rule]\n"
      "then the source line with a caret and '  hint: ...', then a summary line. Operational errors\n"
      "(unreadable file, bad flag) go to stderr. Built-in kinds (ConfigMap, Secret, Service,\n"
      "Deployment, ...) are checked strictly against the schemas the binary carries; a kind no schema\n"
      "serves is not checked, on a 'not checked:' line saying why (--crd FILE adds its CRD), except in\n"
      "kubeflow.org, trainer.kubeflow.org, jobset.x-k8s.io and scheduling.volcano.sh, where an unknown\n"
      "kind is an error with the closest kind. Notes true of every input (Trainer's oldSelf transition\n"
      "rules, which no create evaluates) are printed with -v 1 only.\n"
      "With a reachable cluster (kubeconfig, unless --offline) the schema is the installed CRD (or\n"
      "/openapi/v3 when CRDs may not be read), cached per server and CRD resourceVersion, and the\n"
      "default --operator is the release doctor detects; --crd FILE wins over the cluster's CRD.\n"
      "TrainJob, TrainingRuntime and ClusterTrainingRuntime documents are checked against the carried\n"
      "Trainer v2 schemas of --trainer (CEL rules included), or the CRDs of --crd FILE when it has "
      "them.\n" +
      util::wrap_words("Lints: " + util::join(schema::rules::lint_ids(), ", "), 110, 2) +
      "\n"
      "--disable ID turns off any rule, the lints as well as the input.*, yaml.*, schema.*, release.*,\n"
      "operator.*, trainer.* and server.* rules (-o sarif lists each with its description).\n"
      "A directory is walked for .yaml, .yml and .json files, without hidden paths (.git/, .github/) and\n"
      "Helm charts (a directory with Chart.yaml: its templates/, charts/ and values files; a note on\n"
      "stderr names each), then through --include and --exclude. On stdin, `helm template` output is\n"
      "split at its '# Source:' comments, so findings name the chart's files.\n"
      "Exit codes: 0 no findings of error severity (of warning severity either, with --fail-on warning),\n"
      "1 such findings, 2 usage or I/O error.\n"
      "Examples:\n"
      "  kubectl pytorch validate job.yaml                      # against the cluster's CRD and release\n"
      "  kubectl pytorch validate --offline --operator v1.8.1 manifests/   # carried schema, no network\n"
      "  kubectl get pytorchjobs -o yaml | kubectl pytorch validate -       # what is already applied\n"
      "  kubectl pytorch validate -o junit --crd crd.yaml jobs/ > report.xml\n"
      "  kubectl pytorch validate --offline -o sarif --exclude 'legacy/**' . > validate.sarif\n"
      "  helm template charts/app | kubectl pytorch validate -o github -");
  cmd->add_option("paths", flags->paths, "Files, directories (recursive: .yaml .yml .json) or - for stdin")
      ->required()
      ->type_name("FILE|DIR|-");
  cmd->add_option(
         "-o,--output", flags->output,
         "Output format: text (default), json, yaml, junit, sarif (SARIF 2.1.0, for code scanning) or "
         "github (workflow annotations)")
      ->check(CLI::IsMember({"text", "json", "yaml", "junit", "sarif", "github"}).description(""))
      ->type_name("FORMAT");
  cmd->add_option("--crd", flags->crd,
                  "Validate against this CustomResourceDefinition file (compiled once, cached)")
      ->type_name("FILE");
  cmd->add_option(
         "--operator", flags->operator_release,
         "Training Operator release the jobs are for (default: the one detected in the cluster, else "
         "v1.9.4)")
      ->type_name("vX.Y.Z");
  cmd->add_option("--trainer", flags->trainer_release,
                  "Kubeflow Trainer v2 release whose carried schemas and webhook rules check TrainJobs, "
                  "TrainingRuntimes and "
                  "ClusterTrainingRuntimes (default: the one detected in the cluster, else " +
                      model::trainjob::k_newest_trainer_release.to_string() + ")")
      ->type_name("vX.Y.Z");
  // Two flags, not CLI11's "--strict,!--no-strict", whose help shows "--strict,--no-strict{false}".
  cmd->add_flag(
      "--strict", flags->strict,
      "Unknown fields are errors (kubectl --validate=strict, the default); --strict=false makes them "
      "warnings");
  cmd->add_flag_callback(
      "--no-strict", [flags] { flags->strict = false; }, "Unknown fields are warnings (as --strict=false)");
  cmd->add_flag("-q,--quiet", flags->quiet, "Print only errors, no summary");
  cmd->add_option("--fail-on", flags->fail_on,
                  "Lowest severity that makes the exit code 1: error (default) or warning")
      ->check(CLI::IsMember({"error", "warning"}).description(""))
      ->type_name("SEVERITY");
  cmd->add_option("--max-bytes", flags->max_bytes, "Largest input read, in bytes")->capture_default_str();
  cmd->add_option("--disable", flags->disabled,
                  "Turn off a rule: any id a finding shows in [brackets] (repeatable)")
      ->type_name("ID");
  cmd->add_option("--include", flags->filter.include,
                  "In directories, read only files matching this glob (repeatable; * ? within a name, ** "
                  "across directories)")
      ->type_name("GLOB");
  cmd->add_option("--exclude", flags->filter.exclude,
                  "In directories, skip files matching this glob, or everything under a matching directory "
                  "(repeatable)")
      ->type_name("GLOB");
  cmd->add_option("--stdin-filename", flags->stdin_filename,
                  "The file name findings on stdin (-) carry, as in editors and pre-commit hooks")
      ->type_name("NAME");
  cmd->add_option("-j,--jobs", flags->jobs,
                  "Files validated in parallel, 1 to 256 (default: number of cores)")
      ->type_name("N")
      ->check(CLI::Range(1u, 256u).description(""));
  cmd->add_flag(
      "--offline", flags->offline,
      "Do not contact a cluster (validate uses --crd or the carried schema, and --operator or v1.9.4)");
  cmd->add_flag("--server-dry-run", flags->server_dry_run,
                "Also send every document to the cluster with dryRun=All and fieldValidation=Strict and add "
                "the server's verdict to the findings");
  cmd->callback([flags, &ctx] { ctx.exit_code = run_validate(*flags, ctx); });
}

}  // namespace kpt::plugin
