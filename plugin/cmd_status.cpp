#include "plugin/commands.hpp"
#include "plugin/context.hpp"
#include "plugin/failure.hpp"
#include "plugin/job_kind.hpp"
#include "plugin/job_target.hpp"
#include "plugin/job_view.hpp"
#include "plugin/plugin.hpp"
#include "util/strings.hpp"
#include "util/time.hpp"

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <ostream>
#include <string>
#include <vector>

namespace kpt::plugin {

namespace {

using nlohmann::json;

json view_json(const JobView& v) {
  json replicas = json::array();
  for (const auto& r : v.replicas) {
    json item = {{"pod", r.pod},        {"replicaType", r.replica_type},
                 {"index", r.index},    {"rank", r.rank},
                 {"phase", r.phase},    {"restarts", r.restarts},
                 {"exitCode", nullptr}, {"waitingReason", r.waiting_reason}};
    if (r.exit_code) item["exitCode"] = *r.exit_code;
    if (r.rank < 0) item["rank"] = nullptr;
    replicas.push_back(item);
  }
  return {{"kind", v.kind},           {"name", v.name},
          {"namespace", v.ns},        {"state", v.state},
          {"message", v.message},     {"finished", v.finished},
          {"succeeded", v.succeeded}, {"groupRestarts", v.group_restarts},
          {"replicas", replicas}};
}

void print_table(std::ostream& out, const JobView& v) {
  out << fmt::format("{} {} ({}): {}\n", v.kind, v.name, v.ns,
                     v.state.empty() ? "not reconciled yet" : v.state);
  if (!v.message.empty()) out << "  " << v.message << "\n";
  std::vector<std::vector<std::string>> rows{{"POD", "RANK", "PHASE", "RESTARTS", "EXIT", "WAITING"}};
  for (const auto& r : v.replicas) {
    rows.push_back({r.pod, r.rank >= 0 ? std::to_string(r.rank) : "-", r.phase, std::to_string(r.restarts),
                    r.exit_code ? std::to_string(*r.exit_code) : "-", r.waiting_reason});
  }
  out << util::format_columns(rows);
}

struct StatusFlags {
  std::string job;
  std::string output = "table";
  bool local = false;
  bool all_namespaces = false;
};

int show_job(const Context& ctx, JobTarget& target, const StatusFlags& f) {
  auto found = find_job(*target.api, target.ns, f.job);
  if (!found) return fail(ctx, found.error());
  const std::string name = found->object["metadata"].value("name", "");
  auto pods = list_job_pods(*target.api, *found->kind, target.ns, name);
  const JobView view = make_job_view(found->object, pods ? pods->items : std::vector<json>{});
  if (f.output == "json")
    ctx.out << view_json(view).dump(2) << "\n";
  else
    print_table(ctx.out, view);
  return exit_code::ok;
}

std::string age_of(const json& job) {
  const auto created = util::parse_time(job.value("/metadata/creationTimestamp"_json_pointer, std::string{}));
  if (!created) return "-";
  return util::format_age(
      std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now() - *created));
}

// Without a name: every PyTorchJob and TrainJob of the namespace (or of all with -A), kind by kind.
int list_jobs(const Context& ctx, JobTarget& target, const StatusFlags& f) {
  const std::string ns = f.all_namespaces ? std::string() : target.ns;
  json rows = json::array();
  for (const JobKind* kind : {&pytorchjob_kind(), &trainjob_kind()}) {
    auto jobs = target.api->list(kind->resource(), ns, {});
    if (!jobs) {
      if (kube::is_not_found(jobs.error())) continue;  // a kind this cluster does not serve
      return fail(ctx, jobs.error());
    }
    for (const auto& job : jobs->items) {
      rows.push_back({{"kind", kind->singular},
                      {"namespace", job["metadata"].value("namespace", "")},
                      {"name", job["metadata"].value("name", "")},
                      {"state", make_job_view(job, {}).state},  // the latest True condition
                      {"age", age_of(job)}});
    }
  }
  if (f.output == "json") {
    ctx.out << json{{"items", rows}}.dump(2) << "\n";
    return exit_code::ok;
  }
  if (rows.empty()) {
    ctx.err << "No PyTorchJobs or TrainJobs found" << (ns.empty() ? "" : " in namespace " + ns) << ".\n";
    return exit_code::ok;
  }
  std::vector<std::vector<std::string>> table;
  const auto row_of = [&f](std::vector<std::string> cells, const std::string& ns_cell) {
    if (f.all_namespaces) cells.insert(cells.begin(), ns_cell);
    return cells;
  };
  table.push_back(row_of({"NAME", "STATE", "AGE"}, "NAMESPACE"));
  for (const auto& row : rows) {
    const auto state = row["state"].get<std::string>();
    table.push_back(row_of({row["kind"].get<std::string>() + "/" + row["name"].get<std::string>(),
                            state.empty() ? "-" : state, row["age"].get<std::string>()},
                           row["namespace"].get<std::string>()));
  }
  ctx.out << util::format_columns(table);
  return exit_code::ok;
}

}  // namespace

void add_status_command(CLI::App& app, Context& ctx) {
  auto flags = std::make_shared<StatusFlags>();
  auto* cmd = app.add_subcommand(
      "status", "Show a job's state and every replica's phase, rank and exit code, or list the jobs");
  cmd->add_option("job", flags->job, "NAME, pytorchjob/NAME or trainjob/NAME (none: list every job)");
  cmd->add_option("-o,--output", flags->output, "table or json")->check(CLI::IsMember({"table", "json"}));
  cmd->add_flag("-A,--all-namespaces", flags->all_namespaces, "Without a name: the jobs of every namespace");
  cmd->add_flag("--local", flags->local, "The job runs on the embedded cluster");
  cmd->footer(
      "Examples:\n"
      "  kubectl pytorch status                  # every PyTorchJob and TrainJob in the namespace\n"
      "  kubectl pytorch status mnist-dp         # one job, by name\n"
      "  kubectl pytorch status trainjob/mnist   # a TrainJob when a PyTorchJob has the same name\n"
      "Exit codes: 0 shown; 1 no such job, or the cluster cannot be reached; 2 usage or no usable "
      "kubeconfig.");
  cmd->callback([&ctx, flags] {
    auto target = open_job_target(ctx, flags->local);
    if (!target) {
      ctx.exit_code = fail(ctx, target.error());
      return;
    }
    ctx.exit_code = flags->job.empty() ? list_jobs(ctx, *target, *flags) : show_job(ctx, *target, *flags);
  });
}

}  // namespace kpt::plugin
