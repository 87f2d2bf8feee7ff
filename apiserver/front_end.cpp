#include "apiserver/front_end.hpp"

#include "apiserver/status.hpp"

#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>

namespace kpt::apiserver {

namespace {

using Clock = std::chrono::steady_clock;

constexpr std::chrono::milliseconds k_sweep_every{50};
constexpr std::chrono::milliseconds k_drain_time{2000};
constexpr std::size_t k_drain_bytes = 8u << 20;
constexpr std::size_t k_head_always_allowed = 64u << 10;  // a head this small never meets the budget
constexpr int k_reads_per_event = 16;                     // 256 KiB, then others get their turn
constexpr int k_accepts_per_event = 64;
constexpr std::size_t k_tls_record = 16384;

const char* status_text(int status) {
  switch (status) {
    case 200:
      return "OK";
    case 400:
      return "Bad Request";
    case 401:
      return "Unauthorized";
    case 414:
      return "URI Too Long";
    case 429:
      return "Too Many Requests";
    case 431:
      return "Request Header Fields Too Large";
    case 503:
      return "Service Unavailable";
    default:
      return "Error";
  }
}

/// The answer for an error: its Status body and headers (Retry-After), the connection closed.
std::string error_answer(const Error& error, bool head_request) {
  const HttpResponse r = error_response(error);
  std::string extra;
  for (const auto& [k, v] : r.headers) extra += k + ": " + v + "\r\n";
  return plain_http_answer(r.status, r.content_type, r.body, true, extra, head_request);
}

Error unauthorized() { return make_api_error(401, "Unauthorized", "Unauthorized"); }

}  // namespace

std::string plain_http_answer(int status, std::string_view content_type, std::string_view body, bool close,
                              std::string_view extra, bool head_request) {
  std::string out = "HTTP/1.1 " + std::to_string(status) + " " + status_text(status) + "\r\n";
  out += "Content-Type: " + std::string(content_type) + "\r\n";
  out += "Content-Length: " + std::to_string(body.size()) + "\r\n";
  if (close) out += "Connection: close\r\n";
  out += extra;
  out += "\r\n";
  if (!head_request) out += body;
  return out;
}

struct FrontEnd::Held {
  std::unique_ptr<SocketConnection> conn;
  Phase phase = Phase::handshake;
  HeadScanner scanner;
  Clock::time_point deadline;
  bool idle = false;           // kept alive after a request, no byte of the next one yet
  bool authenticated = false;  // a request on it carried the token
  std::uint64_t order = 0;     // accept order: the oldest goes first when room is needed
  std::string answer;
  std::size_t answer_sent = 0;
  bool drain_after = false;
  std::size_t drained = 0;
  std::uint32_t events = 0;
  std::size_t head_bytes = 0;  // counted in m_head_bytes
};

FrontEnd::FrontEnd(SSL_CTX* tls, FrontEndOptions options, FrontEndHooks hooks)
    : m_tls(tls), m_options(std::move(options)), m_hooks(std::move(hooks)) {
  m_epoll = ::epoll_create1(EPOLL_CLOEXEC);
  m_wake = ::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  epoll_event ev{};
  ev.events = EPOLLIN;
  ev.data.fd = m_wake;
  ::epoll_ctl(m_epoll, EPOLL_CTL_ADD, m_wake, &ev);
}

FrontEnd::~FrontEnd() {
  m_conns.clear();
  if (m_listen >= 0) ::close(m_listen);
  ::close(m_wake);
  ::close(m_epoll);
}

Expected<int> FrontEnd::listen(const std::string& host, int port) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
  addrinfo* found = nullptr;
  const std::string service = std::to_string(port);
  const auto fail = [&] {
    return make_error(ErrorCode::io,
                      "binding " + host + ":" + service + " failed: address in use or not available");
  };
  if (::getaddrinfo(host.c_str(), service.c_str(), &hints, &found) != 0) return fail();
  for (addrinfo* a = found; a != nullptr && m_listen < 0; a = a->ai_next) {
    const int fd = ::socket(a->ai_family, a->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, a->ai_protocol);
    if (fd < 0) continue;
    const int yes = 1;
    ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
    if (::bind(fd, a->ai_addr, a->ai_addrlen) == 0 && ::listen(fd, SOMAXCONN) == 0) {
      m_listen = fd;
    } else {
      ::close(fd);
    }
  }
  ::freeaddrinfo(found);
  if (m_listen < 0) return fail();
  sockaddr_storage bound{};
  socklen_t len = sizeof bound;
  ::getsockname(m_listen, reinterpret_cast<sockaddr*>(&bound), &len);
  const int bound_port = bound.ss_family == AF_INET6 ? ntohs(reinterpret_cast<sockaddr_in6&>(bound).sin6_port)
                                                     : ntohs(reinterpret_cast<sockaddr_in&>(bound).sin_port);
  epoll_event ev{};
  ev.events = EPOLLIN;
  ev.data.fd = m_listen;
  ::epoll_ctl(m_epoll, EPOLL_CTL_ADD, m_listen, &ev);
  return bound_port;
}

void FrontEnd::run() {
  std::array<epoll_event, 64> events{};
  auto last_sweep = Clock::now();
  while (!m_stop) {
    const int timeout = m_conns.empty() && !m_accept_paused ? 1000 : static_cast<int>(k_sweep_every.count());
    const int n = ::epoll_wait(m_epoll, events.data(), static_cast<int>(events.size()), timeout);
    for (int i = 0; i < n && !m_stop; ++i) {
      const int fd = events[static_cast<std::size_t>(i)].data.fd;
      if (fd == m_listen) {
        accept_ready();
      } else if (fd == m_wake) {
        std::uint64_t count = 0;
        while (::read(m_wake, &count, sizeof count) > 0) {
        }
        adopt_returned();
      } else if (const auto it = m_conns.find(fd); it != m_conns.end()) {
        step(*it->second);
      }
    }
    const auto now = Clock::now();
    if (m_accept_paused && now >= m_accept_paused_until) {
      m_accept_paused = false;
      epoll_event ev{};
      ev.events = EPOLLIN;
      ev.data.fd = m_listen;
      ::epoll_ctl(m_epoll, EPOLL_CTL_ADD, m_listen, &ev);
    }
    if (now - last_sweep >= k_sweep_every) {
      sweep();
      last_sweep = now;
    }
  }
  {
    std::lock_guard lock(m_mutex);
    m_stopped = true;
    m_returned.clear();
  }
  m_conns.clear();
  m_held = 0;
  if (m_listen >= 0) {
    ::close(m_listen);
    m_listen = -1;
  }
}

void FrontEnd::stop() {
  m_stop = true;
  const std::uint64_t one = 1;
  (void)!::write(m_wake, &one, sizeof one);
}

void FrontEnd::give_back(std::unique_ptr<SocketConnection> conn) {
  {
    std::lock_guard lock(m_mutex);
    if (m_stopped) return;  // closes it
    m_returned.push_back(std::move(conn));
  }
  const std::uint64_t one = 1;
  (void)!::write(m_wake, &one, sizeof one);
}

void FrontEnd::adopt_returned() {
  std::vector<std::unique_ptr<SocketConnection>> returned;
  {
    std::lock_guard lock(m_mutex);
    returned.swap(m_returned);
  }
  for (auto& conn : returned) adopt(std::move(conn), true);
}

void FrontEnd::accept_ready() {
  for (int i = 0; i < k_accepts_per_event; ++i) {
    const int fd = ::accept4(m_listen, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0) {
      if (errno == EINTR || errno == ECONNABORTED) continue;
      if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM) {
        // Out of descriptors: make room from the oldest unauthenticated connection, or wait a
        // little instead of spinning on a listen socket that stays readable.
        if (evict_one()) continue;
        m_accept_paused = true;
        m_accept_paused_until = Clock::now() + std::chrono::milliseconds(100);
        ::epoll_ctl(m_epoll, EPOLL_CTL_DEL, m_listen, nullptr);
      }
      return;
    }
    if (m_conns.size() >= m_options.max_connections) evict_one();
    const int yes = 1;
    ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &yes, sizeof yes);
    SSL* ssl = nullptr;
    if (m_tls != nullptr) {
      ssl = SSL_new(m_tls);
      if (ssl == nullptr || SSL_set_fd(ssl, fd) != 1) {
        if (ssl != nullptr) SSL_free(ssl);
        ::close(fd);
        continue;
      }
    }
    adopt(std::make_unique<SocketConnection>(fd, ssl), false);
  }
}

bool FrontEnd::evict_one() {
  // The oldest of: connections already refused (answer, drain), then those that never carried the
  // token, then idle kept-alive ones.
  Held* victim = nullptr;
  int victim_rank = 3;
  for (auto& [fd, h] : m_conns) {
    const int rank = h->phase == Phase::answer || h->phase == Phase::drain ? 0 : h->authenticated ? 2 : 1;
    if (victim == nullptr || rank < victim_rank || (rank == victim_rank && h->order < victim->order)) {
      victim = h.get();
      victim_rank = rank;
    }
  }
  if (victim == nullptr) return false;
  drop(victim->conn->fd());
  return true;
}

FrontEnd::Held& FrontEnd::hold(std::unique_ptr<SocketConnection> conn, bool kept_alive) {
  auto held = std::make_unique<Held>();
  Held& h = *held;
  h.conn = std::move(conn);
  h.order = m_next_order++;
  h.scanner = HeadScanner(m_options.limits);
  h.phase = kept_alive ? Phase::head : Phase::handshake;
  h.idle = kept_alive;
  h.authenticated = kept_alive;
  h.deadline = Clock::now() + (kept_alive ? m_options.idle_timeout : m_options.header_timeout);
  const int fd = h.conn->fd();
  m_conns[fd] = std::move(held);
  m_held = m_conns.size();
  return h;
}

void FrontEnd::adopt(std::unique_ptr<SocketConnection> conn, bool kept_alive) {
  // A ClientHello or the next request may be here already (or buffered, which epoll never reports).
  step(hold(std::move(conn), kept_alive));
}

void FrontEnd::watch(Held& h, std::uint32_t events) {
  if (h.events == events) return;
  epoll_event ev{};
  ev.events = events;
  ev.data.fd = h.conn->fd();
  ::epoll_ctl(m_epoll, h.events == 0 ? EPOLL_CTL_ADD : EPOLL_CTL_MOD, h.conn->fd(), &ev);
  h.events = events;
}

void FrontEnd::drop(int fd) {
  const auto it = m_conns.find(fd);
  if (it == m_conns.end()) return;
  m_head_bytes -= it->second->head_bytes;
  if (it->second->events != 0) ::epoll_ctl(m_epoll, EPOLL_CTL_DEL, fd, nullptr);
  m_conns.erase(it);  // closes the socket
  m_held = m_conns.size();
}

void FrontEnd::step(Held& h) {
  switch (h.phase) {
    case Phase::handshake:
      switch (h.conn->handshake()) {
        case SocketConnection::Step::done:
          h.phase = Phase::head;
          step_head(h);
          return;
        case SocketConnection::Step::want_read:
          watch(h, EPOLLIN);
          return;
        case SocketConnection::Step::want_write:
          watch(h, EPOLLOUT);
          return;
        case SocketConnection::Step::failed:
          drop(h.conn->fd());
          return;
      }
      return;
    case Phase::head:
      step_head(h);
      return;
    case Phase::answer:
      step_answer(h);
      return;
    case Phase::drain:
      step_drain(h);
      return;
  }
}

void FrontEnd::step_head(Held& h) {
  for (int round = 0;; ++round) {
    std::string& input = h.conn->input();
    if (!input.empty()) {
      if (h.idle) {
        h.idle = false;
        h.deadline = Clock::now() + m_options.header_timeout;
      }
      m_head_bytes += input.size() - std::min(input.size(), h.head_bytes);
      h.head_bytes = std::max(h.head_bytes, input.size());
      auto scanned = h.scanner.scan(input);
      if (!scanned) return answer(h, error_answer(scanned.error(), false), true);
      if (*scanned > 0) return complete(h, *scanned);
      if (h.head_bytes > k_head_always_allowed && m_head_bytes > m_options.head_bytes_budget) {
        return answer(h,
                      error_answer(request_header_fields_too_large(
                                       "the server holds too many unfinished request heads; try again later"),
                                   false),
                      true);
      }
    }
    // Level-triggered: the rest comes at the next turn, after the other connections had theirs.
    if (round == k_reads_per_event) return watch(h, EPOLLIN);
    bool want_write = false;
    // A whole TLS record at a time, so that none stays decrypted in OpenSSL, where epoll cannot
    // see it; the scanner refuses a head past its limit within one record of it.
    const long got = h.conn->read_now(k_tls_record, want_write);
    if (got < 0) return drop(h.conn->fd());
    if (got == 0) return watch(h, want_write ? EPOLLOUT : EPOLLIN);
  }
}

void FrontEnd::complete(Held& h, std::size_t head_size) {
  const std::string& input = h.conn->input();
  auto head = parse_request_head(std::string_view(input).substr(0, head_size));
  if (!head) {
    if (m_hooks.answered) m_hooks.answered("-", "-", head.error().http_status, false);
    return answer(h, error_answer(head.error(), false), true);
  }
  const RequestHead& r = head.value();
  const bool is_head = r.method == "HEAD";
  const bool authenticated =
      m_options.token.empty() || bearer_token_matches(r.header("authorization"), m_options.token);
  if (is_health_path(r.path)) {
    if (m_hooks.answered) m_hooks.answered(r.method, r.path, 200, authenticated);
    return answer(h, plain_http_answer(200, "text/plain", "ok", true, {}, is_head), r.announces_body());
  }
  if (!authenticated) {
    if (m_hooks.answered) m_hooks.answered(r.method, r.path, 401, false);
    return answer(h, error_answer(unauthorized(), is_head), r.announces_body());
  }
  // Handed on: the head stays in input() for httplib to read.
  const int fd = h.conn->fd();
  if (h.events != 0) ::epoll_ctl(m_epoll, EPOLL_CTL_DEL, fd, nullptr);
  h.events = 0;
  m_head_bytes -= h.head_bytes;
  h.head_bytes = 0;
  auto conn = std::move(h.conn);
  m_conns.erase(fd);
  m_held = m_conns.size();
  if (m_hooks.dispatch && m_hooks.dispatch(conn, r)) return;
  // No worker free: answered here, as kube-apiserver's max-inflight filter does.
  Error busy = make_api_error(429, "TooManyRequests", "Too many requests, please try again later.");
  busy.details.retry_after_seconds = 1;
  if (m_hooks.answered) m_hooks.answered(r.method, r.path, 429, true);
  const bool body = r.announces_body();
  answer(hold(std::move(conn), true), error_answer(busy, is_head), body);
}

void FrontEnd::answer(Held& h, const std::string& response, bool drain) {
  m_head_bytes -= h.head_bytes;
  h.head_bytes = 0;
  h.phase = Phase::answer;
  h.answer = response;
  h.answer_sent = 0;
  h.drain_after = drain;
  h.deadline = Clock::now() + k_drain_time;
  step_answer(h);
}

void FrontEnd::step_answer(Held& h) {
  while (h.answer_sent < h.answer.size()) {
    bool want_read = false;
    const long n = h.conn->write_now(std::string_view(h.answer).substr(h.answer_sent), want_read);
    if (n < 0) return drop(h.conn->fd());
    if (n == 0) return watch(h, want_read ? EPOLLIN : EPOLLOUT);
    h.answer_sent += static_cast<std::size_t>(n);
  }
  // Only a peer that may still send a body needs its bytes read before the close: closing with
  // unread bytes makes the kernel send RST, which can destroy the answer before it is read.
  h.conn->input().clear();
  if (!h.drain_after) return drop(h.conn->fd());
  h.conn->close_write();
  h.phase = Phase::drain;
  h.deadline = Clock::now() + k_drain_time;
  step_drain(h);
}

void FrontEnd::step_drain(Held& h) {
  char scratch[16384];
  for (;;) {
    const auto n = ::recv(h.conn->fd(), scratch, sizeof scratch, MSG_DONTWAIT);
    if (n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)) {
      return drop(h.conn->fd());
    }
    if (n < 0) return watch(h, EPOLLIN);
    h.drained += static_cast<std::size_t>(n);
    if (h.drained > k_drain_bytes) return drop(h.conn->fd());
  }
}

void FrontEnd::sweep() {
  const auto now = Clock::now();
  std::vector<int> expired;
  for (const auto& [fd, h] : m_conns) {
    if (now >= h->deadline) expired.push_back(fd);
  }
  // A head that did not come in time gets no answer, as Go's server answers none: the client is
  // either gone or not a client.
  for (const int fd : expired) drop(fd);
}

}  // namespace kpt::apiserver
