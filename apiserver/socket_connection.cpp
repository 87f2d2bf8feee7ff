#include "apiserver/socket_connection.hpp"

#include <openssl/err.h>

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace kpt::apiserver {

namespace {

using Clock = std::chrono::steady_clock;

constexpr std::size_t k_read_chunk = 16384;

/// poll() on one descriptor for up to `wait`: 1 when an asked-for event (or hang-up, error) came.
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

}  // namespace

SocketConnection::SocketConnection(int fd, SSL* ssl) : m_fd(fd), m_ssl(ssl) {
  const int flags = ::fcntl(fd, F_GETFL, 0);
  ::fcntl(fd, F_SETFL, flags | O_NONBLOCK);
}

SocketConnection::~SocketConnection() { close(false); }

SocketConnection::Step SocketConnection::handshake() {
  if (m_ssl == nullptr) return Step::done;
  const int r = SSL_accept(m_ssl);
  if (r == 1) return Step::done;
  const int err = SSL_get_error(m_ssl, r);
  if (err == SSL_ERROR_WANT_READ) return Step::want_read;
  if (err == SSL_ERROR_WANT_WRITE) return Step::want_write;
  ERR_clear_error();
  m_gone = true;
  return Step::failed;
}

long SocketConnection::raw_read(char* buf, std::size_t size, bool& want_write) {
  want_write = false;
  if (m_ssl == nullptr) {
    ssize_t n;
    do {
      n = ::recv(m_fd, buf, size, 0);
    } while (n < 0 && errno == EINTR);
    if (n > 0) return n;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return 0;
    m_gone = true;
    return -1;
  }
  const int n = SSL_read(m_ssl, buf, static_cast<int>(std::min<std::size_t>(size, 1 << 30)));
  if (n > 0) return n;
  const int err = SSL_get_error(m_ssl, n);
  if (err == SSL_ERROR_WANT_READ) return 0;
  if (err == SSL_ERROR_WANT_WRITE) {
    want_write = true;
    return 0;
  }
  ERR_clear_error();
  m_gone = true;
  return -1;
}

long SocketConnection::raw_write(const char* data, std::size_t size, bool& want_read) {
  want_read = false;
  if (m_ssl == nullptr) {
    ssize_t n;
    do {
      n = ::send(m_fd, data, size, MSG_NOSIGNAL);
    } while (n < 0 && errno == EINTR);
    if (n >= 0) return n;
    if (errno == EAGAIN || errno == EWOULDBLOCK) return 0;
    m_gone = true;
    return -1;
  }
  const int n = SSL_write(m_ssl, data, static_cast<int>(std::min<std::size_t>(size, 1 << 30)));
  if (n > 0) return n;
  const int err = SSL_get_error(m_ssl, n);
  if (err == SSL_ERROR_WANT_WRITE) return 0;
  if (err == SSL_ERROR_WANT_READ) {
    want_read = true;
    return 0;
  }
  ERR_clear_error();
  m_gone = true;
  return -1;
}

std::string& SocketConnection::input() {
  if (m_consumed > 0) {
    m_input.erase(0, m_consumed);
    m_consumed = 0;
  }
  return m_input;
}

long SocketConnection::read_now(std::size_t max, bool& want_write) {
  input();  // drops what read() consumed
  const std::size_t before = m_input.size();
  const std::size_t n = std::min(max, k_read_chunk);
  m_input.resize(before + n);
  const long got = raw_read(m_input.data() + before, n, want_write);
  m_input.resize(before + static_cast<std::size_t>(std::max<long>(0, got)));
  return got;
}

long SocketConnection::write_now(std::string_view data, bool& want_read) {
  return raw_write(data.data(), data.size(), want_read);
}

bool SocketConnection::has_buffered() const {
  return m_consumed < m_input.size() || (m_ssl != nullptr && SSL_pending(m_ssl) > 0);
}

bool SocketConnection::wait_readable(std::chrono::milliseconds wait) {
  if (has_buffered()) return true;
  if (m_gone) return false;
  const int r = poll_one(m_fd, POLLIN, wait);
  if (r < 0) m_gone = true;
  return r > 0;
}

long SocketConnection::read(char* buf, std::size_t size, std::chrono::milliseconds wait) {
  if (m_consumed == m_input.size() && !m_input.empty()) {
    m_input.clear();
    m_consumed = 0;
  }
  const auto until = Clock::now() + wait;
  while (m_consumed == m_input.size()) {
    if (m_gone) return -1;
    bool want_write = false;
    const long got = read_now(k_read_chunk, want_write);
    if (got < 0) return -1;
    if (got > 0) break;
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(until - Clock::now());
    if (left.count() <= 0) return 0;
    if (poll_one(m_fd, want_write ? POLLOUT : POLLIN, left) < 0) m_gone = true;
  }
  const std::size_t n = std::min(size, m_input.size() - m_consumed);
  std::memcpy(buf, m_input.data() + m_consumed, n);
  m_consumed += n;
  return static_cast<long>(n);
}

bool SocketConnection::write(std::string_view data) {
  auto until = Clock::now() + m_write_timeout;
  while (!data.empty()) {
    if (m_gone) return false;
    bool want_read = false;
    const long n = raw_write(data.data(), data.size(), want_read);
    if (n < 0) return false;
    if (n > 0) {
      data.remove_prefix(static_cast<std::size_t>(n));
      until = Clock::now() + m_write_timeout;  // as SO_SNDTIMEO: the time without progress
      continue;
    }
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(until - Clock::now());
    if (left.count() <= 0 || poll_one(m_fd, want_read ? POLLIN : POLLOUT, left) <= 0) return false;
  }
  return true;
}

bool SocketConnection::peer_gone() const {
  if (m_gone) return true;
  pollfd p{m_fd, POLLRDHUP, 0};
  int r;
  do {
    r = ::poll(&p, 1, 0);
  } while (r < 0 && errno == EINTR);
  return r < 0 || (p.revents & (POLLRDHUP | POLLHUP | POLLERR | POLLNVAL)) != 0;
}

std::string SocketConnection::peer_address(int& port) const {
  sockaddr_storage addr{};
  socklen_t len = sizeof addr;
  if (::getpeername(m_fd, reinterpret_cast<sockaddr*>(&addr), &len) != 0) return {};
  return address_of(addr, port);
}

std::string SocketConnection::local_address(int& port) const {
  sockaddr_storage addr{};
  socklen_t len = sizeof addr;
  if (::getsockname(m_fd, reinterpret_cast<sockaddr*>(&addr), &len) != 0) return {};
  return address_of(addr, port);
}

void SocketConnection::close(bool orderly) {
  if (m_fd < 0) return;
  if (m_ssl != nullptr) {
    if (orderly && !m_gone) SSL_shutdown(m_ssl);  // non-blocking: sent if there is room, else not
    SSL_free(m_ssl);
    ERR_clear_error();
    m_ssl = nullptr;
  }
  ::close(m_fd);
  m_fd = -1;
}

void SocketConnection::close_write() {
  if (m_fd < 0) return;
  if (m_ssl != nullptr && !m_gone) SSL_shutdown(m_ssl);
  ERR_clear_error();
  m_gone = true;  // nothing more goes through TLS
  ::shutdown(m_fd, SHUT_WR);
}

void SocketConnection::close_lingering() {
  if (m_fd < 0) return;
  char probe[16384];
  if (!m_gone && ::recv(m_fd, probe, 1, MSG_PEEK | MSG_DONTWAIT) > 0) {
    close_write();
    constexpr std::size_t k_max_discard = 8 * 1024 * 1024;
    const auto until = Clock::now() + std::chrono::seconds(2);
    std::size_t discarded = 0;
    while (discarded < k_max_discard && Clock::now() < until) {
      if (poll_one(m_fd, POLLIN, std::chrono::milliseconds(50)) <= 0) continue;
      const auto n = ::recv(m_fd, probe, sizeof probe, MSG_DONTWAIT);
      if (n <= 0) break;
      discarded += static_cast<std::size_t>(n);
    }
  }
  close(true);
}

}  // namespace kpt::apiserver
