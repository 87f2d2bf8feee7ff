#include "apiserver/connection_server.hpp"

#include <openssl/err.h>
#include <openssl/pem.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <chrono>
#include <cstring>

namespace kpt::apiserver {

namespace {

using Clock = std::chrono::steady_clock;

constexpr int k_stop_check_ms = 50;  // how often an idle connection looks at whether the server stops

int poll_one(int fd, short events, std::chrono::milliseconds wait) {
  pollfd p{fd, events, 0};
  int r;
  do {
    r = ::poll(&p, 1, static_cast<int>(std::max<std::int64_t>(0, wait.count())));
  } while (r < 0 && errno == EINTR);
  if (r <= 0) return r;
  return (p.revents & (events | POLLHUP | POLLERR)) != 0 ? 1 : 0;
}

std::string address_of(const sockaddr_storage& addr, int& port) {
  char text[INET6_ADDRSTRLEN] = {};
  if (addr.ss_family == AF_INET) {
    const auto& a = reinterpret_cast<const sockaddr_in&>(addr);
    ::inet_ntop(AF_INET, &a.sin_addr, text, sizeof text);
    port = ntohs(a.sin_port);
  } else if (addr.ss_family == AF_INET6) {
    const auto& a = reinterpret_cast<const sockaddr_in6&>(addr);
    ::inet_ntop(AF_INET6, &a.sin6_addr, text, sizeof text);
    port = ntohs(a.sin6_port);
  }
  return text;
}

void set_socket_timeout(int fd, int option, time_t sec, time_t usec) {
  timeval tv{sec, static_cast<suseconds_t>(usec)};
  ::setsockopt(fd, SOL_SOCKET, option, &tv, sizeof tv);
}

/// One accepted connection: the socket, its TLS session, and a read buffer (httplib reads
/// request lines a byte at a time).
class SocketConnection final : public UpgradedConnection {
 public:
  SocketConnection(int fd, SSL* ssl, std::chrono::milliseconds read_timeout)
      : m_fd(fd), m_ssl(ssl), m_read_timeout(read_timeout) {}

  long read(char* buf, std::size_t size, std::chrono::milliseconds wait) override {
    if (m_begin < m_end) return take_buffered(buf, size);
    if (!wait_readable(wait)) return m_gone ? -1 : 0;
    const long n = raw_read(m_buffer.data(), m_buffer.size());
    if (n <= 0) return n;
    m_begin = 0;
    m_end = static_cast<std::size_t>(n);
    return take_buffered(buf, size);
  }

  bool write(std::string_view data) override {
    std::size_t off = 0;
    while (off < data.size()) {
      const long n = raw_write(data.data() + off, data.size() - off);
      if (n <= 0) return false;
      off += static_cast<std::size_t>(n);
    }
    return true;
  }

  [[nodiscard]] int fd() const override { return m_fd; }
  [[nodiscard]] bool has_buffered() const override {
    return m_begin < m_end || (m_ssl != nullptr && SSL_pending(m_ssl) > 0);
  }

  /// Waits up to `wait` for bytes; false on timeout or when the peer has gone.
  bool wait_readable(std::chrono::milliseconds wait) {
    if (has_buffered()) return true;
    const int r = poll_one(m_fd, POLLIN, wait);
    if (r < 0) m_gone = true;
    return r > 0;
  }

  /// For httplib: one read with the server's read timeout.
  long read_for_http(char* buf, std::size_t size) {
    const long n = read(buf, size, m_read_timeout);
    return n == 0 ? -1 : n;  // httplib treats "nothing in time" as an error, as its own sockets do
  }

  [[nodiscard]] bool writable(std::chrono::milliseconds wait) const {
    if (poll_one(m_fd, POLLOUT, wait) <= 0) return false;
    // A peer that closed shows as readable with nothing to read.
    char probe;
    const auto r = ::recv(m_fd, &probe, 1, MSG_PEEK | MSG_DONTWAIT);
    return r != 0;
  }

  void take_over() { m_taken = true; }
  [[nodiscard]] bool taken() const { return m_taken; }
  void close_after_response() { m_closing = true; }
  [[nodiscard]] bool closing() const { return m_closing; }

  [[nodiscard]] std::string peer(int& port) const {
    sockaddr_storage addr{};
    socklen_t len = sizeof addr;
    if (::getpeername(m_fd, reinterpret_cast<sockaddr*>(&addr), &len) != 0) return {};
    return address_of(addr, port);
  }
  [[nodiscard]] std::string local(int& port) const {
    sockaddr_storage addr{};
    socklen_t len = sizeof addr;
    if (::getsockname(m_fd, reinterpret_cast<sockaddr*>(&addr), &len) != 0) return {};
    return address_of(addr, port);
  }

 private:
  long take_buffered(char* buf, std::size_t size) {
    const std::size_t n = std::min(size, m_end - m_begin);
    std::memcpy(buf, m_buffer.data() + m_begin, n);
    m_begin += n;
    return static_cast<long>(n);
  }

  long raw_read(char* buf, std::size_t size) {
    if (m_ssl == nullptr) {
      ssize_t n;
      do {
        n = ::recv(m_fd, buf, size, 0);
      } while (n < 0 && errno == EINTR);
      if (n > 0) return n;
      if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return 0;  // SO_RCVTIMEO passed
      m_gone = true;
      return -1;
    }
    const int n = SSL_read(m_ssl, buf, static_cast<int>(std::min<std::size_t>(size, 1 << 30)));
    if (n > 0) return n;
    const int err = SSL_get_error(m_ssl, n);
    if (err == SSL_ERROR_WANT_READ || err == SSL_ERROR_WANT_WRITE) return 0;
    m_gone = true;
    return -1;
  }

  long raw_write(const char* data, std::size_t size) {
    if (m_ssl == nullptr) {
      ssize_t n;
      do {
        n = ::send(m_fd, data, size, MSG_NOSIGNAL);
      } while (n < 0 && errno == EINTR);
      return n;
    }
    const int n = SSL_write(m_ssl, data, static_cast<int>(std::min<std::size_t>(size, 1 << 30)));
    return n > 0 ? n : -1;
  }

  int m_fd;
  SSL* m_ssl;
  std::chrono::milliseconds m_read_timeout;
  std::array<char, 16384> m_buffer{};
  std::size_t m_begin = 0;
  std::size_t m_end = 0;
  bool m_gone = false;
  bool m_taken = false;
  bool m_closing = false;
};

/// httplib's view of a SocketConnection. Once the connection is taken over, writes fail, so
/// httplib's own answer never reaches the peer and its request loop ends.
class HttpStream final : public httplib::Stream {
 public:
  HttpStream(SocketConnection& conn, std::chrono::milliseconds read_timeout,
             std::chrono::milliseconds write_timeout)
      : m_conn(conn), m_read_timeout(read_timeout), m_write_timeout(write_timeout) {}

  bool is_readable() const override { return m_conn.wait_readable(m_read_timeout); }
  bool is_writable() const override { return !m_conn.taken() && m_conn.writable(m_write_timeout); }
  ssize_t read(char* ptr, size_t size) override { return m_conn.read_for_http(ptr, size); }
  ssize_t write(const char* ptr, size_t size) override {
    if (m_conn.taken()) return -1;
    return m_conn.write(std::string_view(ptr, size)) ? static_cast<ssize_t>(size) : -1;
  }
  void get_remote_ip_and_port(std::string& ip, int& port) const override { ip = m_conn.peer(port); }
  void get_local_ip_and_port(std::string& ip, int& port) const override { ip = m_conn.local(port); }
  socket_t socket() const override { return m_conn.fd(); }

 private:
  SocketConnection& m_conn;
  std::chrono::milliseconds m_read_timeout;
  std::chrono::milliseconds m_write_timeout;
};

thread_local SocketConnection* t_current = nullptr;

/// Closes a connection whose peer may still be sending (a body refused with 413 part-way): closing
/// with unread bytes makes the kernel send RST, which can destroy the answer before the client
/// reads it. So, only then, end our side first and read what is in flight (at most 8 MiB, 2 s).
void close_lingering(int sock) {
  char probe[16384];
  if (::recv(sock, probe, 1, MSG_PEEK | MSG_DONTWAIT) > 0) {
    ::shutdown(sock, SHUT_WR);
    constexpr std::size_t k_max_discard = 8 * 1024 * 1024;
    const auto until = Clock::now() + std::chrono::seconds(2);
    std::size_t discarded = 0;
    while (discarded < k_max_discard && Clock::now() < until) {
      if (poll_one(sock, POLLIN, std::chrono::milliseconds(50)) <= 0) continue;
      const auto n = ::recv(sock, probe, sizeof probe, MSG_DONTWAIT);
      if (n <= 0) break;
      discarded += static_cast<std::size_t>(n);
    }
  }
  ::shutdown(sock, SHUT_RDWR);
  ::close(sock);
}

std::chrono::milliseconds to_ms(time_t sec, time_t usec) {
  return std::chrono::milliseconds(sec * 1000 + usec / 1000);
}

}  // namespace

SSL_CTX* make_server_tls_context(const std::string& cert_pem, const std::string& key_pem) {
  SSL_CTX* ctx = SSL_CTX_new(TLS_server_method());
  if (ctx == nullptr) return nullptr;
  SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION);
  SSL_CTX_set_options(ctx, SSL_OP_NO_COMPRESSION | SSL_OP_NO_RENEGOTIATION);
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

ConnectionServer::ConnectionServer(SSL_CTX* tls) : m_tls(tls) {}

ConnectionServer::~ConnectionServer() {
  if (m_tls != nullptr) SSL_CTX_free(m_tls);
}

UpgradedConnection* ConnectionServer::take_over_current() {
  if (t_current == nullptr) return nullptr;
  t_current->take_over();
  return t_current;
}

void ConnectionServer::close_after_current() {
  if (t_current != nullptr) t_current->close_after_response();
}

bool ConnectionServer::process_and_close_socket(socket_t sock) {
  // Socket timeouts bound every blocking call, the TLS handshake included, against slow peers.
  set_socket_timeout(sock, SO_RCVTIMEO, read_timeout_sec_, read_timeout_usec_);
  set_socket_timeout(sock, SO_SNDTIMEO, write_timeout_sec_, write_timeout_usec_);
  SSL* ssl = nullptr;
  if (m_tls != nullptr) {
    ssl = SSL_new(m_tls);
    if (ssl == nullptr || SSL_set_fd(ssl, sock) != 1 || SSL_accept(ssl) != 1) {
      if (ssl != nullptr) SSL_free(ssl);
      ERR_clear_error();
      ::shutdown(sock, SHUT_RDWR);
      ::close(sock);
      return false;
    }
  }
  const auto read_timeout = to_ms(read_timeout_sec_, read_timeout_usec_);
  SocketConnection conn(sock, ssl, read_timeout);
  HttpStream stream(conn, read_timeout, to_ms(write_timeout_sec_, write_timeout_usec_));
  bool ok = false;
  for (std::size_t left = keep_alive_max_count_; left > 0 && svr_sock_ != INVALID_SOCKET; --left) {
    // Wait for the next request in short slices, so a stopping server is noticed at once.
    const auto idle_until = Clock::now() + std::chrono::seconds(keep_alive_timeout_sec_);
    bool ready = false;
    while (!ready && svr_sock_ != INVALID_SOCKET && Clock::now() < idle_until) {
      ready = conn.wait_readable(std::chrono::milliseconds(k_stop_check_ms));
    }
    if (!ready) break;
    bool closed = false;
    t_current = &conn;
    ok = process_request(stream, left == 1, closed, [ssl](httplib::Request& req) { req.ssl = ssl; });
    t_current = nullptr;
    if (!ok || closed || conn.taken() || conn.closing()) break;
  }
  if (ssl != nullptr) {
    if (ok && !conn.taken()) SSL_shutdown(ssl);
    SSL_free(ssl);
    ERR_clear_error();
  }
  close_lingering(sock);
  return ok;
}

}  // namespace kpt::apiserver
