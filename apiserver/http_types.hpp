#pragma once

#include <atomic>
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
  [[nodiscard]] bool flag(const std::string& name) const {
    const auto v = param(name);
    return v == "true" || v == "1";
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

struct HttpResponse {
  int status = 200;
  std::string content_type = "application/json";
  std::string body;
  std::vector<std::pair<std::string, std::string>> headers;
  BodyStreamer stream;  ///< when set, the body is sent chunked from this instead of `body`
};

}  // namespace kpt::apiserver
