#pragma once

#include "apiserver/http_types.hpp"

#include <openssl/ssl.h>

#include <chrono>
#include <cstddef>
#include <string>
#include <string_view>

namespace kpt::apiserver {

/// One accepted connection: a non-blocking socket, its TLS session (or none), and the bytes read
/// from it that no request has consumed yet. It moves whole between the front end, which reads
/// request heads without waiting on anything, and the thread that serves a request on it, which
/// waits with timeouts (read(), write()). Closing it closes the socket.
class SocketConnection final : public UpgradedConnection {
 public:
  /// Takes over `fd` (made non-blocking here) and `ssl` (nullptr: plain TCP).
  SocketConnection(int fd, SSL* ssl);
  ~SocketConnection() override;
  SocketConnection(const SocketConnection&) = delete;
  SocketConnection& operator=(const SocketConnection&) = delete;

  /// What a non-blocking step needs next.
  enum class Step { done, want_read, want_write, failed };
  /// Advances the TLS handshake (done at once for plain TCP).
  Step handshake();
  /// Appends what can be read now, at most `max` bytes, to input(). Returns the count, 0 when
  /// nothing is there yet, -1 once the peer has gone; `want_write` says a TLS read waits to write.
  long read_now(std::size_t max, bool& want_write);
  /// Writes what can be written now of `data`: the count, 0 when the socket is full, -1 when gone.
  long write_now(std::string_view data, bool& want_read);

  /// Read bytes that no request has consumed (a request head, a pipelined request).
  std::string& input();
  /// Whether read() would return bytes without waiting (input() or TLS bytes already decrypted).
  [[nodiscard]] bool has_buffered() const override;

  // For the thread that serves a request: waits up to the given time.
  long read(char* buf, std::size_t size, std::chrono::milliseconds wait) override;
  bool write(std::string_view data) override;
  [[nodiscard]] int fd() const override { return m_fd; }
  /// Sets how long write() waits for the peer to take more bytes before it gives up.
  void set_write_timeout(std::chrono::milliseconds timeout) { m_write_timeout = timeout; }
  /// Waits up to `wait` for bytes; false on timeout or when the peer has gone.
  bool wait_readable(std::chrono::milliseconds wait);
  /// Whether the peer has closed its side or reset the connection (a client that went away
  /// during a watch). Looks without reading or waiting.
  [[nodiscard]] bool peer_gone() const;

  [[nodiscard]] std::string peer_address(int& port) const;
  [[nodiscard]] std::string local_address(int& port) const;
  [[nodiscard]] SSL* ssl() const { return m_ssl; }

  /// Ends our side (TLS close_notify, then FIN) and keeps reading possible: the peer reads all
  /// that was sent, and what it still sends can be read and dropped.
  void close_write();
  /// Ends the connection now: TLS close_notify when `orderly` (best effort, never waits), then
  /// the socket is closed. Bytes the peer still sends make the kernel answer RST.
  void close(bool orderly);
  /// Ends the connection after an answer the peer may still be sending a body for: our side
  /// first, then what is in flight is read and dropped (at most 8 MiB, 2 s), so the kernel does
  /// not reset the connection before the peer has read the answer. Waits: not for the front end.
  void close_lingering();

 private:
  long raw_read(char* buf, std::size_t size, bool& want_write);
  long raw_write(const char* data, std::size_t size, bool& want_read);

  int m_fd;
  SSL* m_ssl;
  std::string m_input;
  std::size_t m_consumed = 0;  // of m_input, by read()
  std::chrono::milliseconds m_write_timeout{30000};
  bool m_gone = false;
};

}  // namespace kpt::apiserver
