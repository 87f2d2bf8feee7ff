#include "apiserver/builtin_tables.hpp"

#include "apiserver/table.hpp"
#include "util/json_access.hpp"
#include "util/time.hpp"

#include <algorithm>
#include <cctype>
#include <map>
#include <vector>

namespace kpt::apiserver {

namespace {

using json = nlohmann::json;

const json& at(const json& obj, std::initializer_list<const char*> path) {
  static const json k_null;
  const json* cur = &obj;
  for (const char* key : path) {
    if (!cur->is_object()) return k_null;
    const auto it = cur->find(key);
    if (it == cur->end()) return k_null;
    cur = &*it;
  }
  return *cur;
}

std::string text(const json& obj, std::initializer_list<const char*> path, const std::string& fallback = {}) {
  const json& v = at(obj, path);
  if (v.is_string() && !v.get_ref<const std::string&>().empty()) return v.get<std::string>();
  return fallback;
}

std::int64_t number(const json& obj, std::initializer_list<const char*> path) {
  const json& v = at(obj, path);
  return v.is_number_integer() ? v.get<std::int64_t>() : 0;
}

std::size_t count_of(const json& v) { return v.is_object() || v.is_array() ? v.size() : 0; }

json builtin_column(const char* name, const char* type, const char* description, int priority = 0,
                    const char* format = "") {
  return {{"name", name},
          {"type", type},
          {"format", format},
          {"description", description},
          {"priority", priority}};
}

json name_column() {
  return builtin_column("Name", "string", "Name must be unique within a namespace", 0, "name");
}
json age_column() { return builtin_column("Age", "string", "CreationTimestamp of the object"); }

/// printers' translateTimestampSince: "<unknown>" for an absent time.
std::string since(const std::string& rfc3339, std::int64_t now) {
  if (!util::parse_time(rfc3339)) return "<unknown>";
  return human_duration(age_seconds(rfc3339, now));
}

std::string age(const json& obj, std::int64_t now) {
  return since(text(obj, {"metadata", "creationTimestamp"}), now);
}

/// labels.FormatLabels: "k=v,k2=v2" in key order, "<none>" when empty.
std::string format_labels(const json& labels) {
  if (!labels.is_object() || labels.empty()) return "<none>";
  std::map<std::string, std::string> sorted;
  for (const auto& [k, v] : labels.items()) sorted[k] = v.is_string() ? v.get<std::string>() : v.dump();
  std::string out;
  for (const auto& [k, v] : sorted) out += (out.empty() ? "" : ",") + k + "=" + v;
  return out;
}

/// metav1.FormatLabelSelector: matchLabels and matchExpressions as one selector string.
std::string format_selector(const json& selector) {
  std::vector<std::pair<std::string, std::string>> parts;
  for (const auto& [k, v] : at(selector, {"matchLabels"}).items())
    parts.emplace_back(k, k + "=" + (v.is_string() ? v.get<std::string>() : v.dump()));
  for (const auto& e : at(selector, {"matchExpressions"})) {
    const std::string key = util::string_at(e, "key");
    const std::string op = util::string_at(e, "operator");
    std::string values;
    for (const auto& v : e.value("values", json::array()))
      values += (values.empty() ? "" : ",") + v.get<std::string>();
    if (op == "In") parts.emplace_back(key, key + " in (" + values + ")");
    if (op == "NotIn") parts.emplace_back(key, key + " notin (" + values + ")");
    if (op == "Exists") parts.emplace_back(key, key);
    if (op == "DoesNotExist") parts.emplace_back(key, "!" + key);
  }
  if (parts.empty()) return "<none>";
  std::stable_sort(parts.begin(), parts.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  std::string out;
  for (const auto& p : parts) out += (out.empty() ? "" : ",") + p.second;
  return out;
}

/// layoutContainerCells: container names and images, comma-joined.
std::pair<std::string, std::string> container_cells(const json& pod_spec) {
  std::string names;
  std::string images;
  for (const auto& c : at(pod_spec, {"containers"})) {
    names += (names.empty() ? "" : ",") + util::string_at(c, "name");
    images += (images.empty() ? "" : ",") + util::string_at(c, "image");
  }
  return {names, images};
}

bool condition_true(const json& conditions, const std::string& type) {
  for (const auto& c : conditions) {
    if (util::string_at(c, "type") == type) return util::string_at(c, "status") == "True";
  }
  return false;
}

// --- pods --------------------------------------------------------------------------------------

struct PodCounts {
  int restarts = 0;
  int ready = 0;
  std::string last_restart;  // the newest lastState.terminated.finishedAt
};

void note_restart(PodCounts& counts, const json& status) {
  counts.restarts += static_cast<int>(number(status, {"restartCount"}));
  const std::string finished = text(status, {"lastState", "terminated", "finishedAt"});
  if (finished > counts.last_restart) counts.last_restart = finished;
}

std::string terminated_reason(const json& terminated, const std::string& prefix) {
  const std::string reason = text(terminated, {"reason"});
  if (!reason.empty()) return prefix + reason;
  if (number(terminated, {"signal"}) != 0)
    return prefix + "Signal:" + std::to_string(number(terminated, {"signal"}));
  return prefix + "ExitCode:" + std::to_string(number(terminated, {"exitCode"}));
}

/// The init containers' part of the status; true while they still run (or failed).
bool init_reason(const json& pod, PodCounts& counts, std::string& reason) {
  const json& statuses = at(pod, {"status", "initContainerStatuses"});
  const std::size_t total = count_of(at(pod, {"spec", "initContainers"}));
  for (std::size_t i = 0; i < count_of(statuses); ++i) {
    const json& s = statuses[i];
    note_restart(counts, s);
    const json& terminated = at(s, {"state", "terminated"});
    const std::string waiting = text(s, {"state", "waiting", "reason"});
    if (terminated.is_object() && number(terminated, {"exitCode"}) == 0) continue;
    if (terminated.is_object()) {
      reason = terminated_reason(terminated, "Init:");
    } else if (!waiting.empty() && waiting != "PodInitializing") {
      reason = "Init:" + waiting;
    } else {
      reason = "Init:" + std::to_string(i) + "/" + std::to_string(total);
    }
    return true;
  }
  return false;
}

std::string pod_reason(const json& pod, PodCounts& counts) {
  // The real server's create strategy sets Pending; a pod stored without status is that too.
  const std::string phase = text(pod, {"status", "phase"}, "Pending");
  std::string reason = text(pod, {"status", "reason"}, phase);
  const bool initializing = init_reason(pod, counts, reason);
  if (!initializing || condition_true(at(pod, {"status", "conditions"}), "Initialized")) {
    counts.restarts = 0;
    bool has_running = false;
    const json& statuses = at(pod, {"status", "containerStatuses"});
    for (std::size_t i = count_of(statuses); i-- > 0;) {
      const json& s = statuses[i];
      note_restart(counts, s);
      const std::string waiting = text(s, {"state", "waiting", "reason"});
      const json& terminated = at(s, {"state", "terminated"});
      if (!waiting.empty()) {
        reason = waiting;
      } else if (terminated.is_object()) {
        reason = terminated_reason(terminated, "");
      } else if (s.value("ready", false) && at(s, {"state", "running"}).is_object()) {
        has_running = true;
        ++counts.ready;
      }
    }
    if (reason == "Completed" && has_running) {
      reason = condition_true(at(pod, {"status", "conditions"}), "Ready") ? "Running" : "NotReady";
    }
  }
  const bool terminal = phase == "Succeeded" || phase == "Failed";
  if (at(pod, {"metadata", "deletionTimestamp"}).is_string() && !terminal) reason = "Terminating";
  return reason;
}

json pod_cells(const json& pod, std::int64_t now) {
  PodCounts counts;
  const std::string reason = pod_reason(pod, counts);
  std::string restarts = std::to_string(counts.restarts);
  if (counts.restarts != 0 && !counts.last_restart.empty())
    restarts += " (" + since(counts.last_restart, now) + " ago)";
  const json& ips = at(pod, {"status", "podIPs"});
  std::string ip = ips.is_array() && !ips.empty() ? text(ips[0], {"ip"}) : "";
  std::string gates = "<none>";
  const json& wanted = at(pod, {"spec", "readinessGates"});
  if (count_of(wanted) > 0) {
    int met = 0;
    for (const auto& g : wanted)
      met += condition_true(at(pod, {"status", "conditions"}), util::string_at(g, "conditionType")) ? 1 : 0;
    gates = std::to_string(met) + "/" + std::to_string(wanted.size());
  }
  const std::string ready =
      std::to_string(counts.ready) + "/" + std::to_string(count_of(at(pod, {"spec", "containers"})));
  return json::array({text(pod, {"metadata", "name"}), ready, reason, restarts, age(pod, now),
                      ip.empty() ? "<none>" : ip, text(pod, {"spec", "nodeName"}, "<none>"),
                      text(pod, {"status", "nominatedNodeName"}, "<none>"), gates});
}

// --- other kinds ---------------------------------------------------------------------------------

std::string service_external_ip(const json& svc) {
  std::string external;
  for (const auto& ip : at(svc, {"spec", "externalIPs"}))
    external += (external.empty() ? "" : ",") + ip.get<std::string>();
  const std::string type = text(svc, {"spec", "type"}, "ClusterIP");
  if (type == "ClusterIP" || type == "NodePort") return external.empty() ? "<none>" : external;
  if (type == "LoadBalancer") {
    std::string lb;
    for (const auto& in : at(svc, {"status", "loadBalancer", "ingress"})) {
      const std::string v = text(in, {"ip"}, text(in, {"hostname"}));
      if (!v.empty()) lb += (lb.empty() ? "" : ",") + v;
    }
    if (!external.empty()) return lb.empty() ? external : lb + "," + external;
    return lb.empty() ? "<pending>" : lb;
  }
  if (type == "ExternalName") return text(svc, {"spec", "externalName"});
  return "<unknown>";
}

json service_cells(const json& svc, std::int64_t now) {
  std::string ports;
  for (const auto& p : at(svc, {"spec", "ports"})) {
    std::string piece = std::to_string(p.value("port", 0));
    if (p.value("nodePort", 0) > 0) piece += ":" + std::to_string(p.value("nodePort", 0));
    ports += (ports.empty() ? "" : ",") + piece + "/" + p.value("protocol", "TCP");
  }
  return json::array({text(svc, {"metadata", "name"}), text(svc, {"spec", "type"}, "ClusterIP"),
                      text(svc, {"spec", "clusterIP"}, "<none>"), service_external_ip(svc),
                      ports.empty() ? "<none>" : ports, age(svc, now),
                      format_labels(at(svc, {"spec", "selector"}))});
}

json event_cells(const json& ev, std::int64_t now) {
  std::string first = since(text(ev, {"firstTimestamp"}), now);
  if (!util::parse_time(text(ev, {"firstTimestamp"}))) first = since(text(ev, {"eventTime"}), now);
  std::string last =
      util::parse_time(text(ev, {"lastTimestamp"})) ? since(text(ev, {"lastTimestamp"}), now) : first;
  std::int64_t count = number(ev, {"count"});
  if (at(ev, {"series"}).is_object()) {
    last = since(text(ev, {"series", "lastObservedTime"}), now);
    count = number(ev, {"series", "count"});
  } else if (count == 0) {
    count = 1;  // singleton events of the events.k8s.io API have no count
  }
  std::string kind = text(ev, {"involvedObject", "kind"});
  std::transform(kind.begin(), kind.end(), kind.begin(), [](unsigned char c) { return std::tolower(c); });
  const std::string name = text(ev, {"involvedObject", "name"});
  const std::string component = text(ev, {"source", "component"}, text(ev, {"reportingComponent"}));
  const std::string host = text(ev, {"source", "host"}, text(ev, {"reportingInstance"}));
  const std::string source = component.empty() ? "" : (host.empty() ? component : component + ", " + host);
  std::string message = text(ev, {"message"});
  message.erase(message.find_last_not_of(" \t\r\n") + 1);
  message.erase(0, std::min(message.find_first_not_of(" \t\r\n"), message.size()));
  return json::array({last, text(ev, {"type"}), text(ev, {"reason"}), name.empty() ? kind : kind + "/" + name,
                      text(ev, {"involvedObject", "fieldPath"}), source, message, first, count,
                      text(ev, {"metadata", "name"})});
}

json deployment_cells(const json& d, std::int64_t now) {
  const json& replicas = at(d, {"spec", "replicas"});
  const auto desired = replicas.is_number_integer() ? replicas.get<std::int64_t>() : 1;
  const auto [names, images] = container_cells(at(d, {"spec", "template", "spec"}));
  return json::array({text(d, {"metadata", "name"}),
                      std::to_string(number(d, {"status", "readyReplicas"})) + "/" + std::to_string(desired),
                      number(d, {"status", "updatedReplicas"}), number(d, {"status", "availableReplicas"}),
                      age(d, now), names, images, format_selector(at(d, {"spec", "selector"}))});
}

std::string job_status(const json& job) {
  const json& conditions = at(job, {"status", "conditions"});
  if (condition_true(conditions, "Complete")) return "Complete";
  if (condition_true(conditions, "Failed")) return "Failed";
  if (at(job, {"metadata", "deletionTimestamp"}).is_string()) return "Terminating";
  if (condition_true(conditions, "Suspended")) return "Suspended";
  if (condition_true(conditions, "FailureTarget")) return "FailureTarget";
  return "Running";
}

json job_cells(const json& job, std::int64_t now) {
  const auto succeeded = std::to_string(number(job, {"status", "succeeded"}));
  std::string completions;
  if (at(job, {"spec", "completions"}).is_number_integer()) {
    completions = succeeded + "/" + std::to_string(number(job, {"spec", "completions"}));
  } else {
    const auto parallelism = number(job, {"spec", "parallelism"});
    completions = succeeded + "/1" + (parallelism > 1 ? " of " + std::to_string(parallelism) : "");
  }
  std::string duration;
  const auto start = util::parse_time(text(job, {"status", "startTime"}));
  if (start) {
    const auto end = util::parse_time(text(job, {"status", "completionTime"}));
    const std::int64_t until = end ? end->time_since_epoch().count() : now;
    duration = human_duration(until - start->time_since_epoch().count());
  }
  const auto [names, images] = container_cells(at(job, {"spec", "template", "spec"}));
  return json::array({text(job, {"metadata", "name"}), job_status(job), completions, duration, age(job, now),
                      names, images, format_selector(at(job, {"spec", "selector"}))});
}

json cronjob_cells(const json& cj, std::int64_t now) {
  const std::string last = text(cj, {"status", "lastScheduleTime"});
  const json& suspend = at(cj, {"spec", "suspend"});
  const auto [names, images] = container_cells(at(cj, {"spec", "jobTemplate", "spec", "template", "spec"}));
  return json::array({text(cj, {"metadata", "name"}), text(cj, {"spec", "schedule"}),
                      text(cj, {"spec", "timeZone"}, "<none>"),
                      suspend.is_boolean() ? (suspend.get<bool>() ? "True" : "False") : "<unset>",
                      static_cast<std::int64_t>(count_of(at(cj, {"status", "active"}))),
                      last.empty() ? "<none>" : since(last, now), age(cj, now), names, images,
                      format_selector(at(cj, {"spec", "jobTemplate", "spec", "selector"}))});
}

using Printers = std::map<std::string, BuiltinPrinter>;

void add_pod_and_service(Printers& p) {
  p["/Pod"] = {
      json::array(
          {name_column(),
           builtin_column("Ready", "string",
                          "The aggregate readiness state of this pod for accepting traffic."),
           builtin_column("Status", "string", "The aggregate status of the containers in this pod."),
           builtin_column(
               "Restarts", "string",
               "The number of times the containers in this pod have been restarted and when the last "
               "container in this pod has restarted."),
           age_column(), builtin_column("IP", "string", "The IP address allocated to the pod.", 1),
           builtin_column("Node", "string", "The node the pod is bound to.", 1),
           builtin_column("Nominated Node", "string", "The node the scheduler nominated for the pod.", 1),
           builtin_column("Readiness Gates", "string", "Pod readiness gates met, of those the spec names.",
                          1)}),
      pod_cells};
  p["/Service"] = {
      json::array({name_column(), builtin_column("Type", "string", "The type of the service."),
                   builtin_column("Cluster-IP", "string", "The IP address of the service."),
                   builtin_column("External-IP", "string", "The external IPs of the service."),
                   builtin_column("Port(s)", "string", "The ports of the service."), age_column(),
                   builtin_column("Selector", "string", "The labels of the pods the service routes to.", 1)}),
      service_cells};
}

void add_core_data(Printers& p) {
  p["/Namespace"] = {
      json::array(
          {name_column(), builtin_column("Status", "string", "The status of the namespace"), age_column()}),
      [](const json& ns, std::int64_t now) {
        return json::array(
            {text(ns, {"metadata", "name"}), text(ns, {"status", "phase"}, "Active"), age(ns, now)});
      }};
  p["/Event"] = {
      json::array({builtin_column("Last Seen", "string", "The time the event was last seen."),
                   builtin_column("Type", "string", "Normal or Warning."),
                   builtin_column("Reason", "string", "Why the event happened."),
                   builtin_column("Object", "string", "The object the event is about."),
                   builtin_column("Subobject", "string", "The part of the object the event is about.", 1),
                   builtin_column("Source", "string", "The component that reported the event.", 1),
                   builtin_column("Message", "string", "What happened."),
                   builtin_column("First Seen", "string", "The time the event was first seen.", 1),
                   builtin_column("Count", "string", "How many times the event happened.", 1),
                   builtin_column("Name", "string", "Name must be unique within a namespace", 1, "name")}),
      event_cells};
  p["/ConfigMap"] = {json::array({name_column(), builtin_column("Data", "string", "The number of data keys."),
                                  age_column()}),
                     [](const json& cm, std::int64_t now) {
                       return json::array({text(cm, {"metadata", "name"}),
                                           static_cast<std::int64_t>(count_of(at(cm, {"data"})) +
                                                                     count_of(at(cm, {"binaryData"}))),
                                           age(cm, now)});
                     }};
  p["/Secret"] = {json::array({name_column(), builtin_column("Type", "string", "The type of the secret."),
                               builtin_column("Data", "string", "The number of data keys."), age_column()}),
                  [](const json& s, std::int64_t now) {
                    return json::array({text(s, {"metadata", "name"}), text(s, {"type"}),
                                        static_cast<std::int64_t>(count_of(at(s, {"data"}))), age(s, now)});
                  }};
  p["/ServiceAccount"] = {
      json::array(
          {name_column(), builtin_column("Secrets", "string", "The number of secrets."), age_column()}),
      [](const json& sa, std::int64_t now) {
        return json::array({text(sa, {"metadata", "name"}),
                            static_cast<std::int64_t>(count_of(at(sa, {"secrets"}))), age(sa, now)});
      }};
}

void add_workloads(Printers& p) {
  const json containers =
      builtin_column("Containers", "string", "Names of each container in the template.", 1);
  const json images =
      builtin_column("Images", "string", "Images referenced by each container in the template.", 1);
  p["coordination.k8s.io/Lease"] = {
      json::array(
          {name_column(), builtin_column("Holder", "string", "The holder of the lease."), age_column()}),
      [](const json& l, std::int64_t now) {
        return json::array({text(l, {"metadata", "name"}), text(l, {"spec", "holderIdentity"}), age(l, now)});
      }};
  p["apps/Deployment"] = {
      json::array({name_column(), builtin_column("Ready", "string", "Ready replicas of the desired ones."),
                   builtin_column("Up-to-date", "integer", "Replicas with the newest template."),
                   builtin_column("Available", "integer", "Available replicas."), age_column(), containers,
                   images,
                   builtin_column("Selector", "string", "The selector of the deployment's pods.", 1)}),
      deployment_cells};
  p["batch/Job"] = {
      json::array({name_column(), builtin_column("Status", "string", "Status of the job."),
                   builtin_column("Completions", "string", "Succeeded pods of the completions wanted."),
                   builtin_column("Duration", "string", "Time required to complete the job."), age_column(),
                   containers, images,
                   builtin_column("Selector", "string", "The selector of the job's pods.", 1)}),
      job_cells};
  p["batch/CronJob"] = {
      json::array({name_column(), builtin_column("Schedule", "string", "The schedule in Cron format."),
                   builtin_column("Timezone", "string", "The time zone of the schedule."),
                   builtin_column("Suspend", "boolean", "Whether runs are suspended."),
                   builtin_column("Active", "integer", "The jobs running now."),
                   builtin_column("Last Schedule", "string", "When a job was last scheduled."), age_column(),
                   containers, images,
                   builtin_column("Selector", "string", "The selector of the jobs' pods.", 1)}),
      cronjob_cells};
}

Printers make_printers() {
  Printers p;
  add_pod_and_service(p);
  add_core_data(p);
  add_workloads(p);
  return p;
}

}  // namespace

const BuiltinPrinter* builtin_printer(const ResourceInfo& res) {
  static const auto k_printers = make_printers();
  if (res.custom) return nullptr;
  const auto it = k_printers.find(res.group + "/" + res.kind);
  return it == k_printers.end() ? nullptr : &it->second;
}

}  // namespace kpt::apiserver
