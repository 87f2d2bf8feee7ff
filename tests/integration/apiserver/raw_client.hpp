#pragma once

#include "tests/support/stack.hpp"

// Clients that behave as attackers do: raw TCP or TLS connections that send what a test says,
// as slowly as it says, and the process figures the tests bound (threads, memory).
#include <openssl/ssl.h>

#include <chrono>
#include <cstddef>
#include <string>
#include <string_view>

namespace kpt::apiserver::testing {

/// A connection to 127.0.0.1:port, plain or TLS (the server's certificate is not checked: these
/// clients are not after the server's identity). Closed by its destructor.
class RawConnection {
 public:
  RawConnection(int port, bool tls);
  ~RawConnection();
  RawConnection(const RawConnection&) = delete;
  RawConnection& operator=(const RawConnection&) = delete;

  /// Whether the TCP connect (and the TLS handshake) succeeded.
  [[nodiscard]] bool ok() const { return m_ok; }
  /// Sends all of `data`; false once the server has closed or reset the connection.
  bool send(std::string_view data);
  /// Whether the server has sent something (or closed) that was not read yet.
  [[nodiscard]] bool readable() const;
  /// What arrives within `wait` (until the server closes, `until` is seen, or `wait` passes).
  std::string receive(std::chrono::milliseconds wait, std::string_view until = {});
  /// Whether the server has closed the connection (reads 0 or an error) within `wait`.
  bool closed_by_server(std::chrono::milliseconds wait);
  /// Closes at once, as a killed client does (the kernel sends FIN, or RST when bytes are unread).
  void drop();

 private:
  int m_fd = -1;
  SSL_CTX* m_ctx = nullptr;
  SSL* m_ssl = nullptr;
  bool m_ok = false;
};

/// "GET <path> HTTP/1.1" with a Host and the bearer `token` (none when empty), ending the head.
std::string get_head(const std::string& path, const std::string& token);

/// The status of the first answer in `reply` (0 when there is none).
int status_of(const std::string& reply);

/// This process's threads, resident memory and its peak, from /proc/self/status.
std::size_t process_threads();
std::size_t resident_kib();
std::size_t peak_resident_kib();

/// Under ASan the memory bounds are not asserted: the normal build checks them.
using ::kpt::testing::k_under_asan;

}  // namespace kpt::apiserver::testing
