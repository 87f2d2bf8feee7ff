#include "plugin/follow/follow_output.hpp"

#include <ostream>

namespace kpt::plugin {

void Console::log_line(const std::string& line) {
  std::lock_guard lock(m_mutex);
  clear_status();
  m_out << line << '\n' << std::flush;
  draw_status();
}

void Console::note(const std::string& line) {
  std::lock_guard lock(m_mutex);
  clear_status();
  m_err << line << '\n' << std::flush;
  draw_status();
}

void Console::status(const std::string& line) {
  std::lock_guard lock(m_mutex);
  if (line == m_status) return;
  if (m_live) {
    clear_status();
    m_status = line;
    draw_status();
  } else {
    m_status = line;
    m_err << line << '\n' << std::flush;
  }
}

void Console::finish() {
  std::lock_guard lock(m_mutex);
  clear_status();
  m_status.clear();
  m_live = false;
}

void Console::clear_status() {
  if (m_live && !m_status.empty()) m_err << "\r\033[K" << std::flush;
}

void Console::draw_status() {
  if (m_live && !m_status.empty()) m_err << m_status << std::flush;
}

LogTail::LogTail(kube::ApiClient& api, Console& console, std::string path, std::string prefix,
                 std::function<void()> on_done, std::function<void(std::string_view)> on_line)
    : m_on_done(std::move(on_done)),
      m_on_line(std::move(on_line)),
      m_thread([this, &api, &console, path = std::move(path), prefix = std::move(prefix)] {
        read(api, console, path, prefix);
      }) {}

LogTail::~LogTail() {
  m_cancel.store(true);
  if (m_thread.joinable()) m_thread.join();
}

void LogTail::read(kube::ApiClient& api, Console& console, const std::string& path,
                   const std::string& prefix) {
  std::string partial;
  auto flush_lines = [&](bool all) {
    std::size_t start = 0;
    for (auto nl = partial.find('\n'); nl != std::string::npos; nl = partial.find('\n', start)) {
      if (m_on_line) m_on_line(std::string_view(partial).substr(start, nl - start));
      console.log_line(prefix + partial.substr(start, nl - start));
      start = nl + 1;
    }
    partial.erase(0, start);
    if (all && !partial.empty()) {
      if (m_on_line) m_on_line(partial);
      console.log_line(prefix + partial);
      partial.clear();
    }
  };
  (void)api.stream_raw(
      path,
      [&](std::string_view chunk) {
        partial.append(chunk);
        flush_lines(false);
        return !m_cancel.load();
      },
      &m_cancel);
  flush_lines(true);
  m_done.store(true);
  if (m_on_done) m_on_done();
}

}  // namespace kpt::plugin
