#pragma once

#include <atomic>
#include <cctype>
#include <chrono>
#include <cstddef>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace kpt::apiserver {

/// One HTTP request as the API handlers see it: transport-neutral, so the routing and
/// resource logic is testable without sockets.
struct HttpRequest {
  std::string method;                             ///< "GET", "POST", ...
  std::string path;                               ///< decoded path, no query
  std::multimap<std::string, std::string> query;  ///< decoded query parameters
  std::map<std::string, std::string> headers;     ///< keys lower-case
  std::string body;

  [[nodiscard]] std::string param(const std::string& name) const {
    const auto it = query.find(name);
    return it == query.end() ? std::string{} : it->second;
  }
  [[nodiscard]] bool has_param(const std::string& name) const { return query.count(name) > 0; }
  /// A boolean query parameter: false when absent or one of strconv.ParseBool's false spellings
  /// ("0", "f", "F", "false", "False", "FALSE"; any casing of "false" too, as the real server's
  /// k8s.io/apimachinery pkg/runtime/conversion.go Convert_Slice_string_To_bool lowercases);
  /// every other value, "True" (Python's client) and "" included, is true.
  [[nodiscard]] bool flag(const std::string& name) const {
    if (!has_param(name)) return false;
    const auto v = param(name);
    if (v == "0" || v == "f" || v == "F") return false;
    if (v.size() != 5) return true;
    static constexpr std::string_view k_false = "false";
    for (std::size_t i = 0; i < v.size(); ++i) {
      if (std::tolower(static_cast<unsigned char>(v[i])) != k_false[i]) return true;
    }
    return false;
  }
  [[nodiscard]] std::string header(const std::string& lower_name) const {
    const auto it = headers.find(lower_name);
    return it == headers.end() ? std::string{} : it->second;
  }
};

/// Writes one chunk of a streamed body; false when the client has gone.
using ChunkWriter = std::function<bool(std::string_view)>;

/// A streamed body (watch, followed logs): runs until done, the writer fails or `stopping`.
using BodyStreamer = std::function<void(const ChunkWriter& write, const std::atomic<bool>& stopping)>;

/// A connection taken over after a `101 Switching Protocols` answer, for a protocol that is
/// not HTTP any more (WebSocket). Used from the one thread that handles the request.
class UpgradedConnection {
 public:
  virtual ~UpgradedConnection() = default;
  /// Reads what is available into `buf`, waiting up to `wait` for something to arrive.
  /// Returns the byte count, 0 when nothing came in time, -1 once the peer has gone.
  virtual long read(char* buf, std::size_t size, std::chrono::milliseconds wait) = 0;
  /// Writes all of `data` (bounded by the server's write timeout); false when the peer has gone.
  virtual bool write(std::string_view data) = 0;
  /// The socket, for poll() next to other descriptors.
  [[nodiscard]] virtual int fd() const = 0;
  /// Bytes already received and decrypted but not yet read (poll() would not report them).
  [[nodiscard]] virtual bool has_buffered() const = 0;
};

/// Speaks the upgraded protocol until done, the peer goes, or `stopping`.
using UpgradeHandler = std::function<void(UpgradedConnection& conn, const std::atomic<bool>& stopping)>;

struct HttpResponse {
  int status = 200;
  std::string content_type = "application/json";
  std::string body;
  std::vector<std::pair<std::string, std::string>> headers;
  BodyStreamer stream;  ///< when set, the body is sent chunked from this instead of `body`
  /// When set (status 101), the headers are sent and the connection is handed to this.
  UpgradeHandler upgrade;
  /// End the connection after this answer (a refused body: what follows it is not a request).
  bool close_connection = false;
};

}  // namespace kpt::apiserver
