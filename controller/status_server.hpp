#pragma once

#include "util/expected.hpp"

#include <memory>
#include <string>

namespace kpt::controller {

class Logger;
class StatusHandler;

/// The status server's serving certificate (PEM), and the CA the pods verify it with.
struct StatusServerTls {
  std::string cert_pem;
  std::string key_pem;  ///< a secret: never logged
  std::string ca_pem;
};

/// Where the status server listens, the name the pods reach it by (a DNS name of its certificate)
/// and its certificate.
struct StatusServerOptions {
  std::string bind_host = "0.0.0.0";
  int port = 10443;  ///< Trainer's statusServer.port; 0: a free one
  std::string advertise_host;
  StatusServerTls tls;
};

/// Trainer's status server over HTTPS (TLS 1.2+, HTTP/1.1), serving every request through a
/// StatusHandler on a thread pool of its own: read and write timeouts of 10 s, idle connections
/// closed after 120 s, bodies read up to 64 KiB (a longer chunked one is the handler's 422).
class StatusServer {
 public:
  StatusServer();
  ~StatusServer();
  StatusServer(const StatusServer&) = delete;
  StatusServer& operator=(const StatusServer&) = delete;

  /// Binds `host:port` (port 0: a free one) and serves; returns the bound port.
  Expected<int> start(const std::string& host, int port, const StatusServerTls& tls, StatusHandler& handler,
                      Logger& log);
  /// Stops serving and joins (also done by the destructor).
  void stop();

 private:
  struct State;
  std::unique_ptr<State> m_state;
};

}  // namespace kpt::controller
