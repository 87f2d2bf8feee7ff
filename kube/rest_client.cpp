#include "kube/rest_client.hpp"

#include "kube/file_system.hpp"
#include "util/base64.hpp"
#include "util/json_access.hpp"

#include <nlohmann/json.hpp>

#include <ostream>
#include <thread>

namespace kpt::kube {

namespace {

std::string url_encode(const std::string& s) {
  static const char* k_hex = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : s) {
    if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~') {
      out += static_cast<char>(c);
    } else {
      out += '%';
      out += k_hex[c >> 4];
      out += k_hex[c & 15];
    }
  }
  return out;
}

/// Builds "?a=b&c=d" from the non-empty pairs.
class Query {
 public:
  Query& add(const std::string& key, const std::string& value) {
    if (!value.empty()) m_text += (m_text.empty() ? "?" : "&") + key + "=" + url_encode(value);
    return *this;
  }
  [[nodiscard]] const std::string& str() const { return m_text; }

 private:
  std::string m_text;
};

std::string write_query(const WriteOptions& o, bool apply) {
  Query q;
  if (o.dry_run) q.add("dryRun", "All");
  q.add("fieldValidation", o.field_validation);
  q.add("fieldManager", apply && o.field_manager.empty() ? std::string(k_field_manager) : o.field_manager);
  if (apply && o.force) q.add("force", "true");
  return q.str();
}

Expected<nlohmann::json> parse_json(const std::string& body) {
  auto doc = nlohmann::json::parse(body, nullptr, false);
  if (doc.is_discarded()) return make_error(ErrorCode::parse, "the server's response is not JSON");
  return doc;
}

WatchEvent::Type event_type(const std::string& t) {
  if (t == "ADDED") return WatchEvent::Type::added;
  if (t == "MODIFIED") return WatchEvent::Type::modified;
  if (t == "DELETED") return WatchEvent::Type::deleted;
  if (t == "BOOKMARK") return WatchEvent::Type::bookmark;
  return WatchEvent::Type::error;
}

std::string status_text(int status) {
  switch (status) {
    case 200:
      return "200 OK";
    case 201:
      return "201 Created";
    case 202:
      return "202 Accepted";
    case 404:
      return "404 Not Found";
    case 409:
      return "409 Conflict";
    case 410:
      return "410 Gone";
    case 429:
      return "429 Too Many Requests";
    case 500:
      return "500 Internal Server Error";
    default:
      return std::to_string(status);
  }
}

/// `j[key]` when `j` is an object and it is an object, else an empty object: a server's reply is
/// untrusted, and nlohmann's value() throws on a JSON value of another type.
const nlohmann::json& object_at(const nlohmann::json& j, const char* key) {
  static const nlohmann::json empty = nlohmann::json::object();
  if (!j.is_object()) return empty;
  const auto it = j.find(key);
  return it != j.end() && it->is_object() ? *it : empty;
}

}  // namespace

RestClient::RestClient(ResolvedConfig config, std::unique_ptr<HttpTransport> transport, RestOptions options)
    : m_config(std::move(config)), m_transport(std::move(transport)), m_options(std::move(options)) {
  if (!m_options.sleep) m_options.sleep = [](std::chrono::milliseconds d) { std::this_thread::sleep_for(d); };
  m_rng.seed(m_options.jitter_seed != 0 ? m_options.jitter_seed : std::random_device{}());
  while (!m_config.server.empty() && m_config.server.back() == '/') m_config.server.pop_back();
  if (m_config.exec && m_config.auth == AuthKind::exec) {
    CommandRunner* runner = m_options.command_runner;
    if (runner == nullptr) {
      m_own_runner = std::make_unique<RealCommandRunner>();
      runner = m_own_runner.get();
    }
    ExecClusterInfo info{m_config.server,
                         m_config.tls_server_name,
                         m_config.insecure_skip_tls_verify,
                         m_config.ca_data,
                         m_config.proxy_url,
                         m_config.disable_compression,
                         m_config.exec_cluster_extension_json};
    if (info.certificate_authority_data.empty() && !m_config.ca_file.empty()) {
      if (auto ca = RealFileSystem().read(m_config.ca_file)) info.certificate_authority_data = *ca;
    }
    m_exec = std::make_unique<ExecCredentialProvider>(*m_config.exec, std::move(info), *runner, m_options.env,
                                                      m_options.stdin_is_terminal, m_options.clock);
  }
}

RestClient::~RestClient() = default;

std::vector<std::string> RestClient::secrets() const {
  std::vector<std::string> out{m_config.token, m_config.password, m_config.client_key_data};
  if (!m_config.username.empty() || !m_config.password.empty())
    out.push_back(util::base64_encode(m_config.username + ":" + m_config.password));
  std::lock_guard lock(m_mutex);
  out.insert(out.end(), m_exec_secrets.begin(), m_exec_secrets.end());
  return out;
}

Expected<void> RestClient::add_auth(HttpRequest& request, std::uint64_t* exec_generation) {
  std::string bearer;
  if (!m_config.token.empty()) {
    bearer = m_config.token;
  } else if (!m_config.token_file.empty()) {
    // Re-read every time: projected service-account tokens rotate.
    auto text = RealFileSystem().read(m_config.token_file);
    if (!text) return make_error(ErrorCode::config, "reading token file: " + text.error().message);
    bearer = *text;
    while (!bearer.empty() && (bearer.back() == '\n' || bearer.back() == '\r' || bearer.back() == ' '))
      bearer.pop_back();
    std::lock_guard lock(m_mutex);
    if (std::find(m_exec_secrets.begin(), m_exec_secrets.end(), bearer) == m_exec_secrets.end())
      m_exec_secrets.push_back(bearer);
  } else if (m_exec) {
    auto cred = m_exec->get();
    if (!cred) return cred.error();
    *exec_generation = m_exec->generation();
    bearer = cred->token;
    request.client_certificate_pem = cred->client_certificate_pem;
    request.client_key_pem = cred->client_key_pem;
    std::lock_guard lock(m_mutex);
    for (const auto* s : {&cred->token, &cred->client_key_pem})
      if (!s->empty() && std::find(m_exec_secrets.begin(), m_exec_secrets.end(), *s) == m_exec_secrets.end())
        m_exec_secrets.push_back(*s);
  }
  if (!bearer.empty()) {
    request.headers.emplace_back("Authorization", "Bearer " + bearer);
  } else if (!m_config.username.empty() || !m_config.password.empty()) {
    request.headers.emplace_back("Authorization",
                                 "Basic " + util::base64_encode(m_config.username + ":" + m_config.password));
  }
  if (!m_config.impersonate_user.empty())
    request.headers.emplace_back("Impersonate-User", m_config.impersonate_user);
  if (!m_config.impersonate_uid.empty())
    request.headers.emplace_back("Impersonate-Uid", m_config.impersonate_uid);
  for (const auto& g : m_config.impersonate_groups) request.headers.emplace_back("Impersonate-Group", g);
  for (const auto& [k, values] : m_config.impersonate_extra)
    for (const auto& v : values) request.headers.emplace_back("Impersonate-Extra-" + url_encode(k), v);
  return {};
}

void RestClient::log_request(const HttpRequest& request) const {
  if (m_options.log == nullptr || m_options.verbosity < 7) return;
  const auto hidden = secrets();
  std::ostream& log = *m_options.log;
  log << "Request: " << request.method << " " << redact(request.url, hidden) << "\n";
  for (const auto& [k, v] : request.headers) {
    const bool secret = k == "Authorization";
    log << "Request Header: \"" << k << ": " << (secret ? std::string("REDACTED") : redact(v, hidden))
        << "\"\n";
  }
  if (m_options.verbosity >= 8 && !request.body.empty())
    log << "Request Body: " << redact(request.body.substr(0, 10'240), hidden) << "\n";
}

void RestClient::log_response(const HttpRequest& request, const HttpResponse& response,
                              std::chrono::milliseconds took, bool streamed) const {
  if (m_options.log == nullptr || m_options.verbosity < 6) return;
  const auto hidden = secrets();
  std::ostream& log = *m_options.log;
  log << request.method << " " << redact(request.url, hidden) << " " << status_text(response.status) << " in "
      << took.count() << " milliseconds\n";
  if (m_options.verbosity >= 7)
    for (const auto& [k, v] : response.headers)
      log << "Response Header: \"" << k << ": " << redact(v, hidden) << "\"\n";
  if (m_options.verbosity >= 8 && !streamed && !response.body.empty())
    log << "Response Body: " << redact(response.body.substr(0, 10'240), hidden) << "\n";
}

void RestClient::collect_warnings(const HttpResponse& response) {
  std::lock_guard lock(m_mutex);
  for (const auto& w : response.header("Warning")) {
    // `299 - "text"`: keep the quoted text, unescaped.
    const auto open = w.find('"');
    const auto close = w.rfind('"');
    std::string text = open != std::string::npos && close > open ? w.substr(open + 1, close - open - 1) : w;
    std::string plain;
    for (std::size_t i = 0; i < text.size(); ++i) {
      if (text[i] == '\\' && i + 1 < text.size()) ++i;
      plain += text[i];
    }
    m_warnings.push_back(plain);
  }
}

std::chrono::milliseconds RestClient::backoff(int attempt) {
  const auto base = m_options.backoff_base.count() << std::min(attempt, 16);
  const auto capped = std::min<long long>(base, m_options.backoff_cap.count());
  std::lock_guard lock(m_mutex);
  std::uniform_real_distribution<double> jitter(0.5, 1.0);
  return std::chrono::milliseconds(static_cast<long long>(static_cast<double>(capped) * jitter(m_rng)));
}

Expected<HttpResponse> RestClient::attempt(const Call& call, const DataSink* sink,
                                           const std::atomic<bool>* cancel, std::uint64_t* exec_generation) {
  HttpRequest request;
  request.method = call.method;
  request.url = m_config.server + call.path;
  request.body = call.body;
  request.headers.emplace_back("Accept", "application/json, */*");
  request.headers.emplace_back("User-Agent", "kubectl-pytorch");
  if (!call.content_type.empty()) request.headers.emplace_back("Content-Type", call.content_type);
  if (auto a = add_auth(request, exec_generation); !a) return a.error();
  log_request(request);
  const auto start = std::chrono::steady_clock::now();
  auto response = m_transport->send(request, sink, cancel);
  if (!response) {
    Error e = response.error();
    e.message = redact(e.message, secrets());
    if (m_options.log != nullptr && m_options.verbosity >= 6) *m_options.log << e.message << "\n";
    return e;
  }
  log_response(
      request, *response,
      std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - start),
      sink != nullptr && response->status >= 200 && response->status < 300);
  collect_warnings(*response);
  return response;
}

Expected<HttpResponse> RestClient::perform(const Call& call, const DataSink* sink,
                                           const std::atomic<bool>* cancel) {
  bool exec_retried = false;
  for (int attempt_no = 0;; ++attempt_no) {
    std::uint64_t generation = 0;
    auto response = attempt(call, sink, cancel, &generation);
    const bool more = attempt_no < m_options.max_retries && !(cancel != nullptr && cancel->load());
    if (!response) {
      if (response.error().code == ErrorCode::config) return response;  // credentials, not the network
      const TransportError te = m_transport->last_error();
      const bool retriable = te.connect_failed || (call.safety == Safety::safe && !te.cancelled);
      if (!more || !retriable) return response;
      m_options.sleep(backoff(attempt_no));
      continue;
    }
    const int status = response->status;
    if (status >= 200 && status < 300) return response;
    if (status == 401 && m_exec && !exec_retried && m_exec->unauthorized(generation)) {
      exec_retried = true;  // the credential may have been revoked early: fetch a new one once
      --attempt_no;
      continue;
    }
    const bool too_many = status == 429;
    const bool server_error = status == 500 || status == 502 || status == 503 || status == 504;
    if (more && (too_many || (server_error && call.safety == Safety::safe))) {
      std::chrono::milliseconds wait = backoff(attempt_no);
      if (auto ra = response->header("Retry-After"); !ra.empty()) {
        char* end = nullptr;
        const long seconds = std::strtol(ra.front().c_str(), &end, 10);
        if (end != ra.front().c_str() && seconds >= 0)
          wait = std::chrono::milliseconds(std::min<long long>(seconds, m_options.retry_after_cap.count()) *
                                           1000);
      }
      m_options.sleep(wait);
      continue;
    }
    Error e = decode_status_error(status, response->body, call.method);
    e.message = redact(e.message, secrets());
    return e;
  }
}

Expected<nlohmann::json> RestClient::json_call(const Call& call) {
  auto response = perform(call, nullptr, nullptr);
  if (!response) return response.error();
  return parse_json(response->body);
}

Expected<nlohmann::json> RestClient::get(const ResourceRef& ref, const std::string& ns,
                                         const std::string& name) {
  return json_call({"GET", ref.object_path(ns, name), {}, {}, Safety::safe});
}

Expected<ListResult> RestClient::list(const ResourceRef& ref, const std::string& ns,
                                      const ListOptions& opts) {
  ListResult result;
  std::string continue_token = opts.continue_token;
  bool restarted = false;
  for (;;) {
    Query q;
    q.add("labelSelector", opts.label_selector).add("fieldSelector", opts.field_selector);
    q.add("limit", std::to_string(opts.limit > 0 ? opts.limit : 500)).add("continue", continue_token);
    if (continue_token.empty()) q.add("resourceVersion", opts.resource_version);
    auto page = json_call({"GET", ref.collection_path(ns) + q.str(), {}, {}, Safety::safe});
    if (!page) {
      // An expired continue token: start the whole list again, once.
      if (is_gone(page.error()) && !continue_token.empty() && opts.continue_token.empty() && !restarted) {
        restarted = true;
        result = {};
        continue_token.clear();
        continue;
      }
      return page.error();
    }
    if (page->contains("items") && (*page)["items"].is_array())
      for (auto& item : (*page)["items"]) result.items.push_back(std::move(item));
    const auto& meta = object_at(*page, "metadata");
    result.resource_version = util::string_at(meta, "resourceVersion");
    continue_token = util::string_at(meta, "continue");
    if (opts.limit > 0 || continue_token.empty()) {
      result.continue_token = continue_token;
      return result;
    }
  }
}

Expected<void> RestClient::watch(const ResourceRef& ref, const std::string& ns, const ListOptions& opts,
                                 const std::function<bool(const WatchEvent&)>& on_event,
                                 const std::atomic<bool>* cancel) {
  Query q;
  q.add("watch", "1").add("labelSelector", opts.label_selector).add("fieldSelector", opts.field_selector);
  q.add("resourceVersion", opts.resource_version);
  if (opts.allow_bookmarks) q.add("allowWatchBookmarks", "true");
  if (opts.timeout_seconds > 0) q.add("timeoutSeconds", std::to_string(opts.timeout_seconds));
  std::string buffer;
  std::optional<Error> stream_error;
  DataSink sink = [&](std::string_view chunk) {
    buffer.append(chunk);
    for (auto nl = buffer.find('\n'); nl != std::string::npos; nl = buffer.find('\n')) {
      const std::string line = buffer.substr(0, nl);
      buffer.erase(0, nl + 1);
      if (line.find_first_not_of(" \r\t") == std::string::npos) continue;
      auto doc = nlohmann::json::parse(line, nullptr, false);
      if (doc.is_discarded() || !doc.is_object()) {
        stream_error = make_error(ErrorCode::parse, "watch: the server sent an event that is not JSON");
        return false;
      }
      WatchEvent ev;
      ev.type = event_type(util::string_at(doc, "type"));
      ev.object = doc.value("object", nlohmann::json::object());
      if (ev.type == WatchEvent::Type::error) {
        const auto c = ev.object.is_object() ? ev.object.find("code") : ev.object.end();
        const int code = c != ev.object.end() && c->is_number_integer() ? c->get<int>() : 500;
        stream_error = decode_status_error(code, ev.object.dump(), "GET");
        return false;
      }
      if (!on_event(ev)) return false;
    }
    return true;
  };
  auto response = perform({"GET", ref.collection_path(ns) + q.str(), {}, {}, Safety::safe}, &sink, cancel);
  if (stream_error) return *stream_error;
  if (!response) return response.error();
  return {};
}

Expected<nlohmann::json> RestClient::create(const ResourceRef& ref, const std::string& ns,
                                            const nlohmann::json& obj, const WriteOptions& opts) {
  return json_call({"POST", ref.collection_path(ns) + write_query(opts, false), obj.dump(),
                    "application/json", Safety::create});
}

Expected<nlohmann::json> RestClient::update(const ResourceRef& ref, const std::string& ns,
                                            const nlohmann::json& obj, const WriteOptions& opts) {
  const std::string name = obj.value("/metadata/name"_json_pointer, std::string());
  return json_call({"PUT", ref.object_path(ns, name) + write_query(opts, false), obj.dump(),
                    "application/json", Safety::safe});
}

Expected<nlohmann::json> RestClient::update_status(const ResourceRef& ref, const std::string& ns,
                                                   const nlohmann::json& obj) {
  const std::string name = obj.value("/metadata/name"_json_pointer, std::string());
  return json_call(
      {"PUT", ref.object_path(ns, name, "status"), obj.dump(), "application/json", Safety::safe});
}

Expected<nlohmann::json> RestClient::patch(const ResourceRef& ref, const std::string& ns,
                                           const std::string& name, PatchType type, const std::string& body,
                                           const WriteOptions& opts) {
  const char* content_type = type == PatchType::merge  ? "application/merge-patch+json"
                             : type == PatchType::json ? "application/json-patch+json"
                                                       : "application/apply-patch+yaml";
  // A JSON patch may append to lists, so repeating it is not safe; merge and apply patches are.
  const Safety safety = type == PatchType::json ? Safety::create : Safety::safe;
  return json_call({"PATCH",
                    ref.object_path(ns, name, opts.subresource) + write_query(opts, type == PatchType::apply),
                    body, content_type, safety});
}

Expected<void> RestClient::remove(const ResourceRef& ref, const std::string& ns, const std::string& name,
                                  const DeleteOptions& opts) {
  nlohmann::json body = {{"kind", "DeleteOptions"}, {"apiVersion", "v1"}};
  if (!opts.propagation_policy.empty()) body["propagationPolicy"] = opts.propagation_policy;
  if (opts.grace_period_seconds) body["gracePeriodSeconds"] = *opts.grace_period_seconds;
  if (!opts.precondition_uid.empty()) body["preconditions"] = {{"uid", opts.precondition_uid}};
  if (opts.dry_run) body["dryRun"] = {"All"};
  auto r = json_call({"DELETE", ref.object_path(ns, name), body.dump(), "application/json", Safety::safe});
  if (!r) return r.error();
  return {};
}

Expected<std::string> RestClient::get_raw(const std::string& path_and_query) {
  auto response = perform({"GET", path_and_query, {}, {}, Safety::safe}, nullptr, nullptr);
  if (!response) return response.error();
  return std::move(response->body);
}

Expected<void> RestClient::stream_raw(const std::string& path_and_query,
                                      const std::function<bool(std::string_view)>& on_data,
                                      const std::atomic<bool>* cancel) {
  const DataSink sink = on_data;
  auto response = perform({"GET", path_and_query, {}, {}, Safety::safe}, &sink, cancel);
  if (!response) return response.error();
  return {};
}

Expected<nlohmann::json> RestClient::post_raw(const std::string& path, const nlohmann::json& body) {
  return json_call({"POST", path, body.dump(), "application/json", Safety::create});
}

std::vector<std::string> RestClient::take_warnings() {
  std::lock_guard lock(m_mutex);
  return std::exchange(m_warnings, {});
}

}  // namespace kpt::kube
