#include "apiserver/api_server.hpp"

#include "apiserver/api_handler.hpp"
#include "apiserver/body_limits.hpp"
#include "apiserver/connection_server.hpp"

#include <httplib.h>
#include <openssl/crypto.h>

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

/// The options with the Event TTL handed to the store, which applies it.
ServerOptions with_event_ttl(ServerOptions options) {
  if (options.event_ttl.count() > 0) options.store.ttl[k_events_storage_key] = options.event_ttl;
  return options;
}

/// kube-apiserver compresses a response only from 128 KiB on, and only with gzip
/// (k8s.io/apiserver responsewriters: defaultGzipThresholdBytes): below that the CPU costs more than
/// the bytes saved. httplib compresses every JSON body the client accepts, with brotli first, which
/// took two thirds of the server's CPU in bench_controller (libcurl offers br). httplib decides from
/// the request's Accept-Encoding when it writes the response, after the handler; the Request is its
/// own non-const object, so narrowing that header here is how the server chooses.
constexpr std::size_t k_compress_from_bytes = 128 * 1024;

void choose_encoding(const httplib::Request& in, std::size_t body_bytes, bool streaming) {
  auto& headers = const_cast<httplib::Request&>(in).headers;
  const auto it = headers.find("Accept-Encoding");
  if (it == headers.end()) return;
  // A stream (watch, log follow) is written event by event; a compressor would hold events back.
  const bool gzip =
      !streaming && body_bytes >= k_compress_from_bytes && it->second.find("gzip") != std::string::npos;
  headers.erase("Accept-Encoding");
  if (gzip) headers.emplace("Accept-Encoding", "gzip");
}

bool token_matches(const std::string& header, const std::string& token) {
  const std::string want = "Bearer " + token;
  if (header.size() != want.size()) return false;
  return CRYPTO_memcmp(header.data(), want.data(), want.size()) == 0;
}

}  // namespace

struct ApiServer::Impl {
  explicit Impl(ServerOptions opts)
      : options(with_event_ttl(std::move(opts))),
        store(options.store),
        opened(open_database()),
        faults(options.faults),
        handler(store, registry, faults) {
    handler.set_service_account_secret(options.token);
  }

  ServerOptions options;
  Store store;
  ResourceRegistry registry;
  /// The database is loaded before the handler seeds the built-in namespaces into the store.
  Expected<void> opened;
  FaultInjector faults;
  ApiHandler handler;
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
    choose_encoding(in, r.body.size(), false);
    out.set_content(r.body, r.content_type);
    // The rest of the body is not worth reading, and must not be read as requests.
    out.set_header("Connection", "close");
    ConnectionServer::close_after_current();
    if (options.access_log) options.access_log(in.method + " " + in.path + " " + std::to_string(r.status));
  }

  void serve(const httplib::Request& in, httplib::Response& out, std::string body = {}) {
    HttpResponse r = handler.handle(to_request(in, std::move(body)));
    out.status = r.status;
    if (r.close_connection) {
      out.set_header("Connection", "close");
      ConnectionServer::close_after_current();
    }
    for (const auto& [k, v] : r.headers) out.headers.emplace(k, v);
    if (options.access_log) options.access_log(in.method + " " + in.path + " " + std::to_string(r.status));
    if (r.upgrade) {
      upgrade(r);
      return;
    }
    choose_encoding(in, r.body.size(), r.stream != nullptr);
    if (!r.stream) {
      out.set_content(r.body, r.content_type);
      return;
    }
    auto stream = std::move(r.stream);
    out.set_chunked_content_provider(r.content_type, [stream, this](std::size_t, httplib::DataSink& sink) {
      const ChunkWriter write = [&sink](std::string_view chunk) {
        if (chunk.empty()) return sink.is_writable();
        return sink.is_writable() && sink.write(chunk.data(), chunk.size());
      };
      stream(write, stopping);
      sink.done();
      return true;
    });
  }

  /// Answers 101 on the request's own connection and hands it to the response's handler.
  void upgrade(const HttpResponse& r) {
    UpgradedConnection* conn = ConnectionServer::take_over_current();
    if (conn == nullptr) return;
    std::string head = "HTTP/1.1 101 Switching Protocols\r\n";
    for (const auto& [k, v] : r.headers) head += k + ": " + v + "\r\n";
    head += "\r\n";
    if (conn->write(head)) r.upgrade(*conn, stopping);
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
  im.server = std::make_unique<ConnectionServer>(tls);
  auto& srv = *im.server;
  const std::size_t threads = im.options.threads;
  srv.new_task_queue = [threads] { return new httplib::ThreadPool(threads); };
  srv.set_keep_alive_timeout(5);  // bounds how long stop() waits for idle keep-alive connections
  srv.set_tcp_nodelay(true);      // headers and body go in separate writes: without it, 40 ms delayed ACKs
  srv.set_read_timeout(static_cast<time_t>(im.options.read_timeout.count()));
  srv.set_write_timeout(30);
  srv.set_pre_routing_handler([&im](const httplib::Request& req, httplib::Response& res) {
    if (im.options.token.empty() || req.path == "/healthz" || req.path == "/livez" || req.path == "/readyz") {
      return httplib::Server::HandlerResponse::Unhandled;
    }
    if (token_matches(req.get_header_value("Authorization"), im.options.token)) {
      return httplib::Server::HandlerResponse::Unhandled;
    }
    const auto r = error_response(make_api_error(401, "Unauthorized", "Unauthorized"));
    res.status = 401;
    choose_encoding(req, r.body.size(), false);
    res.set_content(r.body, "application/json");
    if (im.options.access_log) im.options.access_log(req.method + " " + req.path + " 401");
    return httplib::Server::HandlerResponse::Handled;
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

  if (port == 0) {
    im.port = srv.bind_to_any_port(im.options.host);
  } else {
    im.port = srv.bind_to_port(im.options.host, port) ? port : -1;
  }
  if (im.port <= 0) {
    im.server.reset();
    return make_error(ErrorCode::io, "binding " + im.options.host + ":" + std::to_string(port) +
                                         " failed: address in use or not available");
  }
  const std::string host =
      im.options.host.find(':') != std::string::npos ? "[" + im.options.host + "]" : im.options.host;
  im.handler.set_server_address(host + ":" + std::to_string(im.port));
  im.start_expiring();
  im.thread = std::thread([&srv] { srv.listen_after_bind(); });
  // Connections made before the loop runs wait in the listen backlog; this only makes
  // is_running() true for callers that check it.
  for (int i = 0; i < 2000 && !srv.is_running(); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
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

}  // namespace kpt::apiserver
