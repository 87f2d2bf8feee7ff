#include "kube/exec_credential.hpp"

#include "util/base64.hpp"
#include "util/json_access.hpp"
#include "util/strings.hpp"
#include "util/time.hpp"

#include <nlohmann/json.hpp>

#include <ctime>

namespace kpt::kube {

namespace {

/// Drops the terminal escapes ESC [ digits-and-semicolons letter. By hand: the text is the plugin's
/// output, and std::regex recurses per character (a long escape overflowed the stack).
std::string strip_ansi(const std::string& s) {
  std::string out;
  out.reserve(s.size());
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\x1b' && i + 1 < s.size() && s[i + 1] == '[') {
      std::size_t end = i + 2;
      while (end < s.size() && ((s[end] >= '0' && s[end] <= '9') || s[end] == ';')) ++end;
      if (end < s.size() && ((s[end] >= 'A' && s[end] <= 'Z') || (s[end] >= 'a' && s[end] <= 'z'))) {
        i = end;
        continue;
      }
    }
    out += s[i];
  }
  return out;
}

}  // namespace

std::string exec_info_json(const ExecConfig& config, const ExecClusterInfo& cluster, bool interactive) {
  nlohmann::json spec = {{"interactive", interactive}};
  if (config.provide_cluster_info) {
    nlohmann::json c = nlohmann::json::object();
    c["server"] = cluster.server;
    if (!cluster.tls_server_name.empty()) c["tls-server-name"] = cluster.tls_server_name;
    if (cluster.insecure_skip_tls_verify) c["insecure-skip-tls-verify"] = true;
    if (!cluster.certificate_authority_data.empty())
      c["certificate-authority-data"] = util::base64_encode(cluster.certificate_authority_data);
    if (!cluster.proxy_url.empty()) c["proxy-url"] = cluster.proxy_url;
    if (cluster.disable_compression) c["disable-compression"] = true;
    if (!cluster.config_json.empty())
      c["config"] = nlohmann::json::parse(cluster.config_json, nullptr, false);
    spec["cluster"] = std::move(c);
  }
  return nlohmann::json{{"kind", "ExecCredential"}, {"apiVersion", config.api_version}, {"spec", spec}}
      .dump();
}

Expected<ExecCredential> parse_exec_output(const ExecConfig& config, const std::string& out) {
  auto fail = [](const std::string& m) { return make_error(ErrorCode::config, m); };
  const auto doc = nlohmann::json::parse(out, nullptr, false);
  if (doc.is_discarded() || !doc.is_object())
    return fail("decoding stdout: the exec plugin did not print JSON");
  const std::string api_version = util::string_at(doc, "apiVersion");
  if (util::string_at(doc, "kind") != "ExecCredential")
    return fail("decoding stdout: expected kind 'ExecCredential', got " +
                util::quote(util::string_at(doc, "kind")));
  if (api_version != config.api_version)
    return fail("exec plugin is configured to use API version " + config.api_version +
                ", plugin returned version " + api_version);
  if (!doc.contains("status") || !doc["status"].is_object())
    return fail("exec plugin didn't return a status field");
  const auto& st = doc["status"];
  ExecCredential cred;
  cred.token = util::string_at(st, "token");
  cred.client_certificate_pem = util::string_at(st, "clientCertificateData");
  cred.client_key_pem = util::string_at(st, "clientKeyData");
  if (cred.client_certificate_pem.empty() != cred.client_key_pem.empty())
    return fail("exec plugin returned only certificate or key, not both");
  if (cred.token.empty() && cred.client_certificate_pem.empty())
    return fail("exec plugin didn't return a token or cert/key pair");
  if (st.contains("expirationTimestamp") && st["expirationTimestamp"].is_string()) {
    if (auto t = util::parse_time(st["expirationTimestamp"].get<std::string>())) cred.expiration = *t;
    if (!cred.expiration)
      return fail("decoding stdout: invalid expirationTimestamp " +
                  util::quote(st["expirationTimestamp"].get<std::string>()));
  }
  return cred;
}

ExecCredentialProvider::ExecCredentialProvider(ExecConfig config, ExecClusterInfo cluster,
                                               CommandRunner& runner, std::map<std::string, std::string> env,
                                               bool stdin_is_terminal, Clock clock)
    : m_config(std::move(config)),
      m_cluster(std::move(cluster)),
      m_runner(runner),
      m_env(std::move(env)),
      m_stdin_is_terminal(stdin_is_terminal),
      m_clock(clock ? std::move(clock) : Clock([] { return std::chrono::system_clock::now(); })) {}

Expected<ExecCredential> ExecCredentialProvider::get() {
  std::lock_guard lock(m_mutex);
  if (m_cached && (!m_cached->expiration || m_clock() < *m_cached->expiration)) return *m_cached;
  auto fresh = run_plugin();
  if (!fresh) return fresh;
  m_cached = *fresh;
  ++m_generation;
  return fresh;
}

bool ExecCredentialProvider::unauthorized(std::uint64_t generation) {
  std::lock_guard lock(m_mutex);
  if (generation != m_generation || !m_cached) return false;
  m_cached.reset();
  return true;
}

std::uint64_t ExecCredentialProvider::generation() const {
  std::lock_guard lock(m_mutex);
  return m_generation;
}

Expected<ExecCredential> ExecCredentialProvider::run_plugin() {
  const std::string mode = m_config.interactive_mode.empty() ? "IfAvailable" : m_config.interactive_mode;
  bool interactive = false;
  if (mode == "Always") {
    if (!m_stdin_is_terminal)
      return make_error(ErrorCode::config,
                        "exec plugin cannot support interactive mode: standard input is not a terminal");
    interactive = true;
  } else if (mode == "IfAvailable") {
    interactive = m_stdin_is_terminal;
  }
  auto env = m_env;
  for (const auto& e : m_config.env) env[e.name] = e.value;
  env["KUBERNETES_EXEC_INFO"] = exec_info_json(m_config, m_cluster, interactive);
  auto result = m_runner.run(m_config.command, m_config.args, env, interactive);
  if (!result) {
    if (result.error().code == ErrorCode::not_found) {
      std::string message = "exec: executable " + m_config.command + " not found";
      if (!m_config.install_hint.empty()) message += "\n\n" + strip_ansi(m_config.install_hint);
      return make_error(ErrorCode::config, message);
    }
    return make_error(ErrorCode::config, "exec: " + result.error().message);
  }
  if (result->exit_code != 0)
    return make_error(ErrorCode::config, "exec: executable " + m_config.command + " failed with exit code " +
                                             std::to_string(result->exit_code));
  return parse_exec_output(m_config, result->out);
}

}  // namespace kpt::kube
