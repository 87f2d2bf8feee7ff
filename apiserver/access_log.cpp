#include "apiserver/access_log.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>

namespace kpt::apiserver {

std::string escape_log_text(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if (c == '\\') {
      out += "\\\\";
    } else if (byte >= 0x20 && byte < 0x7f) {
      out += c;
    } else {
      char hex[5];
      std::snprintf(hex, sizeof hex, "\\x%02x", byte);
      out += hex;
    }
  }
  return out;
}

AccessLog::AccessLog(Sink sink, const util::Clock& clock, LogRateLimit limit)
    : m_sink(std::move(sink)),
      m_clock(clock),
      m_limit(limit),
      m_tokens(limit.burst),
      m_refilled(clock.steady_now()) {}

void AccessLog::record(std::string_view method, std::string_view path, int status, bool authenticated) {
  if (!m_sink) return;
  std::string note;
  {
    std::lock_guard lock(m_mutex);
    if (!authenticated) {
      const auto now = m_clock.steady_now();
      const double elapsed = std::chrono::duration<double>(now - m_refilled).count();
      m_tokens = std::min(m_limit.burst, m_tokens + elapsed * m_limit.per_second);
      m_refilled = now;
      if (m_tokens < 1) {
        ++m_dropped;
        return;
      }
      m_tokens -= 1;
    }
    if (m_dropped > 0) {
      note = "(" + std::to_string(m_dropped) + " requests without the token not logged: rate limit)";
      m_dropped = 0;
    }
  }
  if (!note.empty()) m_sink(note);
  m_sink(escape_log_text(method) + " " + escape_log_text(path) + " " + std::to_string(status));
}

std::uint64_t AccessLog::unreported() const {
  std::lock_guard lock(m_mutex);
  return m_dropped;
}

RotatingFile::RotatingFile(std::string path, std::uint64_t max_bytes)
    : m_path(std::move(path)), m_max_bytes(max_bytes) {
  open_file();
}

RotatingFile::~RotatingFile() {
  if (m_fd >= 0) ::close(m_fd);
}

void RotatingFile::open_file() {
  m_fd = ::open(m_path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
  m_size = 0;
  struct stat st {};
  if (m_fd >= 0 && ::fstat(m_fd, &st) == 0) {
    m_size = static_cast<std::uint64_t>(st.st_size);
    // A file an older release made readable by others is made private.
    if ((st.st_mode & 077) != 0) ::fchmod(m_fd, 0600);
  }
}

void RotatingFile::write_line(const std::string& line) {
  std::lock_guard lock(m_mutex);
  if (m_fd >= 0 && m_size >= m_max_bytes) {
    ::close(m_fd);
    m_fd = -1;
    (void)std::rename(m_path.c_str(), (m_path + ".1").c_str());
    open_file();
  }
  if (m_fd < 0) return;
  const std::string text = line + "\n";
  const auto n = ::write(m_fd, text.data(), text.size());
  if (n > 0) m_size += static_cast<std::uint64_t>(n);
}

}  // namespace kpt::apiserver
