#pragma once

#include "kube/api_client.hpp"

#include <atomic>
#include <functional>
#include <iosfwd>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>

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

/// One followed log: a thread reading `path` (pods/log?follow=true...) and printing whole lines
/// with `prefix`; `on_done` runs when the stream has ended. The destructor cancels the stream and
/// joins.
class LogTail {
 public:
  /// `on_line`: each whole line as read, before it is printed (on this tail's thread).
  LogTail(kube::ApiClient& api, Console& console, std::string path, std::string prefix,
          std::function<void()> on_done = {}, std::function<void(std::string_view)> on_line = {});
  ~LogTail();
  LogTail(const LogTail&) = delete;
  LogTail& operator=(const LogTail&) = delete;
  [[nodiscard]] bool done() const { return m_done.load(); }
  void cancel() { m_cancel.store(true); }

 private:
  void read(kube::ApiClient& api, Console& console, const std::string& path, const std::string& prefix);
  std::function<void()> m_on_done;
  std::function<void(std::string_view)> m_on_line;
  std::atomic<bool> m_cancel{false};
  std::atomic<bool> m_done{false};
  std::thread m_thread;  // last: starts after the flags exist
};

}  // namespace kpt::plugin
