#pragma once

#include "util/clock.hpp"

#include <cstdint>
#include <cstdio>
#include <functional>
#include <mutex>
#include <string>
#include <string_view>

namespace kpt::apiserver {

/// `text` safe to put in one log line: printable ASCII stays, a backslash doubles, every other
/// byte (a newline from "%0a" in a path, a control character, non-ASCII) becomes \xNN, so a
/// request can neither forge a line nor garble a terminal.
std::string escape_log_text(std::string_view text);

/// How many lines about requests without the token the log takes: a bucket of `burst` lines
/// that refills at `per_second`. A client without the token can send thousands of requests a
/// second, each answered 401 in microseconds; unbounded, their lines filled the disk at 16 MB/s.
struct LogRateLimit {
  double per_second = 5;
  double burst = 20;
};

/// The server's request log: "METHOD PATH STATUS" per request (never a header, a query or a
/// body, so never the token), escaped; lines about requests without the token are rate-limited,
/// and how many were left out is said in the next line that is written.
class AccessLog {
 public:
  using Sink = std::function<void(const std::string&)>;
  AccessLog(Sink sink, const util::Clock& clock, LogRateLimit limit = {});

  void record(std::string_view method, std::string_view path, int status, bool authenticated);
  /// Lines about unauthenticated requests left out so far and not yet reported.
  [[nodiscard]] std::uint64_t unreported() const;

 private:
  Sink m_sink;
  const util::Clock& m_clock;
  LogRateLimit m_limit;
  mutable std::mutex m_mutex;
  double m_tokens;
  std::chrono::steady_clock::time_point m_refilled;
  std::uint64_t m_dropped = 0;
};

/// Lines appended to a file created with mode 0600; once the file passes `max_bytes` it is
/// renamed to "<path>.1" (replacing the one before) and a new one started, so the log holds at
/// most about twice `max_bytes`. Thread-safe; a write that fails is dropped (logging never stops
/// the server).
class RotatingFile {
 public:
  RotatingFile(std::string path, std::uint64_t max_bytes);
  ~RotatingFile();
  RotatingFile(const RotatingFile&) = delete;
  RotatingFile& operator=(const RotatingFile&) = delete;

  void write_line(const std::string& line);

 private:
  void open_file();

  std::string m_path;
  std::uint64_t m_max_bytes;
  std::mutex m_mutex;
  int m_fd = -1;
  std::uint64_t m_size = 0;
};

}  // namespace kpt::apiserver
