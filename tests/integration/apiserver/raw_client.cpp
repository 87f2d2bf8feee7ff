#include "raw_client.hpp"

#include <openssl/err.h>

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <fstream>
#include <string>

namespace kpt::apiserver::testing {

namespace {

using Clock = std::chrono::steady_clock;

std::size_t status_field(const std::string& name) {
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind(name + ":", 0) == 0) return std::stoul(line.substr(name.size() + 1));
  }
  return 0;
}

}  // namespace

RawConnection::RawConnection(int port, bool tls) {
  m_fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<std::uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (m_fd < 0 || ::connect(m_fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) return;
  timeval tv{10, 0};  // no call of these clients blocks a test for long
  ::setsockopt(m_fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  ::setsockopt(m_fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
  if (tls) {
    m_ctx = SSL_CTX_new(TLS_client_method());
    m_ssl = SSL_new(m_ctx);
    SSL_set_fd(m_ssl, m_fd);
    if (SSL_connect(m_ssl) != 1) {
      ERR_clear_error();
      return;
    }
  }
  m_ok = true;
}

RawConnection::~RawConnection() { drop(); }

void RawConnection::drop() {
  if (m_ssl != nullptr) SSL_free(m_ssl);
  if (m_ctx != nullptr) SSL_CTX_free(m_ctx);
  m_ssl = nullptr;
  m_ctx = nullptr;
  if (m_fd >= 0) ::close(m_fd);
  m_fd = -1;
  ERR_clear_error();
}

bool RawConnection::send(std::string_view data) {
  while (!data.empty()) {
    long n;
    if (m_ssl != nullptr) {
      n = SSL_write(m_ssl, data.data(), static_cast<int>(std::min<std::size_t>(data.size(), 1 << 20)));
    } else {
      n = ::send(m_fd, data.data(), data.size(), MSG_NOSIGNAL);
    }
    if (n <= 0) {
      ERR_clear_error();
      return false;
    }
    data.remove_prefix(static_cast<std::size_t>(n));
  }
  return true;
}

bool RawConnection::readable() const {
  if (m_ssl != nullptr && SSL_pending(m_ssl) > 0) return true;
  pollfd p{m_fd, POLLIN, 0};
  if (::poll(&p, 1, 0) <= 0) return false;
  if (m_ssl == nullptr) return true;
  // TLS 1.3 servers send session tickets after the handshake: readable bytes that are no answer.
  const int flags = ::fcntl(m_fd, F_GETFL, 0);
  ::fcntl(m_fd, F_SETFL, flags | O_NONBLOCK);
  char byte;
  const int n = SSL_peek(m_ssl, &byte, 1);
  const bool answer = n > 0 || SSL_get_error(m_ssl, n) != SSL_ERROR_WANT_READ;
  ::fcntl(m_fd, F_SETFL, flags);
  ERR_clear_error();
  return answer;
}

std::string RawConnection::receive(std::chrono::milliseconds wait, std::string_view until) {
  std::string out;
  const auto deadline = Clock::now() + wait;
  char buf[16384];
  while (Clock::now() < deadline && (until.empty() || out.find(until) == std::string::npos)) {
    if (m_ssl == nullptr || SSL_pending(m_ssl) == 0) {
      pollfd p{m_fd, POLLIN, 0};
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
      if (::poll(&p, 1, static_cast<int>(std::max<std::int64_t>(0, left.count()))) <= 0) break;
    }
    const long n = m_ssl != nullptr ? SSL_read(m_ssl, buf, sizeof buf) : ::recv(m_fd, buf, sizeof buf, 0);
    if (n <= 0) {
      ERR_clear_error();
      break;
    }
    out.append(buf, static_cast<std::size_t>(n));
  }
  return out;
}

bool RawConnection::closed_by_server(std::chrono::milliseconds wait) {
  const auto deadline = Clock::now() + wait;
  char buf[16384];
  while (Clock::now() < deadline) {
    pollfd p{m_fd, POLLIN, 0};
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
    if (::poll(&p, 1, static_cast<int>(std::max<std::int64_t>(0, left.count()))) <= 0) return false;
    const long n = ::recv(m_fd, buf, sizeof buf, MSG_DONTWAIT);  // TLS records included: only the end counts
    if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR)) return true;
  }
  return false;
}

std::string get_head(const std::string& path, const std::string& token) {
  std::string head = "GET " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\n";
  if (!token.empty()) head += "Authorization: Bearer " + token + "\r\n";
  return head + "\r\n";
}

int status_of(const std::string& reply) {
  return reply.rfind("HTTP/1.1 ", 0) == 0 && reply.size() >= 12 ? std::stoi(reply.substr(9, 3)) : 0;
}

std::size_t process_threads() { return status_field("Threads"); }
std::size_t resident_kib() { return status_field("VmRSS"); }
std::size_t peak_resident_kib() { return status_field("VmHWM"); }

}  // namespace kpt::apiserver::testing
