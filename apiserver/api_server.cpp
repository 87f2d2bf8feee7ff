#include "apiserver/api_server.hpp"

#include "apiserver/api_handler.hpp"
#include "apiserver/body_limits.hpp"
#include "apiserver/connection_server.hpp"
#include "apiserver/request_head.hpp"

#include <httplib.h>

#include <sys/resource.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <condition_variable>
#include <mutex>
#include <thread>

namespace kpt::apiserver {

namespace {

HttpRequest to_request(const httplib::Request& in, std::string body) {
  HttpRequest out;
  out.method = in.method;
  out.path = in.path;
  for (const auto& [k, v] : in.params) out.query.emplace(k, v);
  for (const auto& [k, v] : in.headers) {
    std::string key = k;
    std::transform(key.begin(), key.end(), key.begin(), [](unsigned char c) { return std::tolower(c); });
    out.headers[key] = v;
  }
  out.body = std::move(body);
  return out;
}

constexpr const char* k_crd_storage_key = "apiextensions.k8s.io/customresourcedefinitions";
constexpr const char* k_events_storage_key = "/events";

/// The connection limits as options ask, within what the process may open: the front end and the
/// streams each get a share of the descriptors, so that neither can run the process out of them.
ServerOptions within_descriptor_limit(ServerOptions options) {
  rlimit limit{};
  if (::getrlimit(RLIMIT_NOFILE, &limit) != 0 || limit.rlim_cur == RLIM_INFINITY) return options;
  const auto spare = static_cast<std::size_t>(limit.rlim_cur > 256 ? limit.rlim_cur - 128 : 128);
  options.max_connections =
      std::clamp<std::size_t>(options.max_connections, 16, std::max<std::size_t>(16, spare / 2));
  options.max_streams = std::clamp<std::size_t>(options.max_streams, 1, std::max<std::size_t>(16, spare / 4));
  return options;
}

/// The options as the server applies them: the Event TTL handed to the store, and the connection
/// limits within what the process may open.
ServerOptions effective(ServerOptions options) {
  if (options.event_ttl.count() > 0) options.store.ttl[k_events_storage_key] = options.event_ttl;
  return within_descriptor_limit(std::move(options));
}

const util::RealClock k_real_clock;

/// kube-apiserver compresses a response only from 128 KiB on, and only with gzip
/// (k8s.io/apiserver responsewriters: defaultGzipThresholdBytes): below that the CPU costs more than
/// the bytes saved. httplib compresses every JSON body the client accepts, with brotli first, which
/// took two thirds of the server's CPU in bench_controller (libcurl offers br). httplib decides from
/// the request's Accept-Encoding when it writes the response, after the handler; the Request is its
/// own non-const object, so narrowing that header here is how the server chooses.
constexpr std::size_t k_compress_from_bytes = 128 * 1024;

/// (Streams are written by ConnectionServer, uncompressed: a compressor would hold events back.)
void choose_encoding(const httplib::Request& in, std::size_t body_bytes) {
  auto& headers = const_cast<httplib::Request&>(in).headers;
  const auto it = headers.find("Accept-Encoding");
  if (it == headers.end()) return;
  const bool gzip = body_bytes >= k_compress_from_bytes && it->second.find("gzip") != std::string::npos;
  headers.erase("Accept-Encoding");
  if (gzip) headers.emplace("Accept-Encoding", "gzip");
}

Error internal_error(const std::string& what) {
  return make_api_error(500, "InternalError", "Internal error occurred: " + what);
}

Error too_many_streams(std::size_t limit) {
  Error e =
      make_api_error(429, "TooManyRequests",
                     "Too many requests, please try again later: " + std::to_string(limit) +
                         " watches, log streams and exec sessions are open, the most this server serves");
  e.details.retry_after_seconds = 1;
  return e;
}

/// The Status body for an answer httplib makes itself (a malformed body, a method it does not
/// route), which it would send empty.
Error error_of_status(int status) {
  switch (status) {
    case 404:
      return path_not_found();
    case 405:
      return make_api_error(405, "MethodNotAllowed",
                            "the server does not allow this method on the requested resource");
    case 413:
      return request_entity_too_large();
    case 414:
      return make_api_error(414, "RequestURITooLong", "request-URI too long");
    case 416:
      return make_api_error(416, "BadRequest", "the requested range is not satisfiable");
    default:
      break;
  }
  if (status >= 500) return internal_error("the request could not be served");
  return make_api_error(status, "BadRequest", "the request could not be read: it is malformed");
}

}  // namespace

struct ApiServer::Impl {
  explicit Impl(ServerOptions opts)
      : options(effective(std::move(opts))),
        store(options.store),
        opened(open_database()),
        faults(options.faults),
        handler(store, registry, faults),
        access(options.access_log, k_real_clock, options.access_log_limit) {
    handler.set_service_account_secret(options.token);
  }

  ServerOptions options;
  Store store;
  ResourceRegistry registry;
  /// The database is loaded before the handler seeds the built-in namespaces into the store.
  Expected<void> opened;
  FaultInjector faults;
  ApiHandler handler;
  AccessLog access;
  std::unique_ptr<ConnectionServer> server;
  std::thread thread;
  std::thread expirer;  ///< removes expired Events every expiry_interval
  std::atomic<bool> stopping{false};
  int port = 0;
  std::mutex mutex;
  std::condition_variable stopped_cv;
  bool stopped = false;

  /// Removes expired Events at once (those that ran out while the server was down), then every
  /// expiry_interval until stop().
  void start_expiring() {
    store.expire();
    if (options.expiry_interval.count() <= 0 || options.store.ttl.empty()) return;
    expirer = std::thread([this] {
      std::unique_lock lock(mutex);
      while (!stopped_cv.wait_for(lock, options.expiry_interval,
                                  [this] { return stopped || stopping.load(); })) {
        lock.unlock();
        store.expire();
        lock.lock();
      }
    });
  }

  /// Loads the stored objects, and registers the resources of the stored CRDs before serving them.
  Expected<void> open_database() {
    if (options.database.empty()) return {};
    auto storage = open_sqlite_storage(options.database);
    if (!storage) return storage.error();
    if (auto loaded = store.open(std::move(*storage)); !loaded) return loaded.error();
    for (const auto& crd : store.list(k_crd_storage_key, "")) registry.apply_crd(crd);
    return {};
  }

  /// Reads the body through httplib's content reader, so that the bound holds for chunked and
  /// compressed bodies too (httplib itself checks only a declared Content-Length).
  void serve_with_body(const httplib::Request& in, httplib::Response& out,
                       const httplib::ContentReader& reader) {
    std::string body;
    bool too_large = false;
    const bool read = reader([&](const char* data, std::size_t size) {
      too_large = body.size() + size > k_max_request_body_bytes;
      if (!too_large) body.append(data, size);
      return !too_large;
    });
    if (too_large || out.status == 413) return refuse(in, out, request_entity_too_large());
    if (!read) {
      return refuse(in, out,
                    bad_request("the body of the request could not be read: it was shorter than announced, "
                                "malformed, or too slow"));
    }
    serve(in, out, std::move(body));
  }

  void refuse(const httplib::Request& in, httplib::Response& out, const Error& error) {
    const auto r = error_response(error);
    out.status = r.status;
    choose_encoding(in, r.body.size());
    out.set_content(r.body, r.content_type);
    // The rest of the body is not worth reading, and must not be read as requests.
    out.set_header("Connection", "close");
    ConnectionServer::close_after_current();
    access.record(in.method, in.path, r.status, true);
  }

  void serve(const httplib::Request& in, httplib::Response& out, std::string body = {}) {
    HttpResponse r;
    try {
      r = handler.handle(to_request(in, std::move(body)));
    } catch (const std::exception& e) {
      // A broken invariant, not the client's doing: a Status still, never an empty 500.
      r = error_response(internal_error(e.what()));
    } catch (...) {
      r = error_response(internal_error("unknown"));
    }
    if (r.upgrade) {
      if (ConnectionServer::upgrade_current(r.headers, r.upgrade, stopping)) {
        access.record(in.method, in.path, 101, true);
        return;
      }
      r = error_response(too_many_streams(options.max_streams));
    } else if (r.stream) {
      if (ConnectionServer::stream_current(r.status, r.content_type, r.headers, r.stream, stopping)) {
        access.record(in.method, in.path, r.status, true);
        return;
      }
      r = error_response(too_many_streams(options.max_streams));
    }
    out.status = r.status;
    if (r.close_connection) {
      out.set_header("Connection", "close");
      ConnectionServer::close_after_current();
    }
    for (const auto& [k, v] : r.headers) out.headers.emplace(k, v);
    access.record(in.method, in.path, r.status, true);
    choose_encoding(in, r.body.size());
    out.set_content(r.body, r.content_type);
  }
};

ApiServer::ApiServer(ServerOptions options) : m_impl(std::make_unique<Impl>(std::move(options))) {}

ApiServer::~ApiServer() { stop(); }

Expected<int> ApiServer::start(int port) {
  auto& im = *m_impl;
  if (im.server) return make_error(ErrorCode::usage, "the server is already started");
  if (!im.opened) return im.opened.error();
  SSL_CTX* tls = nullptr;
  if (im.options.tls) {
    if (!im.options.certificates) {
      auto certs = generate_certificates();
      if (!certs) return certs.error();
      im.options.certificates = std::move(*certs);
    }
    tls = make_server_tls_context(im.options.certificates->cert_pem, im.options.certificates->key_pem);
    if (tls == nullptr) return make_error(ErrorCode::config, "loading the serving certificate failed");
  }
  ConnectionOptions connection;
  connection.front.token = im.options.token;
  connection.front.header_timeout = im.options.header_timeout;
  connection.front.idle_timeout = im.options.idle_timeout;
  connection.front.max_connections = im.options.max_connections;
  connection.threads = im.options.threads;
  connection.max_waiting = im.options.max_waiting;
  connection.max_streams = im.options.max_streams;
  connection.stack_bytes = im.options.stack_bytes;
  connection.read_timeout = im.options.read_timeout;
  im.server = std::make_unique<ConnectionServer>(
      tls, connection, [&im](std::string_view method, std::string_view path, int status, bool authenticated) {
        im.access.record(method, path, status, authenticated);
      });
  auto& srv = *im.server;
  // The front end checks the token before a request reaches httplib; this is a second look, at
  // what httplib parsed.
  srv.set_pre_routing_handler([&im](const httplib::Request& req, httplib::Response& res) {
    if (im.options.token.empty() || is_health_path(req.path) ||
        bearer_token_matches(req.get_header_value("Authorization"), im.options.token)) {
      return httplib::Server::HandlerResponse::Unhandled;
    }
    const auto r = error_response(make_api_error(401, "Unauthorized", "Unauthorized"));
    res.status = 401;
    res.set_content(r.body, "application/json");
    res.set_header("Connection", "close");
    ConnectionServer::close_after_current();
    im.access.record(req.method, req.path, 401, false);
    return httplib::Server::HandlerResponse::Handled;
  });
  srv.set_error_handler(
      httplib::Server::HandlerWithResponse([](const httplib::Request&, httplib::Response& res) {
        if (!res.body.empty() || res.content_provider_) return httplib::Server::HandlerResponse::Unhandled;
        const auto r = error_response(error_of_status(res.status));
        res.set_content(r.body, r.content_type);
        return httplib::Server::HandlerResponse::Handled;
      }));
  srv.set_exception_handler([](const httplib::Request&, httplib::Response& res, std::exception_ptr) {
    const auto r = error_response(internal_error("the request could not be served"));
    res.status = 500;
    res.set_content(r.body, r.content_type);
  });
  srv.set_payload_max_length(k_max_request_body_bytes);
  srv.Get(".*", [&im](const httplib::Request& req, httplib::Response& res) { im.serve(req, res); });
  const auto with_body = [&im](const httplib::Request& req, httplib::Response& res,
                               const httplib::ContentReader& reader) {
    im.serve_with_body(req, res, reader);
  };
  srv.Post(".*", with_body);
  srv.Put(".*", with_body);
  srv.Patch(".*", with_body);
  srv.Delete(".*", with_body);

  auto bound = srv.listen_on(im.options.host, port);
  if (!bound) {
    im.server.reset();
    return bound.error();
  }
  im.port = *bound;
  const std::string host =
      im.options.host.find(':') != std::string::npos ? "[" + im.options.host + "]" : im.options.host;
  im.handler.set_server_address(host + ":" + std::to_string(im.port));
  im.start_expiring();
  im.thread = std::thread([&srv] { srv.serve_forever(); });
  return im.port;
}

void ApiServer::end_streams() {
  {
    std::lock_guard lock(m_impl->mutex);  // so that the expirer's wait sees it
    m_impl->stopping = true;
  }
  m_impl->stopped_cv.notify_all();
  m_impl->store.shutdown();
}

void ApiServer::stop() {
  auto& im = *m_impl;
  if (!im.server) return;
  end_streams();
  im.server->stop();
  if (im.thread.joinable()) im.thread.join();
  if (im.expirer.joinable()) im.expirer.join();
  {
    std::lock_guard lock(im.mutex);
    im.stopped = true;
  }
  im.stopped_cv.notify_all();
}

void ApiServer::wait() {
  std::unique_lock lock(m_impl->mutex);
  m_impl->stopped_cv.wait(lock, [&] { return m_impl->stopped; });
}

int ApiServer::port() const { return m_impl->port; }

std::string ApiServer::url() const {
  const std::string host = m_impl->options.host.find(':') != std::string::npos
                               ? "[" + m_impl->options.host + "]"
                               : m_impl->options.host;
  return std::string(m_impl->options.tls ? "https://" : "http://") + host + ":" +
         std::to_string(m_impl->port);
}

const std::string& ApiServer::token() const { return m_impl->options.token; }

const ServerCertificates& ApiServer::certificates() const {
  static const ServerCertificates k_none;
  return m_impl->options.certificates ? *m_impl->options.certificates : k_none;
}

Store& ApiServer::store() { return m_impl->store; }
ResourceRegistry& ApiServer::registry() { return m_impl->registry; }
ApiHandler& ApiServer::handler() { return m_impl->handler; }
void ApiServer::set_log_provider(std::shared_ptr<LogProvider> provider) {
  m_impl->handler.set_log_provider(std::move(provider));
}
void ApiServer::set_exec_provider(std::shared_ptr<ExecProvider> provider) {
  m_impl->handler.set_exec_provider(std::move(provider));
}
void ApiServer::set_fault_plan(const FaultPlan& plan) { m_impl->faults.set_plan(plan); }
std::uint64_t ApiServer::faults_injected() const { return m_impl->faults.injected(); }

ServerStats ApiServer::stats() const {
  if (!m_impl->server) return {};
  const auto s = m_impl->server->stats();
  return ServerStats{s.held, s.busy, s.threads, s.streams};
}

}  // namespace kpt::apiserver
