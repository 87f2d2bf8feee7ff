#include "apiserver/connection_server.hpp"

#include <openssl/err.h>
#include <openssl/pem.h>

#include <sys/socket.h>

#include <cstdio>
#include <memory>

namespace kpt::apiserver {

namespace {

/// What the server knows about the request a worker thread is serving, for the handler's calls.
struct Current {
  SocketConnection* conn = nullptr;
  bool keep_alive = false;  // the request allows another one on its connection
  bool closing = false;     // close_after_current()
  std::function<bool()> reserve_stream;
  /// Set by a handler that hands the connection on: the head to write, then what writes the rest.
  std::string handoff_head;
  std::function<bool(SocketConnection&)> handoff;
  bool handoff_keeps_alive = false;
};

thread_local Current* t_current = nullptr;

/// httplib's view of a SocketConnection. Once a handler has handed the connection on, writes
/// fail, so httplib's own answer never reaches the peer and its request ends.
class HttpStream final : public httplib::Stream {
 public:
  HttpStream(SocketConnection& conn, std::chrono::milliseconds read_timeout, const Current& current)
      : m_conn(conn), m_read_timeout(read_timeout), m_current(current) {}

  bool is_readable() const override { return m_conn.wait_readable(m_read_timeout); }
  bool is_writable() const override { return !m_current.handoff && !m_conn.peer_gone(); }
  ssize_t read(char* ptr, size_t size) override {
    const long n = m_conn.read(ptr, size, m_read_timeout);
    return n == 0 ? -1 : n;  // httplib treats "nothing in time" as an error, as its own sockets do
  }
  ssize_t write(const char* ptr, size_t size) override {
    if (m_current.handoff) return -1;
    return m_conn.write(std::string_view(ptr, size)) ? static_cast<ssize_t>(size) : -1;
  }
  void get_remote_ip_and_port(std::string& ip, int& port) const override { ip = m_conn.peer_address(port); }
  void get_local_ip_and_port(std::string& ip, int& port) const override { ip = m_conn.local_address(port); }
  socket_t socket() const override { return m_conn.fd(); }

 private:
  SocketConnection& m_conn;
  std::chrono::milliseconds m_read_timeout;
  const Current& m_current;
};

/// Whether httplib 0.11.4 reads the body of a request with this method (expect_content, and a
/// DELETE only with a Content-Length): any other body would be read as the next request.
bool httplib_reads_body(const RequestHead& head) {
  if (head.method == "POST" || head.method == "PUT" || head.method == "PATCH" || head.method == "PRI")
    return true;
  return head.method == "DELETE" && !head.header("content-length").empty();
}

std::string header_lines(const std::vector<std::pair<std::string, std::string>>& headers) {
  std::string out;
  for (const auto& [k, v] : headers) out += k + ": " + v + "\r\n";
  return out;
}

bool keeps_alive(const httplib::Request& req) {
  const auto connection = req.get_header_value("Connection");
  if (connection == "close") return false;
  return req.version != "HTTP/1.0" || connection == "Keep-Alive";
}

}  // namespace

struct ConnectionServer::Handoff {
  std::string head;
  std::function<bool(SocketConnection&)> run;
  bool keep_alive = false;
};

SSL_CTX* make_server_tls_context(const std::string& cert_pem, const std::string& key_pem) {
  SSL_CTX* ctx = SSL_CTX_new(TLS_server_method());
  if (ctx == nullptr) return nullptr;
  SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION);
  SSL_CTX_set_options(ctx, SSL_OP_NO_COMPRESSION | SSL_OP_NO_RENEGOTIATION);
  // Idle connections hold no read or write buffer; writes may be partial and resumed from a
  // moved buffer, as non-blocking sockets need.
  SSL_CTX_set_mode(
      ctx, SSL_MODE_RELEASE_BUFFERS | SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
  BIO* cert_bio = BIO_new_mem_buf(cert_pem.data(), static_cast<int>(cert_pem.size()));
  BIO* key_bio = BIO_new_mem_buf(key_pem.data(), static_cast<int>(key_pem.size()));
  X509* cert = PEM_read_bio_X509(cert_bio, nullptr, nullptr, nullptr);
  EVP_PKEY* key = PEM_read_bio_PrivateKey(key_bio, nullptr, nullptr, nullptr);
  BIO_free(cert_bio);
  BIO_free(key_bio);
  const bool ok = cert != nullptr && key != nullptr && SSL_CTX_use_certificate(ctx, cert) == 1 &&
                  SSL_CTX_use_PrivateKey(ctx, key) == 1 && SSL_CTX_check_private_key(ctx) == 1;
  X509_free(cert);
  EVP_PKEY_free(key);
  if (!ok) {
    ERR_clear_error();
    SSL_CTX_free(ctx);
    return nullptr;
  }
  return ctx;
}

ConnectionServer::ConnectionServer(SSL_CTX* tls, ConnectionOptions options,
                                   decltype(FrontEndHooks::answered) answered)
    : m_tls(tls),
      m_options(std::move(options)),
      m_front(
          tls, m_options.front,
          FrontEndHooks{[this](std::unique_ptr<SocketConnection>& conn, const RequestHead& head) {
                          RequestJob job{std::move(conn), head.announces_body() && !httplib_reads_body(head)};
                          if (m_pool.submit(job)) return true;
                          conn = std::move(job.conn);
                          return false;
                        },
                        std::move(answered)}),
      m_pool(m_options.threads, m_options.max_waiting, m_options.stack_bytes,
             [this](RequestJob job) { serve_request(std::move(job)); }) {
  // What httplib writes in its Keep-Alive header; the front end applies the idle timeout.
  set_keep_alive_timeout(
      std::chrono::duration_cast<std::chrono::seconds>(m_options.front.idle_timeout).count());
  set_keep_alive_max_count(1000000);
}

ConnectionServer::~ConnectionServer() {
  stop();
  if (m_tls != nullptr) SSL_CTX_free(m_tls);
}

Expected<int> ConnectionServer::listen_on(const std::string& host, int port) {
  return m_front.listen(host, port);
}

void ConnectionServer::serve_forever() { m_front.run(); }

void ConnectionServer::stop() {
  if (m_stopping.exchange(true)) {
    m_pool.shutdown();
    return;
  }
  m_front.stop();
  (void)m_pool.wait_idle(std::chrono::seconds(1));
  {
    // Ends the requests still reading or writing (a client that stalls) and the streams' waits.
    std::lock_guard lock(m_mutex);
    for (SocketConnection* conn : m_active) ::shutdown(conn->fd(), SHUT_RDWR);
  }
  m_pool.shutdown();
  std::unique_lock lock(m_mutex);
  m_streams_done.wait(lock, [&] { return m_streams == 0; });
}

ConnectionServer::Stats ConnectionServer::stats() const {
  Stats s;
  s.held = m_front.held();
  s.busy = m_pool.busy();
  s.threads = m_pool.threads();
  std::lock_guard lock(m_mutex);
  s.streams = m_streams;
  return s;
}

void ConnectionServer::track(SocketConnection* conn, bool add) {
  std::lock_guard lock(m_mutex);
  if (add) {
    m_active.insert(conn);
    // A connection that arrives while stop() runs is ended at once as the others were.
    if (m_stopping) ::shutdown(conn->fd(), SHUT_RDWR);
  } else {
    m_active.erase(conn);
  }
}

bool ConnectionServer::reserve_stream() {
  std::lock_guard lock(m_mutex);
  if (m_stopping || m_streams >= m_options.max_streams) return false;
  ++m_streams;
  return true;
}

void ConnectionServer::serve_request(RequestJob job) {
  std::unique_ptr<SocketConnection> conn = std::move(job.conn);
  conn->set_write_timeout(m_options.write_timeout);
  track(conn.get(), true);
  Current current;
  current.conn = conn.get();
  current.reserve_stream = [this] { return reserve_stream(); };
  HttpStream stream(*conn, m_options.read_timeout, current);
  bool closed = false;
  bool ok = false;
  t_current = &current;
  try {
    ok = process_request(stream, job.close_after || m_stopping, closed, [&](httplib::Request& req) {
      req.ssl = conn->ssl();
      current.keep_alive = keeps_alive(req) && !job.close_after;
    });
  } catch (...) {
    ok = false;  // the handlers catch what they throw; this is httplib's own failure
  }
  t_current = nullptr;
  if (current.handoff) {
    auto handoff = std::make_shared<Handoff>();
    handoff->head = std::move(current.handoff_head);
    handoff->run = std::move(current.handoff);
    handoff->keep_alive = current.handoff_keeps_alive && !current.closing;
    SocketConnection* raw = conn.release();
    const bool started = start_thread(m_options.stack_bytes, [this, raw, handoff] {
      run_handoff(std::unique_ptr<SocketConnection>(raw), handoff);
    });
    if (!started) {
      conn.reset(raw);
      track(conn.get(), false);
      std::lock_guard lock(m_mutex);
      --m_streams;
      m_streams_done.notify_all();
    }
    return;
  }
  track(conn.get(), false);
  if (!ok || closed || current.closing || job.close_after || m_stopping) {
    conn->close_lingering();
    return;
  }
  m_front.give_back(std::move(conn));
}

void ConnectionServer::run_handoff(std::unique_ptr<SocketConnection> conn, std::shared_ptr<Handoff> handoff) {
  const bool clean = conn->write(handoff->head) && handoff->run(*conn);
  track(conn.get(), false);
  if (clean && handoff->keep_alive && !m_stopping) {
    m_front.give_back(std::move(conn));
  } else {
    conn->close(clean);
  }
  std::lock_guard lock(m_mutex);
  --m_streams;
  m_streams_done.notify_all();
}

bool ConnectionServer::stream_current(int status, const std::string& content_type,
                                      const std::vector<std::pair<std::string, std::string>>& headers,
                                      BodyStreamer body, const std::atomic<bool>& stopping) {
  Current* current = t_current;
  if (current == nullptr || current->handoff || !current->reserve_stream()) return false;
  const bool keep_alive = current->keep_alive && !current->closing;
  current->handoff_head = "HTTP/1.1 " + std::to_string(status) + (status == 200 ? " OK" : " Status") +
                          "\r\nContent-Type: " + content_type + "\r\nTransfer-Encoding: chunked\r\n" +
                          header_lines(headers) + (keep_alive ? "" : "Connection: close\r\n") + "\r\n";
  current->handoff_keeps_alive = keep_alive;
  current->handoff = [body = std::move(body), &stopping](SocketConnection& conn) {
    bool failed = false;
    const ChunkWriter write = [&](std::string_view chunk) {
      if (failed) return false;
      // An empty chunk asks whether the client is still there (it would end the body if sent).
      if (chunk.empty()) {
        failed = conn.peer_gone();
        return !failed;
      }
      char size[24];
      std::snprintf(size, sizeof size, "%zx\r\n", chunk.size());
      std::string frame = size;
      frame.append(chunk);
      frame += "\r\n";
      failed = !conn.write(frame);
      return !failed;
    };
    body(write, stopping);
    // The last chunk ends the body cleanly even when the server stops: the client sees its
    // watch end, not a broken connection.
    return !failed && conn.write("0\r\n\r\n");
  };
  return true;
}

bool ConnectionServer::upgrade_current(const std::vector<std::pair<std::string, std::string>>& headers,
                                       UpgradeHandler handler, const std::atomic<bool>& stopping) {
  Current* current = t_current;
  if (current == nullptr || current->handoff || !current->reserve_stream()) return false;
  current->handoff_head = "HTTP/1.1 101 Switching Protocols\r\n" + header_lines(headers) + "\r\n";
  current->handoff_keeps_alive = false;
  current->handoff = [handler = std::move(handler), &stopping](SocketConnection& conn) {
    handler(conn, stopping);
    return false;  // the connection ends with the session
  };
  return true;
}

void ConnectionServer::close_after_current() {
  if (t_current != nullptr) t_current->closing = true;
}

}  // namespace kpt::apiserver
