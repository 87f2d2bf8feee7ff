#pragma once

#include "util/expected.hpp"

#include <cstddef>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace kpt::apiserver {

/// Bounds on a request head (request line and headers), which the server reads before it knows
/// who sends it. kube-apiserver allows 1 MiB of headers (http.Server MaxHeaderBytes) and answers
/// 431 beyond. cpp-httplib, which parses the head again after us, refuses a request line over
/// 8 KiB (414) and a header line over 8 KiB, and keeps every header line as a map entry, so lines
/// are bounded too.
struct HeadLimits {
  std::size_t max_bytes = 1 << 20;
  std::size_t max_header_lines = 256;
  std::size_t max_request_line = 8192;  ///< with its CRLF, as httplib counts
  std::size_t max_header_line = 8192;
};

/// Finds the end of a request head in bytes that arrive in pieces, as cpp-httplib 0.11.4 reads
/// it (a line ends at LF; the request line must end in CRLF; a header line that does not is
/// skipped; the line "\r\n" ends the head), so both see the same head. A head over its limits is
/// refused as soon as it goes over, not when its line ends: a peer that never sends a newline is
/// refused after max_bytes.
class HeadScanner {
 public:
  explicit HeadScanner(HeadLimits limits = {}) : m_limits(limits) {}

  /// Looks at what is new in `received` (all bytes of this head so far, and maybe more after it).
  /// Returns 0 while the head is incomplete, its size once complete (bytes after it are not
  /// part of it), or the error to answer with: 414, or 431 RequestHeaderFieldsTooLarge.
  Expected<std::size_t> scan(std::string_view received);
  /// Starts over for the next request on the connection.
  void reset() { *this = HeadScanner(m_limits); }
  /// Whether any byte of a request has arrived (an idle keep-alive connection has none).
  [[nodiscard]] bool started() const { return m_scanned > 0; }

 private:
  HeadLimits m_limits;
  std::size_t m_scanned = 0;     // bytes of `received` already looked at
  std::size_t m_line_start = 0;  // where the current line starts
  std::size_t m_lines = 0;       // lines ended so far, the request line included
};

/// A complete request head, read as httplib reads it (see HeadScanner).
struct RequestHead {
  std::string method;
  std::string target;  ///< as sent: path, query
  std::string version;
  std::string path;  ///< the target before '?' and '#', percent-decoded as httplib decodes it
  /// Header lines in order: name as sent, value without the blanks around it.
  std::vector<std::pair<std::string, std::string>> headers;

  /// The first header of that name (any case), or "".
  [[nodiscard]] std::string header(std::string_view name) const;
  /// Whether a body follows the head (Content-Length over 0, or any Transfer-Encoding).
  [[nodiscard]] bool announces_body() const;
};

/// Parses a head HeadScanner found complete (the final CRLF included). 400 BadRequest for a
/// request line httplib would refuse (not three words, an unknown method, not HTTP/1.0 or 1.1).
Expected<RequestHead> parse_request_head(std::string_view head);

/// Whether `authorization` is exactly "Bearer <token>", compared in constant time.
bool bearer_token_matches(std::string_view authorization, std::string_view token);

/// The paths answered without a token, as kube-apiserver's default RBAC lets anyone read them.
bool is_health_path(std::string_view path);

/// 431 for a head over HeadLimits (Go's net/http answers it for MaxHeaderBytes).
Error request_header_fields_too_large(const std::string& why);

}  // namespace kpt::apiserver
