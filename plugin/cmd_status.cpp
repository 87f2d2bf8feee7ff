#include "plugin/commands.hpp"
#include "plugin/context.hpp"
#include "plugin/failure.hpp"
#include "plugin/follow/job_kind.hpp"
#include "plugin/follow/job_view.hpp"
#include "plugin/job_target.hpp"
#include "plugin/plugin.hpp"
#include "plugin/structured_output.hpp"
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

/// The replica's reason to be waiting, stuck or failed, in words, for `-o wide`.
std::string replica_message(const ReplicaView& r) {
  if (!r.start_error.empty()) return r.start_error;
  if (!r.unschedulable.empty()) return r.unschedulable;
  return r.waiting_message;
}

void print_table(std::ostream& out, const JobView& v, bool wide) {
  out << fmt::format("{} {} ({}): {}\n", v.kind, v.name, v.ns,
                     v.state.empty() ? "not reconciled yet" : v.state);
  if (!v.message.empty()) out << "  " << v.message << "\n";
  std::vector<std::vector<std::string>> rows{{"POD", "RANK", "PHASE", "RESTARTS", "EXIT", "WAITING"}};
  if (wide) rows[0].insert(rows[0].end(), {"TYPE", "INDEX", "MESSAGE"});
  for (const auto& r : v.replicas) {
    rows.push_back({r.pod, r.rank >= 0 ? std::to_string(r.rank) : "-", r.phase, std::to_string(r.restarts),
                    r.exit_code ? std::to_string(*r.exit_code) : "-", r.waiting_reason});
    if (wide) {
      rows.back().insert(rows.back().end(), {r.replica_type, std::to_string(r.index), replica_message(r)});
    }
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
  if (f.output == "name") {
    ctx.out << resource_name(*found->kind, name) << "\n";
    return exit_code::ok;
  }
  auto pods = list_job_pods(*target.api, *found->kind, target.ns, name);
  const JobView view = make_job_view(found->object, pods ? pods->items : std::vector<json>{});
  if (f.output == "json" || f.output == "yaml")
    write_structured(ctx.out, f.output, [&](std::ostream& out) { out << view_json(view).dump(2) << "\n"; });
  else
    print_table(ctx.out, view, f.output == "wide");
  return exit_code::ok;
}

std::string age_of(const json& job) {
  const auto created = util::parse_time(job.value("/metadata/creationTimestamp"_json_pointer, std::string{}));
  if (!created) return "-";
  return util::format_age(
      std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now() - *created));
}

/// How many pods the job asks for: a PyTorchJob's replicas over its replica specs (1 where unset,
/// as the CRD defaults it), a TrainJob's numNodes ("-" when the runtime decides).
std::string desired_pods(const JobKind& kind, const json& job) {
  if (&kind == &trainjob_kind()) {
    const auto nodes = job.value("/spec/trainer/numNodes"_json_pointer, json());
    return nodes.is_number_integer() ? std::to_string(nodes.get<long long>()) : "-";
  }
  const auto specs = job.value("/spec/pytorchReplicaSpecs"_json_pointer, json::object());
  if (!specs.is_object()) return "-";
  long long total = 0;
  for (const auto& [type, spec] : specs.items()) {
    const auto replicas = spec.is_object() ? spec.value("replicas", json(1)) : json(1);
    if (replicas.is_number_integer()) total += replicas.get<long long>();
  }
  return std::to_string(total);
}

struct ListedJob {
  const JobKind* kind = nullptr;
  json object;
  JobView view;  ///< of the job alone: its state is the latest True condition
};

json listed_json(const ListedJob& j) {
  return {{"kind", j.kind->singular},
          {"namespace", j.object["metadata"].value("namespace", "")},
          {"name", j.view.name},
          {"state", j.view.state},
          {"age", age_of(j.object)}};
}

void print_list(std::ostream& out, const std::vector<ListedJob>& jobs, const StatusFlags& f) {
  const bool wide = f.output == "wide";
  std::vector<std::vector<std::string>> table;
  const auto row_of = [&](std::vector<std::string> cells, const std::string& ns_cell,
                          std::vector<std::string> wide_cells) {
    if (f.all_namespaces) cells.insert(cells.begin(), ns_cell);
    if (wide) cells.insert(cells.end(), wide_cells.begin(), wide_cells.end());
    return cells;
  };
  table.push_back(row_of({"NAME", "STATE", "AGE"}, "NAMESPACE", {"PODS", "MESSAGE"}));
  for (const auto& j : jobs) {
    table.push_back(row_of({std::string(j.kind->singular) + "/" + j.view.name,
                            j.view.state.empty() ? "-" : j.view.state, age_of(j.object)},
                           j.object["metadata"].value("namespace", ""),
                           {desired_pods(*j.kind, j.object), j.view.message}));
  }
  out << util::format_columns(table);
}

// Without a name: every PyTorchJob and TrainJob of the namespace (or of all with -A), kind by kind.
int list_jobs(const Context& ctx, JobTarget& target, const StatusFlags& f) {
  const std::string ns = f.all_namespaces ? std::string() : target.ns;
  std::vector<ListedJob> jobs;
  for (const JobKind* kind : {&pytorchjob_kind(), &trainjob_kind()}) {
    auto listed = target.api->list(kind->resource(), ns, {});
    if (!listed) {
      if (kube::is_not_found(listed.error())) continue;  // a kind this cluster does not serve
      return fail(ctx, listed.error());
    }
    for (auto& job : listed->items) jobs.push_back({kind, job, make_job_view(job, {})});
  }
  if (f.output == "json" || f.output == "yaml") {
    json items = json::array();
    for (const auto& j : jobs) items.push_back(listed_json(j));
    write_structured(ctx.out, f.output, [&](std::ostream& out) {
      out << json{{"items", items}}.dump(2) << "\n";
    });
    return exit_code::ok;
  }
  if (f.output == "name") {
    for (const auto& j : jobs) ctx.out << resource_name(*j.kind, j.view.name) << "\n";
    return exit_code::ok;
  }
  if (jobs.empty()) {
    ctx.err << "No PyTorchJobs or TrainJobs found" << (ns.empty() ? "" : " in namespace " + ns) << ".\n";
    return exit_code::ok;
  }
  print_list(ctx.out, jobs, f);
  return exit_code::ok;
}

}  // namespace

void add_status_command(CLI::App& app, Context& ctx) {
  auto flags = std::make_shared<StatusFlags>();
  auto* cmd = app.add_subcommand(
      "status", "Show a job's state and every replica's phase, rank and exit code, or list the jobs");
  cmd->add_option("job", flags->job, "NAME, pytorchjob/NAME or trainjob/NAME (none: list every job)");
  cmd->add_option(
         "-o,--output", flags->output,
         "table, wide (a job: each pod's type, index and message; the list: pods and message), json, "
         "yaml or name (pytorchjob.kubeflow.org/NAME)")
      ->check(CLI::IsMember({"table", "wide", "json", "yaml", "name"}).description(""))
      ->type_name("FORMAT");
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
