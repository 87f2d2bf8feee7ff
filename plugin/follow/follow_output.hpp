#pragma once

#include "kube/api_client.hpp"
#include "util/clock.hpp"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <iosfwd>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

namespace kpt::plugin {

/// Serialises whole lines from several threads and keeps a live status line at the bottom
/// of a terminal: it is cleared before a log line and drawn again after it.
class Console {
 public:
  Console(std::ostream& out, std::ostream& err, bool live) : m_out(out), m_err(err), m_live(live) {}

  void log_line(const std::string& line);  ///< on `out`
  void note(const std::string& line);      ///< on `err`
  void status(const std::string& line);    ///< the live line (a plain line when not live)
  void finish();                           ///< clears the live line for good

 private:
  void clear_status();
  void draw_status();
  std::mutex m_mutex;
  std::ostream& m_out;
  std::ostream& m_err;
  bool m_live;
  std::string m_status;
};

/// One followed log of one container run: a thread reading `path` (pods/log?follow=true...) and
/// printing whole lines with `prefix`. It keeps the run's last lines and when it last printed one.
///
/// A log stream may end while the run goes on (a server that cuts long streams, a 400 because
/// the node does not have the log yet, a broken connection). The tail then says so (`ended()`,
/// and `on_change`) and waits for whoever watches the pod: `resume()` reopens the log and skips
/// the bytes already printed (after checking they are the same bytes, so that another run's log
/// is never printed as this one's), `finish()` ends it for good.
class LogTail {
 public:
  struct Options {
    std::string path;    ///< the log request, with follow=true
    std::string prefix;  ///< before each printed line
    /// Which lines to print (all when empty); every line is kept for the diagnosis either way.
    std::function<bool(std::string_view)> filter;
    std::function<void()> on_change;  ///< the stream ended, or the tail finished
    /// Each whole line as read, before it is printed (on this tail's thread), filtered or not.
    std::function<void(std::string_view)> on_line;
    const util::Clock* clock = nullptr;  ///< for last_line_at; the real clock when null
    std::size_t keep_lines = 100;
    bool timestamps = false;  ///< lines begin with the server's timestamp: kept lines without it
  };

  LogTail(kube::ApiClient& api, Console& console, Options options);
  ~LogTail();  ///< cancels the stream and joins
  LogTail(const LogTail&) = delete;
  LogTail& operator=(const LogTail&) = delete;

  [[nodiscard]] bool done() const { return m_done.load(); }
  /// Its stream ended and it waits for resume() or finish().
  [[nodiscard]] bool ended() const;
  void resume();
  void finish();
  void cancel();

  /// The run's last lines (at most keep_lines), oldest first, without prefix.
  [[nodiscard]] std::vector<std::string> lines() const;
  /// When the last line arrived (steady clock), or nothing before the first.
  [[nodiscard]] std::optional<std::chrono::steady_clock::time_point> last_line_at() const;
  /// How often the stream was opened again after it ended early.
  [[nodiscard]] int reopens() const { return m_reopens.load(); }
  /// Why its latest stream failed (an HTTP error, a broken connection); empty when it ended as
  /// the server ended it.
  [[nodiscard]] std::string error() const;

 private:
  enum class Verdict { none, resume, finish };
  void read(kube::ApiClient& api);
  void take_line(std::string line);
  Verdict await_verdict();

  Console& m_console;
  Options m_options;
  const util::RealClock m_real_clock;
  const util::Clock& m_clock;
  mutable std::mutex m_mutex;
  std::condition_variable m_cv;
  Verdict m_verdict = Verdict::none;
  bool m_ended = false;
  std::deque<std::string> m_lines;
  std::optional<std::chrono::steady_clock::time_point> m_last_line_at;
  std::string m_error;
  std::atomic<bool> m_cancel{false};
  std::atomic<bool> m_done{false};
  std::atomic<int> m_reopens{0};
  std::thread m_thread;  // last: starts after the members above exist
};

}  // namespace kpt::plugin
