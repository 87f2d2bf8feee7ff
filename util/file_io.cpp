#include "util/file_io.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace kpt::util {
namespace {

constexpr std::size_t k_chunk = 64 * 1024;

Error system_error(int err) {
  return make_error(err == ENOENT ? ErrorCode::not_found : ErrorCode::io, std::strerror(err));
}

}  // namespace

Expected<std::string> read_file(const std::string& path, std::size_t max_bytes) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return system_error(errno);
  const std::size_t limit = max_bytes + 1;  // one byte more tells "too large" without reading it all
  std::size_t capacity = k_chunk;
  struct stat st {};
  if (::fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) capacity = static_cast<std::size_t>(st.st_size) + 1;
  std::string out;
  out.resize(std::min(capacity, limit));
  std::size_t size = 0;
  int err = 0;
  while (size < limit) {
    if (size == out.size()) out.resize(std::min(limit, out.size() * 2));
    const auto got = ::read(fd, out.data() + size, out.size() - size);
    if (got < 0) {
      if (errno == EINTR) continue;
      err = errno;
      break;
    }
    if (got == 0) break;
    size += static_cast<std::size_t>(got);
  }
  ::close(fd);
  if (err != 0) return system_error(err);
  out.resize(size);
  return out;
}

Expected<void> write_file_atomically(const std::string& path, std::string_view text, unsigned mode) {
  const std::string tmp = path + ".tmp";
  const auto fail = [&path](int err) {
    return make_error(ErrorCode::io, "writing '" + path + "': " + std::strerror(err));
  };
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);
  if (fd < 0) return fail(errno);
  ::fchmod(fd, mode);  // the umask may have narrowed it; a group-readable file must not stay wider
  std::size_t off = 0;
  while (off < text.size()) {
    const auto n = ::write(fd, text.data() + off, text.size() - off);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const int err = n < 0 ? errno : EIO;
      ::close(fd);
      ::unlink(tmp.c_str());
      return fail(err);
    }
    off += static_cast<std::size_t>(n);
  }
  if (::close(fd) != 0 || ::rename(tmp.c_str(), path.c_str()) != 0) {
    const int err = errno;
    ::unlink(tmp.c_str());
    return fail(err);
  }
  return {};
}

}  // namespace kpt::util
