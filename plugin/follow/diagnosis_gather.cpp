#include "plugin/follow/diagnosis_gather.hpp"

#include "model/k8s/object_meta.hpp"
#include "plugin/follow/job_view.hpp"
#include "plugin/follow/last_output.hpp"
#include "util/json_access.hpp"
#include "util/time.hpp"

#include <nlohmann/json.hpp>

namespace kpt::plugin {

namespace {

using nlohmann::json;

std::optional<std::vector<std::string>> read_tail(kube::ApiClient& api, const std::string& ns,
                                                  const ReplicaView& r, bool previous, std::int64_t lines) {
  std::string path = kube::resources::pods().object_path(ns, r.pod, "log") + "?container=" + r.container +
                     "&tailLines=" + std::to_string(lines);
  if (previous) path += "&previous=true";
  auto text = api.get_raw(path);
  if (!text) return std::nullopt;
  return split_log_lines(*text);
}

}  // namespace

std::vector<std::string> split_log_lines(std::string_view text) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (start < text.size()) {
    auto nl = text.find('\n', start);
    if (nl == std::string_view::npos) nl = text.size();
    out.emplace_back(text.substr(start, nl - start));
    start = nl + 1;
  }
  return out;
}

bool event_of_job(const json& event, const json& job) {
  const std::string name = model::k8s::name_of(job);
  const json& object = util::object_at(event, "involvedObject");
  const std::string object_name = util::string_at(object, "name");
  if (object_name == name) {
    const std::string uid = util::string_at(object, "uid");
    const std::string job_uid = model::k8s::uid_of(job);
    return uid.empty() || job_uid.empty() || uid == job_uid;
  }
  if (object_name.rfind(name + "-", 0) != 0) return false;
  // An event's newest time: lastTimestamp (core/v1 events), else eventTime (events.k8s.io).
  std::string at = util::string_at(event, "lastTimestamp");
  if (at.empty()) at = util::string_at(event, "eventTime");
  const auto when = util::parse_time(at);
  const auto created = util::parse_time(model::k8s::meta_string(job, "creationTimestamp"));
  return !when || !created || *when >= *created;
}

std::vector<json> job_warning_events(kube::ApiClient& api, const std::string& ns, const json& job) {
  kube::ListOptions options;
  options.field_selector = "type=Warning";
  auto events = api.list(kube::resources::events(), ns, options);
  std::vector<json> out;
  if (!events) return out;
  for (auto& e : events->items) {
    if (event_of_job(e, job)) out.push_back(std::move(e));
  }
  return out;
}

Expected<DiagnosisInput> gather_diagnosis(kube::ApiClient& api, const FoundJob& job, const std::string& ns,
                                          const GatherOptions& options) {
  DiagnosisInput in;
  in.job = job.object;
  in.now = options.now;
  in.silence = options.silence;
  const std::string name = model::k8s::name_of(job.object);
  auto pods = list_job_pods(api, *job.kind, ns, name);
  if (!pods) return pods.error();
  in.pods = pods->items;
  in.events = job_warning_events(api, ns, job.object);
  const JobView view = make_job_view(in.job, in.pods);
  for (const auto& r : view.replicas) {
    if (!r.started && r.restarts == 0) continue;
    if (auto lines = read_tail(api, ns, r, false, options.tail_lines)) {
      RunLog log{r.pod, false, std::move(*lines), std::nullopt};
      if (r.phase == "Running" && options.probe != nullptr) {
        for (const auto& pod : in.pods) {
          if (model::k8s::name_of(pod) != r.pod) continue;
          log.last_output = options.probe->last_output(pod, r.container);
          if (!log.last_output) log.last_output = run_started(pod, r.container);
        }
      }
      in.logs.push_back(std::move(log));
    }
    if (r.restarts > 0) {
      if (auto lines = read_tail(api, ns, r, true, options.tail_lines))
        in.logs.push_back(RunLog{r.pod, true, std::move(*lines), std::nullopt});
    }
  }
  return in;
}

}  // namespace kpt::plugin
