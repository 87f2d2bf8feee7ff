// pods/exec: the WebSocket upgrade (RFC 6455 section 4.2) in front of an exec session.
#include "apiserver/api_handler.hpp"
#include "apiserver/websocket.hpp"
#include "util/json_access.hpp"
#include "util/strings.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>

namespace kpt::apiserver {

namespace {

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  return s;
}

std::string trim(const std::string& s) {
  const auto b = s.find_first_not_of(" \t");
  if (b == std::string::npos) return {};
  return s.substr(b, s.find_last_not_of(" \t") - b + 1);
}

/// Whether a comma-separated header value holds `token` (case-insensitive).
bool has_token(const std::string& header, const std::string& token) {
  std::size_t start = 0;
  while (start <= header.size()) {
    const auto comma = header.find(',', start);
    const auto item =
        trim(header.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
    if (lower(item) == token) return true;
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return false;
}

Error upgrade_required(const std::string& why) { return make_api_error(400, "BadRequest", why); }

}  // namespace

std::optional<Error> NoExecProvider::check(const ExecRequest& request, const nlohmann::json& /*pod*/) {
  return make_api_error(
      400, "BadRequest",
      "pod " + request.pod + " is not running on a node: this server has no node to exec in");
}

std::unique_ptr<ExecProcess> NoExecProvider::start(const ExecRequest& /*request*/,
                                                   const nlohmann::json& /*pod*/, ExecStartError& error) {
  error.message = "this server has no node to exec in";
  return nullptr;
}

Expected<ExecRequest> parse_exec_request(const HttpRequest& req, const std::string& ns,
                                         const std::string& pod) {
  ExecRequest out;
  out.ns = ns;
  out.pod = pod;
  out.container = req.param("container");
  const auto range = req.query.equal_range("command");
  for (auto it = range.first; it != range.second; ++it) out.command.push_back(it->second);
  out.with_stdin = req.flag("stdin");
  out.with_stdout = req.flag("stdout");
  out.with_stderr = req.flag("stderr");
  out.tty = req.flag("tty");
  // Wording of k8s.io/kubernetes pkg/registry/core/pod/rest/subresources.go (newExecOptions).
  if (out.command.empty()) return bad_request("you must specify at least 1 command");
  if (!out.with_stdin && !out.with_stdout && !out.with_stderr) {
    return bad_request("you must specify at least one of stdin, stdout, stderr");
  }
  return out;
}

std::string choose_exec_protocol(const std::string& offered) {
  for (const char* mine : {k_exec_protocol_v5, k_exec_protocol_v4}) {
    if (has_token(offered, mine)) return mine;
  }
  return {};
}

HttpResponse ApiHandler::do_exec(const HttpRequest& req, const Target& t) {
  auto pod = m_ops.get(*t.resource, t.ns, t.name);
  if (!pod) return error_response(pod.error());
  auto exec = parse_exec_request(req, t.ns, t.name);
  if (!exec) return error_response(exec.error());
  auto container = resolve_container(exec.value().container, pod.value());
  if (!container) return error_response(container.error());
  exec.value().container = container.value();
  const std::string phase = util::string_at(util::member(pod.value(), "status"), "phase");
  if (phase == "Succeeded" || phase == "Failed") {
    return error_response(
        bad_request("cannot exec into a container in a completed pod; current phase is " + phase));
  }
  const auto upgrade = lower(req.header("upgrade"));
  if (upgrade != "websocket") {
    return error_response(upgrade_required(
        upgrade.empty()
            ? "Upgrade request required"
            : "this server speaks exec over WebSocket (v5.channel.k8s.io, v4.channel.k8s.io) only, "
              "not " +
                  util::quote(req.header("upgrade"))));
  }
  if (!has_token(req.header("connection"), "upgrade"))
    return error_response(upgrade_required("Upgrade request required"));
  if (req.header("sec-websocket-version") != "13") {
    auto r = error_response(upgrade_required("unsupported WebSocket version: this server speaks version 13"));
    r.headers.emplace_back("Sec-WebSocket-Version", "13");
    return r;
  }
  const std::string key = req.header("sec-websocket-key");
  if (!ws::valid_client_key(key))
    return error_response(upgrade_required("a valid Sec-WebSocket-Key is required"));
  const std::string protocol = choose_exec_protocol(req.header("sec-websocket-protocol"));
  if (protocol.empty()) {
    return error_response(
        upgrade_required("none of the offered subprotocols is served; this server speaks v5.channel.k8s.io "
                         "and v4.channel.k8s.io"));
  }
  if (auto refused = m_exec->check(exec.value(), pod.value())) return error_response(*refused);

  HttpResponse r;
  r.status = 101;
  r.headers = {{"Upgrade", "websocket"},
               {"Connection", "Upgrade"},
               {"Sec-WebSocket-Accept", ws::accept_key(key)},
               {"Sec-WebSocket-Protocol", protocol}};
  auto provider = m_exec;
  auto request = exec.value();
  auto pod_object = pod.value();
  r.upgrade = [provider, request, pod_object, protocol](UpgradedConnection& conn,
                                                        const std::atomic<bool>& stopping) {
    ExecStartError error;
    auto process = provider->start(request, pod_object, error);
    run_exec_session(conn, process.get(), error, protocol, stopping);
  };
  return r;
}

}  // namespace kpt::apiserver
