#pragma once

#include "util/expected.hpp"

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace kpt::kube {

using HttpHeaders = std::vector<std::pair<std::string, std::string>>;

struct HttpRequest {
  std::string method = "GET";
  std::string url;  ///< absolute: server + path + query
  HttpHeaders headers;
  std::string body;
  std::string client_certificate_pem;  ///< overrides the transport's client certificate (exec plugins)
  std::string client_key_pem;
};

struct HttpResponse {
  int status = 0;
  HttpHeaders headers;  ///< names as sent; look up with header()
  std::string body;     ///< empty when streamed

  /// All values of header `name` (case-insensitive).
  [[nodiscard]] std::vector<std::string> header(std::string_view name) const;
};

/// Transport failures. `connect_failed` proves the request never reached the server.
struct TransportError {
  bool connect_failed = false;
  bool timed_out = false;
  bool cancelled = false;
};

/// Receives body bytes of a 2xx streamed response; returning false stops the transfer.
using DataSink = std::function<bool(std::string_view)>;

/// Sends HTTP requests. Errors are ErrorCode::http (or ErrorCode::timeout); `last_error()` describes
/// the most recent failure of the calling thread for retry decisions.
class HttpTransport {
 public:
  virtual ~HttpTransport() = default;
  /// With `sink`, a 2xx body is delivered to it in chunks (no overall timeout) until it returns
  /// false, the server closes, or `cancel` becomes true; non-2xx bodies are still returned whole.
  virtual Expected<HttpResponse> send(const HttpRequest& request, const DataSink* sink,
                                      const std::atomic<bool>* cancel) = 0;
  /// Classification of this thread's last failed send().
  [[nodiscard]] virtual TransportError last_error() const = 0;
};

struct TransportOptions {
  std::string ca_file;
  std::string ca_data;  ///< PEM
  bool insecure_skip_tls_verify = false;
  /// SNI and verification name: the URL's host is replaced by it and CURLOPT_CONNECT_TO sends the
  /// connection to the real host; the Host header keeps the real host.
  std::string tls_server_name;
  std::string client_certificate_file;
  std::string client_certificate_data;
  std::string client_key_file;
  std::string client_key_data;
  std::string proxy_url;
  bool compression = true;
  std::chrono::milliseconds timeout{0};  ///< whole request, not for streams; 0 = none
  std::chrono::milliseconds connect_timeout{30'000};
};

/// libcurl implementation: a pool of easy handles (kept connections are reused), TLS verified
/// unless insecure, *_data fields passed as blobs, gzip when `compression`.
std::unique_ptr<HttpTransport> make_curl_transport(TransportOptions options);

}  // namespace kpt::kube
