// Status error decoding, redaction and the client factory.
#include "kube/rest_client.hpp"
#include "util/json_access.hpp"

#include <nlohmann/json.hpp>

#include <unistd.h>

namespace kpt::kube {

namespace {

std::string default_message(int status, const std::string& method) {
  switch (status) {
    case 400:
      return "the server rejected our request for an unknown reason";
    case 401:
      return "the server has asked for the client to provide credentials";
    case 403:
      return "the server does not allow access to the requested resource";
    case 404:
      return "the server could not find the requested resource";
    case 405:
      return "the server does not allow this method on the requested resource";
    case 409:
      return "the server reported a conflict";
    case 410:
      return "the server reported the requested resource is gone";
    case 415:
      return "the server has rejected the request's media type";
    case 422:
      return "the server rejected our request due to an error in our request";
    case 429:
      return "the server has received too many requests and has asked us to try again later";
    case 500:
      return "an error on the server has prevented the request from succeeding";
    case 503:
      return "the server is currently unable to handle the request";
    case 504:
      return "the server was unable to return a response in the time allotted, but may still be processing "
             "the request";
    default:
      return "the server responded with the status code " + std::to_string(status) + " to " + method;
  }
}

std::string default_reason(int status) {
  switch (status) {
    case 400:
      return "BadRequest";
    case 401:
      return "Unauthorized";
    case 403:
      return "Forbidden";
    case 404:
      return "NotFound";
    case 405:
      return "MethodNotAllowed";
    case 409:
      return "Conflict";
    case 410:
      return "Gone";
    case 415:
      return "UnsupportedMediaType";
    case 422:
      return "Invalid";
    case 429:
      return "TooManyRequests";
    case 500:
      return "InternalError";
    case 503:
      return "ServiceUnavailable";
    case 504:
      return "Timeout";
    default:
      return "Unknown";
  }
}

// The Status' details as the Error carries them; fields of the wrong type are left out.
ErrorDetails decode_details(const nlohmann::json& d) {
  ErrorDetails out;
  if (!d.is_object()) return out;
  const auto text = util::string_at;
  out.name = text(d, "name");
  out.group = text(d, "group");
  out.kind = text(d, "kind");
  if (d.contains("retryAfterSeconds") && d["retryAfterSeconds"].is_number_integer())
    out.retry_after_seconds = d["retryAfterSeconds"].get<int>();
  if (d.contains("causes") && d["causes"].is_array()) {
    for (const auto& c : d["causes"]) {
      if (c.is_object()) out.causes.push_back({text(c, "reason"), text(c, "message"), text(c, "field")});
    }
  }
  return out;
}

std::string current_dir() {
  char buf[4096];
  return ::getcwd(buf, sizeof buf) != nullptr ? std::string(buf) : std::string();
}

}  // namespace

Error decode_status_error(int http_status, const std::string& body, const std::string& method) {
  Error e = make_api_error(http_status, default_reason(http_status), default_message(http_status, method));
  const auto doc = nlohmann::json::parse(body, nullptr, false);
  if (doc.is_discarded() || !doc.is_object() || util::string_at(doc, "kind") != "Status") {
    return e;
  }
  if (doc.contains("code") && doc["code"].is_number_integer() && doc["code"].get<int>() != 0)
    e.http_status = doc["code"].get<int>();
  if (auto r = util::string_at(doc, "reason"); !r.empty()) e.reason = r;
  if (auto m = util::string_at(doc, "message"); !m.empty()) e.message = m;
  if (doc.contains("details")) e.details = decode_details(doc["details"]);
  if (doc.contains("details") && doc["details"].is_object() && doc["details"].contains("causes") &&
      doc["details"]["causes"].is_array()) {
    std::string listed;
    bool all_present = true;
    for (const auto& c : doc["details"]["causes"]) {
      if (!c.is_object()) continue;
      const std::string message = util::string_at(c, "message");
      std::string item = util::string_at(c, "field");
      item += item.empty() ? message : ": " + message;
      if (e.message.find(item) == std::string::npos && e.message.find(message) == std::string::npos)
        all_present = false;
      listed += (listed.empty() ? "" : ", ") + item;
    }
    if (!all_present && !listed.empty()) e.message += ": " + listed;
  }
  return e;
}

std::string redact(std::string text, const std::vector<std::string>& secrets) {
  for (const auto& s : secrets) {
    if (s.size() < 4) continue;  // too short to mask without garbling the text
    for (std::size_t pos = text.find(s); pos != std::string::npos; pos = text.find(s, pos + 8))
      text.replace(pos, s.size(), "REDACTED");
  }
  return text;
}

// make_client and resolved_namespace resolve the same inputs the same way.
static Expected<ResolvedConfig> resolve_for(const ConnectionFlags& flags,
                                            const std::map<std::string, std::string>& env,
                                            const ClientOptions& options) {
  ResolveInputs in;
  in.flags = flags;
  in.env = env;
  in.cwd = options.cwd.empty() ? current_dir() : options.cwd;
  in.service_account_dir = options.service_account_dir;
  RealFileSystem fs;
  return load_and_resolve(in, fs);
}

Expected<std::unique_ptr<ApiClient>> make_client(const ConnectionFlags& flags,
                                                 const std::map<std::string, std::string>& env,
                                                 const ClientOptions& options) {
  auto config = resolve_for(flags, env, options);
  if (!config) return config.error();
  TransportOptions t;
  t.ca_file = config->ca_file;
  t.ca_data = config->ca_data;
  t.insecure_skip_tls_verify = config->insecure_skip_tls_verify;
  t.tls_server_name = config->tls_server_name;
  t.client_certificate_file = config->client_certificate_file;
  t.client_certificate_data = config->client_certificate_data;
  t.client_key_file = config->client_key_file;
  t.client_key_data = config->client_key_data;
  t.proxy_url = config->proxy_url;
  t.compression = !config->disable_compression;
  t.timeout = config->timeout;
  if (options.connect_timeout.count() > 0) t.connect_timeout = options.connect_timeout;
  RestOptions r;
  if (options.max_retries >= 0) r.max_retries = options.max_retries;
  r.verbosity = options.verbosity;
  r.log = options.log;
  r.env = env;
  r.stdin_is_terminal = options.stdin_is_terminal;
  return std::unique_ptr<ApiClient>(std::make_unique<RestClient>(*config, make_curl_transport(t), r));
}

std::string resolved_namespace(const ConnectionFlags& flags, const std::map<std::string, std::string>& env,
                               const ClientOptions& options) {
  auto config = resolve_for(flags, env, options);
  if (!config) return flags.namespace_.empty() ? "default" : flags.namespace_;
  return config->namespace_;
}

}  // namespace kpt::kube
