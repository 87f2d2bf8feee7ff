#pragma once

#include "apiserver/access_log.hpp"
#include "apiserver/certs.hpp"
#include "apiserver/exec_provider.hpp"
#include "apiserver/faults.hpp"
#include "apiserver/log_provider.hpp"
#include "apiserver/resources.hpp"
#include "apiserver/store.hpp"
#include "util/expected.hpp"

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>

namespace kpt::apiserver {

class ApiHandler;

/// What the server holds now, for tests and figures.
struct ServerStats {
  std::size_t held = 0;     ///< connections waiting in the front end (handshake, head, idle)
  std::size_t busy = 0;     ///< ordinary requests being served
  std::size_t threads = 0;  ///< threads of the ordinary pool
  std::size_t streams = 0;  ///< watches, log streams and exec sessions open
};

struct ServerOptions {
  std::string host = "127.0.0.1";
  bool tls = true;
  std::optional<ServerCertificates> certificates;  ///< generated at start() when TLS is on and none given
  std::string token;                               ///< bearer token required of clients; empty: no auth
  StoreOptions store;  ///< store.clock: where now comes from for the Event TTL (tests inject one)
  /// How long an Event lives after its last write, as kube-apiserver's --event-ttl (default 1 h);
  /// 0: until deleted. The expiry is stored with the Event, so it holds across restarts.
  std::chrono::seconds event_ttl{3600};
  /// How often expired Events are removed; 0: only when store().expire() is called (tests that
  /// move a FakeClock call it themselves).
  std::chrono::milliseconds expiry_interval{1000};
  /// SQLite database holding the objects across restarts (created when missing); empty: memory only.
  std::string database;
  FaultPlan faults;
  /// Ordinary requests served at once, each on a thread of the server's pool (a request beyond
  /// waits, up to max_waiting; beyond that it is answered 429). Watches, log streams and exec
  /// sessions run on threads of their own and do not count here.
  std::size_t threads = 64;
  std::size_t max_waiting = 256;
  /// Watches, log streams and exec sessions open at once; one more is answered 429.
  std::size_t max_streams = 1000;
  /// The stack of each thread that serves requests: room for the recursive walks of JSON (copy,
  /// compare, serialize, merge patch, validation) over bodies as deep as k_max_json_depth, which
  /// need 6 to 8 MiB (the depth-sweep test sends them). Reserved address space; only what a walk
  /// touches becomes memory.
  std::size_t stack_bytes = 32u << 20;
  /// Connections held between accept and an authenticated request (TLS handshake, head) or
  /// kept alive between requests; a new one beyond closes the oldest that never authenticated.
  std::size_t max_connections = 1024;
  /// From accept to the end of a request's head, TLS handshake included (kube-apiserver's
  /// ReadHeaderTimeout); a client that takes longer is disconnected without an answer.
  std::chrono::milliseconds header_timeout{32000};
  /// How long a kept-alive connection may wait for its next request (kube-apiserver: 90 s).
  std::chrono::milliseconds idle_timeout{90000};
  /// How long a client may take to send the next part of a request's body (a body that stalls
  /// ends in 400).
  std::chrono::seconds read_timeout{30};
  /// One line per request ("GET /api/v1/pods 200"), escaped; never headers or queries, so never
  /// the token. Lines about requests without the token are rate-limited by access_log_limit.
  std::function<void(const std::string&)> access_log;
  LogRateLimit access_log_limit;
};

/// The embedded Kubernetes API server: a store (in memory, or SQLite) behind HTTP(S) that kubectl,
/// our client and the controller use like a cluster. Usable in-process:
///   ApiServer s({.token = "t"}); auto port = s.start(); ... s.stop();
class ApiServer {
 public:
  explicit ApiServer(ServerOptions options = {});
  ~ApiServer();
  ApiServer(const ApiServer&) = delete;
  ApiServer& operator=(const ApiServer&) = delete;

  /// Binds `port` on the loopback host (0: a free port) and serves in a background thread.
  /// Returns the bound port.
  Expected<int> start(int port = 0);
  /// Stops serving: ends watches and streams, joins the server thread. Idempotent.
  void stop();
  /// Ends every watch and streamed response at once (clients see their streams end) while still
  /// answering other requests: what an embedding process calls before it waits for its own
  /// clients to stop, so none sits in a watch until its poll notices. stop() does it too.
  void end_streams();
  /// Blocks until stop() is called from another thread.
  void wait();

  [[nodiscard]] int port() const;
  /// "https://127.0.0.1:<port>" (or http when TLS is off).
  [[nodiscard]] std::string url() const;
  [[nodiscard]] const std::string& token() const;
  /// The CA and serving certificate in use (empty strings when TLS is off).
  [[nodiscard]] const ServerCertificates& certificates() const;

  Store& store();
  ResourceRegistry& registry();
  ApiHandler& handler();
  /// Where pods/log comes from (the local node plugs in here); nullptr restores "no logs".
  void set_log_provider(std::shared_ptr<LogProvider> provider);
  /// Where pods/exec runs commands (the local node plugs in here); nullptr restores "no node".
  void set_exec_provider(std::shared_ptr<ExecProvider> provider);
  void set_fault_plan(const FaultPlan& plan);
  [[nodiscard]] ServerStats stats() const;
  [[nodiscard]] std::uint64_t faults_injected() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> m_impl;
};

}  // namespace kpt::apiserver
