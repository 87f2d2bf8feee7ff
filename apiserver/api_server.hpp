#pragma once

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
  std::size_t threads = 64;  ///< each open watch holds one
  /// How long a client may take to send the next part of a request (a body that stalls ends in 400).
  std::chrono::seconds read_timeout{30};
  /// One line per request ("GET /api/v1/pods 200"); never headers, so never the token.
  std::function<void(const std::string&)> access_log;
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
  [[nodiscard]] std::uint64_t faults_injected() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> m_impl;
};

}  // namespace kpt::apiserver
