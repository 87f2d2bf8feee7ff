#pragma once

#include "apiserver/http_types.hpp"

#include <httplib.h>
#include <openssl/ssl.h>

namespace kpt::apiserver {

/// cpp-httplib's server with connections of our own: TLS (when given a context), the
/// keep-alive loop, and the socket I/O are done here, and the requests still go through
/// httplib's parsing and routing (its protected `process_request`). Owning the connection is
/// what lets a handler answer `101 Switching Protocols` and keep the socket, which httplib
/// itself cannot do; an idle keep-alive connection also notices stop() within 50 ms.
class ConnectionServer final : public httplib::Server {
 public:
  /// `tls` (taken over, freed here): serve HTTPS with it; nullptr: plain HTTP.
  explicit ConnectionServer(SSL_CTX* tls);
  ~ConnectionServer() override;
  ConnectionServer(const ConnectionServer&) = delete;
  ConnectionServer& operator=(const ConnectionServer&) = delete;

  /// The connection of the request this thread is handling, for a handler that takes it over
  /// (nullptr outside a request). After take_over_current(), httplib's own answer to the request
  /// is discarded and the connection closes once the handler returns.
  static UpgradedConnection* take_over_current();
  /// Ends the connection of the request this thread is handling once its answer is written,
  /// instead of reading the next request from it (no-op outside a request).
  static void close_after_current();

 private:
  bool process_and_close_socket(socket_t sock) override;

  SSL_CTX* m_tls;
};

/// A TLS server context for a PEM certificate chain and key (TLS 1.2 or newer); nullptr when they
/// do not load.
SSL_CTX* make_server_tls_context(const std::string& cert_pem, const std::string& key_pem);

}  // namespace kpt::apiserver
