#include "plugin/follow/job_status.hpp"

#include "plugin/follow/job_kind.hpp"
#include "util/json_access.hpp"
#include "util/strings.hpp"
#include "util/time.hpp"

#include <fmt/format.h>

#include <cmath>

namespace kpt::plugin {

namespace {

using nlohmann::json;

std::optional<WallTime> wall(const std::string& rfc3339) {
  const auto t = util::parse_time(rfc3339);
  if (!t) return std::nullopt;
  return WallTime(std::chrono::duration_cast<WallTime::duration>(t->time_since_epoch()));
}

std::string age_since(const std::string& rfc3339, WallTime now) {
  const auto t = wall(rfc3339);
  if (!t) return "-";
  return util::format_age(std::chrono::duration_cast<std::chrono::seconds>(now - *t));
}

/// The replica's reason to be waiting, stuck or failed, in words, for `-o wide`.
std::string replica_message(const ReplicaView& r) {
  if (!r.start_error.empty()) return r.start_error;
  if (!r.unschedulable.empty()) return r.unschedulable;
  return r.waiting_message;
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

json replica_json(const ReplicaView& r, const JobStatus& s) {
  json item = {{"pod", r.pod},        {"replicaType", r.replica_type},
               {"index", r.index},    {"rank", r.rank},
               {"phase", r.phase},    {"restarts", r.restarts},
               {"exitCode", nullptr}, {"waitingReason", r.waiting_reason}};
  if (r.exit_code) item["exitCode"] = *r.exit_code;
  if (r.rank < 0) item["rank"] = nullptr;
  if (const auto it = s.last_output.find(r.pod); it != s.last_output.end()) {
    item["lastOutputTime"] = util::format_time(std::chrono::floor<std::chrono::seconds>(it->second));
  }
  return item;
}

void add_times(json& out, const JobStatus& s) {
  out["progress"] = s.progress ? progress_json(*s.progress) : json();
  out["startTime"] = s.start_time.empty() ? json() : json(s.start_time);
  out["finishTime"] = s.finish_time.empty() ? json() : json(s.finish_time);
  out["durationSeconds"] = s.duration ? json(std::llround(*s.duration)) : json();
  out["restarts"] = s.restarts;
}

}  // namespace

JobStatus make_job_status(const JobKind& kind, const json& job, const std::vector<json>& pods, WallTime now) {
  JobStatus s;
  s.kind = &kind;
  s.object = job;
  s.view = make_job_view(job, pods);
  const bool trainjob = &kind == &trainjob_kind();
  s.start_time = trainjob ? std::string() : util::string_at(util::member(job, "status"), "startTime");
  if (s.start_time.empty())
    s.start_time = util::string_at(util::member(job, "metadata"), "creationTimestamp");
  if (s.view.finished) {
    if (trainjob) {
      for (const auto& c : job.value("/status/conditions"_json_pointer, json::array())) {
        const std::string type = util::string_at(c, "type");
        if ((type == "Complete" || type == "Failed") && util::string_at(c, "status") == "True")
          s.finish_time = util::string_at(c, "lastTransitionTime");
      }
    } else {
      s.finish_time = util::string_at(util::member(job, "status"), "completionTime");
    }
  }
  const auto start = wall(s.start_time);
  const auto finish = s.view.finished ? wall(s.finish_time) : std::optional<WallTime>(now);
  if (start && finish && *finish >= *start)
    s.duration = std::chrono::duration<double>(*finish - *start).count();
  for (const auto& r : s.view.replicas) s.restarts += r.restarts;
  s.restarts += s.view.group_restarts;
  return s;
}

std::string duration_cell(const std::optional<double>& seconds) {
  if (!seconds) return "-";
  return util::format_age(std::chrono::seconds(std::llround(*seconds)));
}

std::string job_text(const JobStatus& s, bool wide, WallTime now) {
  const JobView& v = s.view;
  std::string out =
      fmt::format("{} {} ({}): {}\n", v.kind, v.name, v.ns, v.state.empty() ? "not reconciled yet" : v.state);
  if (!v.message.empty()) out += "  " + v.message + "\n";
  out += fmt::format("  {}: {}, restarts: {}\n", v.finished ? "ran for" : "running for",
                     duration_cell(s.duration), s.restarts);
  if (s.progress) out += "  progress: " + progress_line(*s.progress, v.finished ? 8 : 3) + "\n";
  std::vector<std::vector<std::string>> rows{{"POD", "RANK", "PHASE", "RESTARTS", "EXIT", "WAITING"}};
  if (wide) rows[0].insert(rows[0].end(), {"TYPE", "INDEX", "LAST OUTPUT", "MESSAGE"});
  for (const auto& r : v.replicas) {
    rows.push_back({r.pod, r.rank >= 0 ? std::to_string(r.rank) : "-", r.phase, std::to_string(r.restarts),
                    r.exit_code ? std::to_string(*r.exit_code) : "-", r.waiting_reason});
    if (wide) {
      const auto it = s.last_output.find(r.pod);
      const std::string age =
          it == s.last_output.end()
              ? "-"
              : util::format_age(std::chrono::duration_cast<std::chrono::seconds>(now - it->second)) + " ago";
      rows.back().insert(rows.back().end(),
                         {r.replica_type, std::to_string(r.index), age, replica_message(r)});
    }
  }
  return out + util::format_columns(rows);
}

std::string jobs_table(const std::vector<JobStatus>& jobs, bool all_namespaces, bool wide, bool header,
                       WallTime now) {
  std::vector<std::vector<std::string>> table;
  const auto row_of = [&](std::vector<std::string> cells, const std::string& ns_cell,
                          std::vector<std::string> wide_cells) {
    if (all_namespaces) cells.insert(cells.begin(), ns_cell);
    if (wide) cells.insert(cells.end(), wide_cells.begin(), wide_cells.end());
    return cells;
  };
  table.push_back(row_of({"NAME", "STATE", "PROGRESS", "ETA", "DURATION", "RESTARTS", "AGE"}, "NAMESPACE",
                         {"PODS", "MESSAGE"}));
  for (const auto& j : jobs) {
    table.push_back(
        row_of({std::string(j.kind->singular) + "/" + j.view.name, j.view.state.empty() ? "-" : j.view.state,
                percent_cell(j.progress), j.view.finished ? "-" : eta_cell(j.progress),
                duration_cell(j.duration), std::to_string(j.restarts),
                age_since(util::string_at(util::member(j.object, "metadata"), "creationTimestamp"), now)},
               j.view.ns, {desired_pods(*j.kind, j.object), j.view.message}));
  }
  std::string text = util::format_columns(table);
  if (header) return text;
  const auto nl = text.find('\n');
  return nl == std::string::npos ? std::string() : text.substr(nl + 1);
}

json job_json(const JobStatus& s) {
  const JobView& v = s.view;
  json replicas = json::array();
  for (const auto& r : v.replicas) replicas.push_back(replica_json(r, s));
  json out = {{"kind", v.kind},           {"name", v.name},
              {"namespace", v.ns},        {"state", v.state},
              {"message", v.message},     {"finished", v.finished},
              {"succeeded", v.succeeded}, {"groupRestarts", v.group_restarts},
              {"replicas", replicas}};
  add_times(out, s);
  return out;
}

json listed_job_json(const JobStatus& s, WallTime now) {
  json out = {
      {"kind", s.kind->singular},
      {"namespace", s.view.ns},
      {"name", s.view.name},
      {"state", s.view.state},
      {"age", age_since(util::string_at(util::member(s.object, "metadata"), "creationTimestamp"), now)}};
  add_times(out, s);
  return out;
}

std::string watch_line(const JobStatus& s) {
  std::string line =
      fmt::format("{}/{} {}", s.kind->singular, s.view.name, s.view.state.empty() ? "-" : s.view.state);
  if (s.progress) line += " " + progress_line(*s.progress);
  return line + fmt::format(" duration {} restarts {}", duration_cell(s.duration), s.restarts);
}

}  // namespace kpt::plugin
