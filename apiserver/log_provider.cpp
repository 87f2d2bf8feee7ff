#include "apiserver/log_provider.hpp"

#include "apiserver/query_params.hpp"
#include "model/k8s/object_meta.hpp"
#include "util/json_access.hpp"
#include "util/strings.hpp"
#include "util/time.hpp"

#include <nlohmann/json.hpp>

namespace kpt::apiserver {

namespace {

StatusCause invalid_integer(const std::string& field, std::int64_t value, const std::string& why) {
  return {"FieldValueInvalid", "Invalid value: " + std::to_string(value) + ": " + why, field};
}

}  // namespace

Expected<LogRequest> log_request_of(const HttpRequest& request, const std::string& ns, const std::string& pod,
                                    std::chrono::system_clock::time_point now) {
  LogRequest out;
  out.ns = ns;
  out.pod = pod;
  out.container = request.param("container");
  out.follow = request.flag("follow");
  out.previous = request.flag("previous");
  out.timestamps = request.flag("timestamps");
  auto tail = int64_param(request, "tailLines");
  if (!tail) return tail.error();
  auto limit = int64_param(request, "limitBytes");
  if (!limit) return limit.error();
  auto since_seconds = int64_param(request, "sinceSeconds");
  if (!since_seconds) return since_seconds.error();
  std::optional<util::Time> since_time;
  if (request.has_param("sinceTime")) {
    const std::string text = request.param("sinceTime");
    since_time = util::parse_time(text);
    if (!since_time) {
      return bad_request("parsing time \"" + text +
                         "\" as \"2006-01-02T15:04:05Z07:00\": not an RFC 3339 time");
    }
  }
  std::vector<StatusCause> causes;
  if (*tail && **tail < 0)
    causes.push_back(invalid_integer("tailLines", **tail, "must be greater than or equal to 0"));
  if (*limit && **limit < 1)
    causes.push_back(invalid_integer("limitBytes", **limit, "must be greater than 0"));
  if (*since_seconds && since_time) {
    causes.push_back({"FieldValueForbidden",
                      "Forbidden: at most one of `sinceTime` or `sinceSeconds` may be specified", ""});
  } else if (*since_seconds && **since_seconds < 1) {
    causes.push_back(invalid_integer("sinceSeconds", **since_seconds, "must be greater than 0"));
  }
  if (!causes.empty()) return invalid("", "PodLogOptions", pod, causes);
  out.tail_lines = *tail;
  out.limit_bytes = *limit;
  if (*since_seconds) {
    // Bounded so that a huge value cannot overflow the clock: past a century, it is all the log.
    const auto seconds = std::min<std::int64_t>(**since_seconds, std::int64_t{100} * 365 * 24 * 3600);
    out.since = now - std::chrono::seconds(seconds);
  } else if (since_time) {
    out.since = std::chrono::system_clock::time_point(*since_time);
  }
  return out;
}

std::string limit_log(std::string text, std::optional<std::int64_t> tail_lines,
                      std::optional<std::int64_t> limit_bytes) {
  if (tail_lines && *tail_lines >= 0) {
    std::int64_t lines = 0;
    std::size_t pos = text.size();
    // A final newline ends the last line; it does not start a new one.
    if (pos > 0 && text[pos - 1] == '\n') --pos;
    while (pos > 0) {
      if (text[pos - 1] == '\n') {
        if (++lines == *tail_lines) break;
      }
      --pos;
    }
    if (*tail_lines == 0) pos = text.size();
    text = text.substr(pos);
  }
  if (limit_bytes && *limit_bytes >= 0 && static_cast<std::size_t>(*limit_bytes) < text.size()) {
    text.resize(static_cast<std::size_t>(*limit_bytes));
  }
  return text;
}

Expected<std::string> resolve_container(const LogRequest& request, const nlohmann::json& pod) {
  return resolve_container(request.container, pod);
}

Expected<std::string> resolve_container(const std::string& container, const nlohmann::json& pod) {
  std::vector<std::string> names;
  if (pod.contains("spec") && pod["spec"].contains("containers")) {
    for (const auto& c : pod["spec"]["containers"]) names.push_back(util::string_at(c, "name"));
  }
  const std::string pod_name = model::k8s::meta_string(pod, "name");
  if (container.empty()) {
    if (names.size() == 1) return names.front();
    std::string list;
    for (const auto& n : names) list += (list.empty() ? "" : " ") + n;
    return bad_request("a container name must be specified for pod " + pod_name + ", choose one of: [" +
                       list + "]");
  }
  for (const auto& n : names) {
    if (n == container) return n;
  }
  return bad_request("container " + container + " is not valid for pod " + pod_name);
}

Expected<std::unique_ptr<LogStream>> NoLogProvider::open(const LogRequest& request,
                                                         const nlohmann::json& /*pod*/) {
  return bad_request("no logs for pod " + util::quote(request.pod) + ": no node runs pods on this server");
}

}  // namespace kpt::apiserver
