// `diagnose JOB` (alias `why`): why a job failed, is stuck or is slow.
#include "model/k8s/object_meta.hpp"
#include "plugin/commands.hpp"
#include "plugin/context.hpp"
#include "plugin/failure.hpp"
#include "plugin/follow/diagnosis.hpp"
#include "plugin/follow/diagnosis_gather.hpp"
#include "plugin/follow/diagnosis_output.hpp"
#include "plugin/follow/job_kind.hpp"
#include "plugin/follow/last_output.hpp"
#include "plugin/job_hints.hpp"
#include "plugin/job_target.hpp"
#include "plugin/plugin.hpp"
#include "plugin/structured_output.hpp"
#include "util/strings.hpp"
#include "util/time.hpp"

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <ostream>

namespace kpt::plugin {

namespace {

struct DiagnoseFlags {
  std::string job;
  std::string output = "text";
  bool local = false;
  long long tail = 100;
  std::string silence = "60s";
};

int diagnose_job(const Context& ctx, const DiagnoseFlags& f) {
  const auto silence = util::parse_duration_ms(f.silence);
  if (!silence || *silence < 1000)
    return fail_usage(ctx, "invalid --silence " + util::quote(f.silence) + " (use e.g. 30s, 5m)");
  if (f.tail < 1 || f.tail > 10'000) return fail_usage(ctx, "--tail must be between 1 and 10000");
  auto target = open_job_target(ctx, f.local);
  if (!target) return fail(ctx, target.error());
  auto job = find_job(*target->api, target->ns, f.job);
  if (!job) return fail(ctx, job.error());
  const std::string name = model::k8s::name_of(job->object);
  std::unique_ptr<LastOutputProbe> probe =
      target->session ? local_last_output(target->session->paths.pod_log_dir) : api_last_output(*target->api);
  GatherOptions options;
  options.tail_lines = f.tail;
  options.probe = probe.get();
  options.silence = std::chrono::seconds(*silence / 1000);
  auto input = gather_diagnosis(*target->api, *job, target->ns, options);
  if (!input) return fail(ctx, input.error());
  const StepContext step = step_context(ctx, f.local, *job->kind, name, target->ns);
  input->step = step;
  const Diagnosis d = diagnose(*input);
  if (f.output == "json" || f.output == "yaml") {
    write_structured(ctx.out, f.output, [&](std::ostream& out) { out << diagnosis_json(d).dump(2) << "\n"; });
  } else {
    for (const auto& line : diagnosis_lines(d, step)) ctx.out << line << "\n";
  }
  return exit_code::ok;
}

}  // namespace

void add_diagnose_command(CLI::App& app, Context& ctx) {
  auto flags = std::make_shared<DiagnoseFlags>();
  auto* cmd = app.add_subcommand(
      "diagnose", "Say why a job failed, is stuck or is slow: the first failure, its cause and what to do");
  cmd->alias("why");
  cmd->add_option("job", flags->job, "NAME, pytorchjob/NAME or trainjob/NAME")->required();
  cmd->add_option("-o,--output", flags->output, "text, json or yaml")
      ->check(CLI::IsMember({"text", "json", "yaml"}).description(""))
      ->type_name("FORMAT");
  cmd->add_flag("--local", flags->local, "The job runs on the embedded cluster");
  cmd->add_option("--tail", flags->tail, "Lines of each rank's log to read")->capture_default_str();
  cmd->add_option("--silence", flags->silence, "A running rank silent this long is named")
      ->capture_default_str();
  cmd->footer(
      "The root cause is the first rank to fail (its container's finishedAt); ranks that failed\n"
      "after it because of it (a lost peer, a closed rendezvous, SIGTERM) are marked as following it.\n"
      "The exit code is decoded (137: SIGKILL, often the out-of-memory killer; OOMKilled), the exception\n"
      "is read from the rank's log, and the failure gets a class and a next step.\n"
      "Examples:\n"
      "  kubectl pytorch diagnose mnist-dp               # a failed, stuck or running PyTorchJob\n"
      "  kubectl pytorch why trainjob/mnist --local      # a TrainJob on the embedded cluster\n"
      "  kubectl pytorch diagnose mnist-dp -o json | jq .rootCause.exception\n"
      "Exit codes: 0 diagnosed (whatever the job's state); 1 no such job, or the cluster cannot be\n"
      "reached; 2 usage or no usable kubeconfig.");
  cmd->callback([&ctx, flags] { ctx.exit_code = diagnose_job(ctx, *flags); });
}

}  // namespace kpt::plugin
