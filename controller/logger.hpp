#pragma once

#include "util/clock.hpp"

#include <initializer_list>
#include <iosfwd>
#include <mutex>
#include <string>
#include <utility>

namespace kpt::controller {

enum class LogFormat { text, json };

/// Structured logs, one line per record: `--log-format text` gives
/// `2026-11-29T12:00:00Z info reconciled key=ns/a`, `json` gives
/// `{"ts":"...","level":"info","msg":"reconciled","key":"ns/a"}`. Thread-safe.
/// Callers never pass secrets as fields.
class Logger {
 public:
  using Fields = std::initializer_list<std::pair<const char*, std::string>>;

  Logger(std::ostream& out, LogFormat format, const util::Clock& clock)
      : m_out(out), m_format(format), m_clock(clock) {}
  void info(const std::string& msg, Fields fields = {}) { write("info", msg, fields); }
  void error(const std::string& msg, Fields fields = {}) { write("error", msg, fields); }

 private:
  void write(const char* level, const std::string& msg, Fields fields);

  std::ostream& m_out;
  LogFormat m_format;
  const util::Clock& m_clock;
  std::mutex m_mutex;
};

}  // namespace kpt::controller
