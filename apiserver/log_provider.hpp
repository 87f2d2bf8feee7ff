#pragma once

#include "apiserver/http_types.hpp"
#include "apiserver/status.hpp"

#include <nlohmann/json_fwd.hpp>

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

namespace kpt::apiserver {

/// A pods/log request (PodLogOptions).
struct LogRequest {
  std::string ns;
  std::string pod;
  std::string container;  ///< empty: the pod's only container
  bool follow = false;
  bool previous = false;
  std::optional<std::int64_t> tail_lines;
  std::optional<std::int64_t> limit_bytes;
  /// Only what was written since then (sinceSeconds before now, or sinceTime).
  std::optional<std::chrono::system_clock::time_point> since;
  bool timestamps = false;  ///< each line prefixed with when it was written (RFC 3339, nanoseconds)
};

/// A pods/log request's options from its query, parsed and checked as kube-apiserver does: a
/// malformed number or time is a 400 BadRequest; a negative tailLines, a limitBytes or
/// sinceSeconds under 1, or both sinceSeconds and sinceTime, a 422 Invalid PodLogOptions.
Expected<LogRequest> log_request_of(const HttpRequest& request, const std::string& ns, const std::string& pod,
                                    std::chrono::system_clock::time_point now);

/// An open log: read() returns the next chunk, waiting up to `wait` when following.
class LogStream {
 public:
  virtual ~LogStream() = default;
  /// Appends what is available to `out`. Returns false once the log has ended (no more data ever).
  virtual bool read(std::string& out, std::chrono::milliseconds wait) = 0;
};

/// Where pod logs come from. The embedded node (local/) implements it; the server calls
/// open() with the stored pod and streams what it returns. Errors become Status responses
/// (e.g. 400 BadRequest "container 'x' is not valid for pod 'p'").
class LogProvider {
 public:
  virtual ~LogProvider() = default;
  virtual Expected<std::unique_ptr<LogStream>> open(const LogRequest& request, const nlohmann::json& pod) = 0;
};

/// The default: no node runs pods, so there are no logs.
class NoLogProvider final : public LogProvider {
 public:
  Expected<std::unique_ptr<LogStream>> open(const LogRequest& request, const nlohmann::json& pod) override;
};

/// Applies tailLines then limitBytes to a whole log text (pure).
std::string limit_log(std::string text, std::optional<std::int64_t> tail_lines,
                      std::optional<std::int64_t> limit_bytes);

/// The container a request means: the named one, or the pod's only container; error otherwise.
Expected<std::string> resolve_container(const LogRequest& request, const nlohmann::json& pod);
Expected<std::string> resolve_container(const std::string& container, const nlohmann::json& pod);

}  // namespace kpt::apiserver
