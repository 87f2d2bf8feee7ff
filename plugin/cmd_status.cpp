#include "model/k8s/object_meta.hpp"
#include "plugin/commands.hpp"
#include "plugin/context.hpp"
#include "plugin/failure.hpp"
#include "plugin/follow/job_kind.hpp"
#include "plugin/follow/job_progress.hpp"
#include "plugin/follow/job_status.hpp"
#include "plugin/interrupt.hpp"
#include "plugin/job_target.hpp"
#include "plugin/plugin.hpp"
#include "plugin/structured_output.hpp"
#include "util/json_access.hpp"
#include "util/time.hpp"

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <map>
#include <ostream>
#include <set>
#include <string>
#include <thread>
#include <vector>

namespace kpt::plugin {

namespace {

using nlohmann::json;

constexpr auto k_watch_interval = std::chrono::seconds(2);

struct StatusFlags {
  std::string job;
  std::string output = "table";
  bool local = false;
  bool all_namespaces = false;
  bool watch = false;
};

WallTime now() { return std::chrono::system_clock::now(); }

/// Observed last-output times in a watch, for servers whose logs have no timestamps: a replica's
/// log tail that changed since the last look was written to in between.
class OutputWatcher {
 public:
  void observe(kube::ApiClient& api, JobStatus& s, WallTime at) {
    for (const auto& r : s.view.replicas) {
      if (auto stamped = last_output(api, s.view.ns, r)) {
        s.last_output[r.pod] = *stamped;
        continue;
      }
      if (!r.started) continue;
      auto tail = api.get_raw(kube::resources::pods().object_path(s.view.ns, r.pod, "log") +
                              "?container=" + r.container + "&tailLines=1&limitBytes=4096");
      if (!tail) continue;
      auto& [text, seen_at] = m_tails[r.pod];
      if (!seen_at || *tail != text) {
        text = *tail;
        seen_at = at;
      }
      s.last_output[r.pod] = *seen_at;
    }
  }

 private:
  std::map<std::string, std::pair<std::string, std::optional<WallTime>>> m_tails;
};

// One look at a named job: the view, its progress, and (wide) when each replica last wrote.
Expected<JobStatus> look_at_job(JobTarget& target, const StatusFlags& f, OutputWatcher* outputs) {
  auto found = find_job(*target.api, target.ns, f.job);
  if (!found) return found.error();
  const std::string name = model::k8s::meta_string(found->object, "name");
  auto pods = list_job_pods(*target.api, *found->kind, target.ns, name);
  const WallTime t = now();
  JobStatus s = make_job_status(*found->kind, found->object, pods ? pods->items : std::vector<json>{}, t);
  s.progress = job_progress(*target.api, s.object, s.view, t);
  if (f.output == "wide" || f.output == "json" || f.output == "yaml") {
    if (outputs != nullptr) {
      outputs->observe(*target.api, s, t);
    } else {
      for (const auto& r : s.view.replicas) {
        if (auto at = last_output(*target.api, target.ns, r)) s.last_output[r.pod] = *at;
      }
    }
  }
  return s;
}

// Every PyTorchJob and TrainJob of the namespace (or of all with -A), kind by kind, with their pods
// (one list per kind) and progress (of a finished job, only what its trainer reported).
Expected<std::vector<JobStatus>> look_at_jobs(JobTarget& target, const StatusFlags& f) {
  const std::string ns = f.all_namespaces ? std::string() : target.ns;
  std::vector<JobStatus> jobs;
  const WallTime t = now();
  for (const JobKind* kind : {&pytorchjob_kind(), &trainjob_kind()}) {
    auto listed = target.api->list(kind->resource(), ns, {});
    if (!listed) {
      if (kube::is_not_found(listed.error())) continue;  // a kind this cluster does not serve
      return listed.error();
    }
    if (listed->items.empty()) continue;
    kube::ListOptions by_label;
    by_label.label_selector = kind->pod_label;
    auto pods = target.api->list(kube::resources::pods(), ns, by_label);
    std::map<std::pair<std::string, std::string>, std::vector<json>> by_job;
    if (pods) {
      for (auto& pod : pods->items) {
        const auto& meta = pod["metadata"];
        const std::string job = meta.value("labels", json::object()).value(kind->pod_label, "");
        by_job[{util::string_at(meta, "namespace"), job}].push_back(std::move(pod));
      }
    }
    for (auto& job : listed->items) {
      const auto& meta = job["metadata"];
      const auto& mine = by_job[{util::string_at(meta, "namespace"), util::string_at(meta, "name")}];
      JobStatus s = make_job_status(*kind, job, mine, t);
      // Logs are read for the running jobs only: a namespace's finished ones would cost a read each.
      s.progress =
          s.view.finished ? reported_progress(s.object, t) : job_progress(*target.api, s.object, s.view, t);
      jobs.push_back(std::move(s));
    }
  }
  return jobs;
}

void print_job(const Context& ctx, const StatusFlags& f, const JobStatus& s) {
  if (f.output == "json" || f.output == "yaml") {
    write_structured(ctx.out, f.output, [&](std::ostream& out) { out << job_json(s).dump(2) << "\n"; });
  } else {
    ctx.out << job_text(s, f.output == "wide", now());
  }
}

int print_jobs(const Context& ctx, const StatusFlags& f, const std::vector<JobStatus>& jobs,
               const std::string& ns) {
  if (f.output == "json" || f.output == "yaml") {
    json items = json::array();
    for (const auto& j : jobs) items.push_back(listed_job_json(j, now()));
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
  ctx.out << jobs_table(jobs, f.all_namespaces, f.output == "wide", true, now());
  return exit_code::ok;
}

/// What a piped watch reports a change of: the state, the progress (not its ETA), the restarts.
std::string change_key(const JobStatus& s) {
  std::string key = s.view.state + "|" + std::to_string(s.restarts);
  if (s.progress) {
    key += "|" + percent_cell(s.progress) + "|" + s.progress->counter;
    for (const auto& [name, value] : s.progress->metrics) key += "|" + name + "=" + value;
  }
  return key;
}

/// Draws `text` over what the previous call drew (a terminal: cursor up, clear to the end).
class InPlace {
 public:
  explicit InPlace(std::ostream& out) : m_out(out) {}
  void draw(const std::string& text) {
    if (m_lines > 0) m_out << "\033[" << m_lines << "A\r\033[J";
    m_out << text << std::flush;
    m_lines = static_cast<int>(std::count(text.begin(), text.end(), '\n'));
  }

 private:
  std::ostream& m_out;
  int m_lines = 0;
};

bool wait_or_interrupted(const std::atomic<bool>& interrupted) {
  for (auto waited = std::chrono::milliseconds(0); waited < k_watch_interval;
       waited += std::chrono::milliseconds(100)) {
    if (interrupted.load()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  return interrupted.load();
}

// status NAME -w: redrawn in place on a terminal, one line per change when piped; ends with the job.
int watch_job(const Context& ctx, JobTarget& target, const StatusFlags& f) {
  InterruptGuard guard;
  OutputWatcher outputs;
  InPlace screen(ctx.out);
  std::string last_key;
  while (true) {
    auto s = look_at_job(target, f, &outputs);
    if (!s) return fail(ctx, s.error());
    if (f.output == "json" || f.output == "yaml") {
      if (change_key(*s) != last_key) print_job(ctx, f, *s);
    } else if (ctx.out_is_tty) {
      screen.draw(job_text(*s, f.output == "wide", now()));
    } else if (change_key(*s) != last_key) {
      ctx.out << util::format_time(std::chrono::floor<std::chrono::seconds>(now())) << " " << watch_line(*s)
              << "\n"
              << std::flush;
    }
    last_key = change_key(*s);
    if (s->view.finished || wait_or_interrupted(guard.flag())) return exit_code::ok;
  }
}

// status -w: the table redrawn in place on a terminal; piped, the header once and a row per change.
int watch_jobs(const Context& ctx, JobTarget& target, const StatusFlags& f) {
  InterruptGuard guard;
  InPlace screen(ctx.out);
  std::map<std::string, std::string> keys;
  bool header = true;
  while (true) {
    auto jobs = look_at_jobs(target, f);
    if (!jobs) return fail(ctx, jobs.error());
    if (ctx.out_is_tty) {
      screen.draw(jobs_table(*jobs, f.all_namespaces, f.output == "wide", true, now()));
    } else {
      std::vector<JobStatus> changed;
      for (auto& j : *jobs) {
        auto& key = keys[j.view.ns + "/" + j.kind->singular + "/" + j.view.name];
        if (change_key(j) != key) {
          key = change_key(j);
          changed.push_back(j);
        }
      }
      if (!changed.empty())
        ctx.out << jobs_table(changed, f.all_namespaces, f.output == "wide", header, now()) << std::flush;
      header = header && changed.empty();
    }
    if (wait_or_interrupted(guard.flag())) return exit_code::ok;
  }
}

int show(const Context& ctx, JobTarget& target, const StatusFlags& f) {
  if (!f.job.empty() && f.output == "name") {
    auto found = find_job(*target.api, target.ns, f.job);
    if (!found) return fail(ctx, found.error());
    ctx.out << resource_name(*found->kind, model::k8s::meta_string(found->object, "name")) << "\n";
    return exit_code::ok;
  }
  if (f.watch) return f.job.empty() ? watch_jobs(ctx, target, f) : watch_job(ctx, target, f);
  if (!f.job.empty()) {
    auto s = look_at_job(target, f, nullptr);
    if (!s) return fail(ctx, s.error());
    print_job(ctx, f, *s);
    return exit_code::ok;
  }
  auto jobs = look_at_jobs(target, f);
  if (!jobs) return fail(ctx, jobs.error());
  return print_jobs(ctx, f, *jobs, f.all_namespaces ? std::string() : target.ns);
}

}  // namespace

void add_status_command(CLI::App& app, Context& ctx) {
  auto flags = std::make_shared<StatusFlags>();
  auto* cmd = app.add_subcommand(
      "status", "Show a job's state and every replica's phase, rank and exit code, or list the jobs");
  cmd->add_option("job", flags->job, "NAME, pytorchjob/NAME or trainjob/NAME (none: list every job)");
  cmd->add_option(
         "-o,--output", flags->output,
         "table, wide (a job: each pod's type, index, last output and message; the list: pods and message), "
         "json, yaml or name (pytorchjob.kubeflow.org/NAME)")
      ->check(CLI::IsMember({"table", "wide", "json", "yaml", "name"}).description(""))
      ->type_name("FORMAT");
  cmd->add_flag("-A,--all-namespaces", flags->all_namespaces, "Without a name: the jobs of every namespace");
  cmd->add_flag(
      "-w,--watch", flags->watch,
      "Keep watching: redrawn in place on a terminal, a line per change when piped (a job: until it "
      "ends; the list: until Ctrl-C)");
  cmd->add_flag("--local", flags->local, "The job runs on the embedded cluster");
  cmd->footer(
      "Progress comes from the job's trainerStatus (Kubeflow Trainer's progress protocol, which the Hugging "
      "Face\n"
      "Trainer and the Kubeflow SDK report to) when there is one, else from rank 0's log lines: tqdm bars,\n"
      "\"Epoch 2/4\", \"step 450/1000\", the Trainer's and Lightning's lines (docs/progress.md).\n"
      "Examples:\n"
      "  kubectl pytorch status                  # every PyTorchJob and TrainJob in the namespace\n"
      "  kubectl pytorch status mnist-dp         # one job, by name\n"
      "  kubectl pytorch status mnist-dp -w      # its progress until it ends\n"
      "  kubectl pytorch status trainjob/mnist   # a TrainJob when a PyTorchJob has the same name\n"
      "Exit codes: 0 shown; 1 no such job, or the cluster cannot be reached; 2 usage or no usable "
      "kubeconfig.");
  cmd->callback([&ctx, flags] {
    auto target = open_job_target(ctx, flags->local);
    if (!target) {
      ctx.exit_code = fail(ctx, target.error());
      return;
    }
    ctx.exit_code = show(ctx, *target, *flags);
  });
}

}  // namespace kpt::plugin
