#include "plugin/commands.hpp"
#include "plugin/context.hpp"
#include "plugin/failure.hpp"
#include "plugin/job_target.hpp"
#include "plugin/job_view.hpp"
#include "plugin/plugin.hpp"

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <ostream>

namespace kpt::plugin {

namespace {

nlohmann::json view_json(const JobView& v) {
  nlohmann::json replicas = nlohmann::json::array();
  for (const auto& r : v.replicas) {
    nlohmann::json item = {{"pod", r.pod},        {"replicaType", r.replica_type},
                           {"index", r.index},    {"rank", r.rank},
                           {"phase", r.phase},    {"restarts", r.restarts},
                           {"exitCode", nullptr}, {"waitingReason", r.waiting_reason}};
    if (r.exit_code) item["exitCode"] = *r.exit_code;
    replicas.push_back(item);
  }
  return {{"name", v.name},         {"namespace", v.ns},        {"state", v.state},    {"message", v.message},
          {"finished", v.finished}, {"succeeded", v.succeeded}, {"replicas", replicas}};
}

void print_table(std::ostream& out, const JobView& v) {
  out << fmt::format("pytorchjob {} ({}): {}\n", v.name, v.ns,
                     v.state.empty() ? "not reconciled yet" : v.state);
  if (!v.message.empty()) out << "  " << v.message << "\n";
  out << fmt::format("{:<32} {:<6} {:<10} {:<8} {:<6} {}\n", "POD", "RANK", "PHASE", "RESTARTS", "EXIT",
                     "WAITING");
  for (const auto& r : v.replicas) {
    out << fmt::format("{:<32} {:<6} {:<10} {:<8} {:<6} {}\n", r.pod, r.rank, r.phase, r.restarts,
                       r.exit_code ? std::to_string(*r.exit_code) : "-", r.waiting_reason);
  }
}

}  // namespace

void add_status_command(CLI::App& app, Context& ctx) {
  struct Flags {
    std::string job;
    std::string output = "table";
    bool local = false;
  };
  auto flags = std::make_shared<Flags>();
  auto* cmd =
      app.add_subcommand("status", "Show a PyTorchJob's state and every replica's phase, rank and exit code");
  cmd->add_option("job", flags->job, "The PyTorchJob's name")->required();
  cmd->add_option("-o,--output", flags->output, "table or json")->check(CLI::IsMember({"table", "json"}));
  cmd->add_flag("--local", flags->local, "The job runs on the embedded cluster");
  cmd->callback([&ctx, flags] {
    auto target = open_job_target(ctx, flags->local);
    if (!target) {
      ctx.exit_code = fail(ctx, target.error());
      return;
    }
    auto job = target->api->get(kube::resources::pytorchjobs(), target->ns, flags->job);
    if (!job) {
      ctx.exit_code = fail(ctx, job.error());
      return;
    }
    kube::ListOptions opts;
    opts.label_selector = "training.kubeflow.org/job-name=" + flags->job;
    auto pods = target->api->list(kube::resources::pods(), target->ns, opts);
    const JobView view = make_job_view(*job, pods ? pods->items : std::vector<nlohmann::json>{});
    if (flags->output == "json")
      ctx.out << view_json(view).dump(2) << "\n";
    else
      print_table(ctx.out, view);
    ctx.exit_code = exit_code::ok;
  });
}

}  // namespace kpt::plugin
