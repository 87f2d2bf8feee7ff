#pragma once

#include "apiserver/request_head.hpp"
#include "apiserver/socket_connection.hpp"
#include "util/expected.hpp"

#include <openssl/ssl.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace kpt::apiserver {

struct FrontEndOptions {
  std::string token;  ///< what "Authorization: Bearer" must carry; empty: every request passes
  HeadLimits limits;
  /// From accept (or the first byte of a kept-alive connection's next request) to the end of the
  /// head, TLS handshake included: kube-apiserver's ReadHeaderTimeout.
  std::chrono::milliseconds header_timeout{32000};
  /// How long a kept-alive connection may wait for its next request (kube-apiserver: 90 s).
  std::chrono::milliseconds idle_timeout{90000};
  /// Connections held here at once (handshaking, sending a head, kept alive between requests);
  /// a new one beyond closes the oldest that never authenticated, else the oldest idle one.
  std::size_t max_connections = 1024;
  /// Bytes of unfinished heads held across all connections; past it, a head over 64 KiB is a 431.
  std::size_t head_bytes_budget = 32u << 20;
};

/// What the front end hands on, and what it reports.
struct FrontEndHooks {
  /// A complete head that carries the token: takes `conn` (its input() starts with the head) and
  /// returns true, or leaves it and returns false when no worker can take it (answered 429).
  std::function<bool(std::unique_ptr<SocketConnection>& conn, const RequestHead& head)> dispatch;
  /// A request the front end answered itself (refused, health): for the access log.
  std::function<void(std::string_view method, std::string_view path, int status, bool authenticated)>
      answered;
};

/// The server's accept loop, in one thread that never waits on a client: it accepts, runs TLS
/// handshakes and reads request heads without blocking (epoll), under a deadline and size caps,
/// answers what needs no worker (401, 431, 414, 400, 429, /healthz) and hands only authenticated
/// requests to workers. Workers give kept-alive connections back to wait here for their next
/// request, so an idle or slow client costs a socket and a little memory, never a thread.
class FrontEnd {
 public:
  /// `tls` (not owned; nullptr: plain HTTP) must outlive the front end.
  FrontEnd(SSL_CTX* tls, FrontEndOptions options, FrontEndHooks hooks);
  ~FrontEnd();
  FrontEnd(const FrontEnd&) = delete;
  FrontEnd& operator=(const FrontEnd&) = delete;

  /// Binds `host`:`port` (0: a free port); returns the bound port.
  Expected<int> listen(const std::string& host, int port);
  /// Serves until stop(); then closes every connection it holds.
  void run();
  /// Ends run() (from any thread).
  void stop();
  /// A connection whose request was served and which stays open: it waits here for the next
  /// request (from any thread; closed at once once stopped).
  void give_back(std::unique_ptr<SocketConnection> conn);
  /// Connections held now (for tests and figures).
  [[nodiscard]] std::size_t held() const { return m_held.load(); }

 private:
  struct Held;
  enum class Phase { handshake, head, answer, drain };

  void accept_ready();
  bool evict_one();
  Held& hold(std::unique_ptr<SocketConnection> conn, bool kept_alive);
  void adopt(std::unique_ptr<SocketConnection> conn, bool kept_alive);
  void step(Held& h);
  void step_head(Held& h);
  void complete(Held& h, std::size_t head_size);
  void answer(Held& h, const std::string& response, bool drain);
  void step_answer(Held& h);
  void step_drain(Held& h);
  void watch(Held& h, std::uint32_t events);
  void drop(int fd);
  void sweep();
  void adopt_returned();

  SSL_CTX* m_tls;
  FrontEndOptions m_options;
  FrontEndHooks m_hooks;
  int m_listen = -1;
  int m_epoll = -1;
  int m_wake = -1;  // eventfd: stop() and give_back()
  std::unordered_map<int, std::unique_ptr<Held>> m_conns;
  std::uint64_t m_next_order = 0;
  std::size_t m_head_bytes = 0;
  std::chrono::steady_clock::time_point m_accept_paused_until{};
  bool m_accept_paused = false;
  std::atomic<bool> m_stop{false};
  std::atomic<std::size_t> m_held{0};
  std::mutex m_mutex;  // guards m_returned and m_stopped
  std::vector<std::unique_ptr<SocketConnection>> m_returned;
  bool m_stopped = false;
};

/// An HTTP/1.1 answer the front end writes whole: status line, Content-Type, Content-Length,
/// "Connection: close" when `close`, `extra` header lines ("Name: value\r\n" each), the body
/// (left out for a HEAD request).
std::string plain_http_answer(int status, std::string_view content_type, std::string_view body, bool close,
                              std::string_view extra = {}, bool head_request = false);

}  // namespace kpt::apiserver
