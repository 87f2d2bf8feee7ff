#include "local/fork_safe.hpp"

#include <fcntl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cstring>

namespace kpt::local::fork_safe {

namespace {

unsigned descriptor_limit() {
  rlimit lim{};
  return ::getrlimit(RLIMIT_NOFILE, &lim) == 0 && lim.rlim_cur < 65536 ? static_cast<unsigned>(lim.rlim_cur)
                                                                       : 65536U;
}

void close_span(unsigned first, unsigned last) {
  if (first > last) return;
  if (::syscall(SYS_close_range, first, last, 0) == 0) return;
  // Kernels before 5.9: one by one, up to the descriptor limit.
  const unsigned top = descriptor_limit();
  for (unsigned fd = first; fd <= last && fd < top; ++fd) ::close(static_cast<int>(fd));
}

}  // namespace

bool write_text(const char* path, const char* text) {
  const int fd = ::open(path, O_WRONLY | O_CLOEXEC);
  if (fd < 0) return false;
  const auto len = static_cast<ssize_t>(std::strlen(text));
  const bool ok = ::write(fd, text, static_cast<std::size_t>(len)) == len;
  ::close(fd);
  return ok;
}

void close_all_but(int* keep, std::size_t n) {
  for (std::size_t i = 1; i < n; ++i) {  // insertion sort: a handful of entries
    for (std::size_t j = i; j > 0 && keep[j - 1] > keep[j]; --j) {
      const int t = keep[j];
      keep[j] = keep[j - 1];
      keep[j - 1] = t;
    }
  }
  unsigned next = 0;
  for (std::size_t i = 0; i < n; ++i) {
    if (keep[i] < 0 || static_cast<unsigned>(keep[i]) < next) continue;
    if (static_cast<unsigned>(keep[i]) > next) close_span(next, static_cast<unsigned>(keep[i]) - 1);
    next = static_cast<unsigned>(keep[i]) + 1;
  }
  close_span(next, ~0U);
}

void cloexec_from_3() {
  constexpr unsigned k_cloexec = 1U << 2;  // CLOSE_RANGE_CLOEXEC (Linux 5.11)
  if (::syscall(SYS_close_range, 3U, ~0U, k_cloexec) == 0) return;
  const unsigned top = descriptor_limit();
  for (unsigned fd = 3; fd < top; ++fd) ::fcntl(static_cast<int>(fd), F_SETFD, FD_CLOEXEC);
}

}  // namespace kpt::local::fork_safe
