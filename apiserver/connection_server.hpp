#pragma once

#include "apiserver/front_end.hpp"
#include "apiserver/http_types.hpp"
#include "apiserver/worker_pool.hpp"

#include <httplib.h>
#include <openssl/ssl.h>

#include <atomic>
#include <condition_variable>
#include <mutex>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace kpt::apiserver {

struct ConnectionOptions {
  FrontEndOptions front;
  std::size_t threads = 64;        ///< ordinary requests served at once
  std::size_t max_waiting = 256;   ///< ordinary requests waiting for a thread; past it, 429
  std::size_t max_streams = 1000;  ///< watches, log streams and exec sessions open at once; past it, 429
  std::size_t stack_bytes = 32u << 20;
  /// How long a request's body may stall between two reads (a body that stalls ends in 400).
  std::chrono::milliseconds read_timeout{30000};
  /// How long an answer may wait for the client to take more bytes.
  std::chrono::milliseconds write_timeout{30000};
};

/// cpp-httplib's request parsing, routing and answers, on connections of our own: a FrontEnd
/// accepts them, runs TLS and reads request heads; WorkerPool threads run httplib's
/// process_request for authenticated requests; a handler whose answer streams (watch, logs) or
/// upgrades (exec) hands its connection to a thread of its own, so that neither slow clients nor
/// open streams can use up the threads ordinary requests need. A kept-alive connection goes back
/// to the front end between requests. See docs/apiserver-hardening.md.
class ConnectionServer final : public httplib::Server {
 public:
  /// `tls` (taken over, freed here): serve HTTPS with it; nullptr: plain HTTP. `answered`: each
  /// request the front end answered itself, for the access log.
  ConnectionServer(SSL_CTX* tls, ConnectionOptions options, decltype(FrontEndHooks::answered) answered);
  ~ConnectionServer() override;
  ConnectionServer(const ConnectionServer&) = delete;
  ConnectionServer& operator=(const ConnectionServer&) = delete;

  /// Binds `host`:`port` (0: a free port); returns the bound port.
  Expected<int> listen_on(const std::string& host, int port);
  /// Serves until stop().
  void serve_forever();
  /// Stops accepting, closes idle connections, lets ordinary requests end (1 s at most), then
  /// ends every connection still open; returns once every thread of the server has ended.
  /// Streams end when their `stopping` flag is set (the caller sets it first).
  void stop();

  /// From a handler: answers the current request with `status`, `content_type` and `headers` and a
  /// chunked body that `body` writes from a thread of its own (until it returns, the client goes, or
  /// `stopping`). False when max_streams are open already (the handler answers 429 instead) or
  /// outside a request.
  static bool stream_current(int status, const std::string& content_type,
                             const std::vector<std::pair<std::string, std::string>>& headers,
                             BodyStreamer body, const std::atomic<bool>& stopping);
  /// From a handler: answers `101 Switching Protocols` with `headers` and hands the connection to
  /// `handler` on a thread of its own. False as for stream_current.
  static bool upgrade_current(const std::vector<std::pair<std::string, std::string>>& headers,
                              UpgradeHandler handler, const std::atomic<bool>& stopping);
  /// Ends the connection of the request this thread is handling once its answer is written,
  /// instead of reading the next request from it (no-op outside a request).
  static void close_after_current();

  struct Stats {
    std::size_t held = 0;     ///< connections in the front end (handshaking, sending a head, idle)
    std::size_t busy = 0;     ///< ordinary requests being served
    std::size_t threads = 0;  ///< threads of the ordinary pool
    std::size_t streams = 0;  ///< watches, log streams and exec sessions open
  };
  [[nodiscard]] Stats stats() const;

 private:
  struct Handoff;
  void serve_request(RequestJob job);
  bool reserve_stream();
  void run_handoff(std::unique_ptr<SocketConnection> conn, std::shared_ptr<Handoff> handoff);
  void track(SocketConnection* conn, bool add);

  SSL_CTX* m_tls;
  ConnectionOptions m_options;
  FrontEnd m_front;
  WorkerPool m_pool;
  std::atomic<bool> m_stopping{false};
  mutable std::mutex m_mutex;  // guards what follows
  std::condition_variable m_streams_done;
  std::size_t m_streams = 0;
  std::set<SocketConnection*> m_active;  // connections a worker or stream thread holds
};

/// A TLS server context for a PEM certificate chain and key (TLS 1.2 or newer); nullptr when they
/// do not load.
SSL_CTX* make_server_tls_context(const std::string& cert_pem, const std::string& key_pem);

}  // namespace kpt::apiserver
