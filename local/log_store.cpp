#include "local/log_store.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <thread>

namespace kpt::local {

namespace {

constexpr std::size_t k_block = 64 * 1024;
constexpr std::chrono::milliseconds k_follow_poll{50};

/// pread() of up to `size` bytes at `offset`; -1 on error.
long read_at(int fd, char* buf, std::size_t size, std::uint64_t offset) {
  ssize_t n;
  do {
    n = ::pread(fd, buf, size, static_cast<off_t>(offset));
  } while (n < 0 && errno == EINTR);
  return n;
}

class FileLogStream final : public apiserver::LogStream {
 public:
  /// `end`: where a log that is not followed ends (its size when opened).
  FileLogStream(std::string file, int fd, std::uint64_t offset, std::uint64_t end,
                LogStore::StreamOptions options)
      : m_file(std::move(file)), m_fd(fd), m_offset(offset), m_end(end), m_options(std::move(options)) {
    if (m_options.limit_bytes)
      m_budget = static_cast<std::uint64_t>(std::max<std::int64_t>(0, *m_options.limit_bytes));
  }
  ~FileLogStream() override {
    if (m_fd >= 0) ::close(m_fd);
  }
  FileLogStream(const FileLogStream&) = delete;
  FileLogStream& operator=(const FileLogStream&) = delete;

  bool read(std::string& out, std::chrono::milliseconds wait) override {
    if (m_budget && *m_budget == 0) return false;
    const auto deadline = std::chrono::steady_clock::now() + wait;
    for (;;) {
      // Read before asking whether the run goes on: bytes written just before it ended still count.
      const bool written = m_options.follow && m_options.still_written && m_options.still_written();
      if (m_fd < 0 && m_options.follow)
        m_fd = ::open(m_file.c_str(), O_RDONLY | O_CLOEXEC);  // its first write
      std::array<char, k_block> buf{};
      std::uint64_t want = buf.size();
      if (m_budget) want = std::min(want, *m_budget);
      if (!m_options.follow) want = std::min(want, m_end - std::min(m_end, m_offset));
      const long n =
          m_fd < 0 || want == 0 ? 0 : read_at(m_fd, buf.data(), static_cast<std::size_t>(want), m_offset);
      if (n > 0) {
        std::size_t size = static_cast<std::size_t>(n);
        if (m_options.stamp) {
          // Stamped logs go out in whole lines: a line still being written is read again with its
          // end, unless the block holds no line end at all or the log cannot grow any more.
          const std::string_view chunk(buf.data(), size);
          const auto nl = chunk.rfind('\n');
          const bool may_grow = m_options.follow && written;
          const bool more_to_read = may_grow || (!m_options.follow && m_offset + size < m_end);
          if (more_to_read && nl != std::string_view::npos && nl + 1 < size) size = nl + 1;
          if (may_grow && nl == std::string_view::npos && size < buf.size()) {
            if (std::chrono::steady_clock::now() >= deadline) return true;
            std::this_thread::sleep_for(k_follow_poll);
            continue;
          }
          out += m_options.stamp(m_offset, chunk.substr(0, size));
        } else {
          out.append(buf.data(), size);
        }
        m_offset += size;
        if (m_budget) *m_budget -= std::min<std::uint64_t>(*m_budget, size);
        return !m_budget || *m_budget > 0;
      }
      if (n < 0 || !written) return false;  // ended and drained
      if (std::chrono::steady_clock::now() >= deadline) return true;
      std::this_thread::sleep_for(k_follow_poll);
    }
  }

 private:
  std::string m_file;
  int m_fd;
  std::uint64_t m_offset;
  std::uint64_t m_end;
  LogStore::StreamOptions m_options;
  std::optional<std::uint64_t> m_budget;
};

}  // namespace

std::string LogStore::path(const std::string& ns, const std::string& pod, const std::string& uid,
                           const std::string& container, int run) const {
  return m_root + "/" + ns + "_" + pod + "_" + uid + "/" + container + "/" + std::to_string(run) + ".log";
}

Expected<void> LogStore::prepare(const std::string& ns, const std::string& pod, const std::string& uid,
                                 const std::string& container, int run) const {
  std::error_code ec;
  const auto dir = std::filesystem::path(path(ns, pod, uid, container, run)).parent_path();
  std::filesystem::create_directories(dir, ec);
  if (ec) return make_error(ErrorCode::io, "creating '" + dir.string() + "': " + ec.message());
  // Others may not list or read the logs, whatever the umask: <root>/<ns>_<pod>_<uid>/<container>.
  for (const auto& d : {dir, dir.parent_path(), std::filesystem::path(m_root)}) {
    if (!d.empty()) std::filesystem::permissions(d, std::filesystem::perms::owner_all, ec);
  }
  return {};
}

Expected<std::uint64_t> LogStore::tail_start(int fd, std::uint64_t end, std::int64_t lines) {
  if (lines == 0) return end;
  std::array<char, k_block> buf{};
  std::uint64_t pos = end;
  std::int64_t seen = 0;
  bool last_byte = true;
  while (pos > 0) {
    const std::uint64_t size = std::min<std::uint64_t>(pos, buf.size());
    const long n = read_at(fd, buf.data(), static_cast<std::size_t>(size), pos - size);
    if (n != static_cast<long>(size)) {
      return make_error(ErrorCode::io,
                        std::string("reading a log: ") + (n < 0 ? std::strerror(errno) : "it shrank"));
    }
    for (std::uint64_t i = size; i > 0; --i) {
      if (buf[i - 1] != '\n') {
        last_byte = false;
        continue;
      }
      // A final newline ends the last line; it does not start another.
      if (last_byte) {
        last_byte = false;
        continue;
      }
      if (++seen == lines) return pos - size + i;
    }
    pos -= size;
  }
  return std::uint64_t{0};
}

std::unique_ptr<apiserver::LogStream> LogStore::open(const std::string& file, StreamOptions options) {
  const int fd = ::open(file.c_str(), O_RDONLY | O_CLOEXEC);
  std::uint64_t start = 0;
  std::uint64_t size = 0;
  if (fd >= 0) {
    struct stat st {};
    const bool stat_ok = ::fstat(fd, &st) == 0;
    size = stat_ok ? static_cast<std::uint64_t>(st.st_size) : 0;
    start = size;
    const auto written_at = std::chrono::system_clock::time_point(
        std::chrono::seconds(st.st_mtim.tv_sec) + std::chrono::nanoseconds(st.st_mtim.tv_nsec));
    if (!options.since || written_at >= *options.since) {
      start = 0;
      if (options.tail_lines && *options.tail_lines >= 0) {
        auto tail = tail_start(fd, size, *options.tail_lines);
        start = tail ? *tail : size;
      }
    }
  }
  return std::make_unique<FileLogStream>(file, fd, start, size, std::move(options));
}

}  // namespace kpt::local
