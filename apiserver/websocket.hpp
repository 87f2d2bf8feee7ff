#pragma once

#include "util/expected.hpp"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

/// RFC 6455 WebSocket framing as pure functions of bytes: the handshake's accept key, frame
/// encoding, and a bounded incremental decoder. Sockets are someone else's concern.
namespace kpt::apiserver::ws {

enum class Opcode : std::uint8_t {
  continuation = 0x0,
  text = 0x1,
  binary = 0x2,
  close = 0x8,
  ping = 0x9,
  pong = 0xA,
};

/// Close codes of RFC 6455 section 7.4.1 that the server sends.
inline constexpr std::uint16_t k_close_normal = 1000;
inline constexpr std::uint16_t k_close_going_away = 1001;
inline constexpr std::uint16_t k_close_protocol_error = 1002;
inline constexpr std::uint16_t k_close_unsupported = 1003;
inline constexpr std::uint16_t k_close_too_big = 1009;

/// The Sec-WebSocket-Accept value for a client's Sec-WebSocket-Key: base64(SHA-1(key + GUID)).
std::string accept_key(std::string_view client_key);

/// Whether a Sec-WebSocket-Key is the base64 of 16 bytes, as RFC 6455 section 4.1 requires.
bool valid_client_key(std::string_view client_key);

/// One frame. Server frames are never masked; client frames always are (`mask_key` set).
std::string encode_frame(Opcode opcode, std::string_view payload, bool fin = true,
                         std::optional<std::uint32_t> mask_key = std::nullopt);

/// A close frame's payload: the code in network order, then the reason.
std::string close_payload(std::uint16_t code, std::string_view reason = {});

/// A whole message (fragments joined), or a control frame.
struct Message {
  Opcode opcode = Opcode::binary;  ///< text, binary, close, ping or pong; never continuation
  std::string payload;             ///< unmasked
};

/// A protocol violation, with the close code to answer it with.
struct Violation {
  std::uint16_t close_code = k_close_protocol_error;
  std::string reason;
};

/// Decodes a byte stream into messages, enforcing RFC 6455: client frames masked (when
/// `require_mask`), reserved bits clear, known opcodes, control frames unfragmented and at most
/// 125 bytes, continuations only inside a fragmented message, and no message larger than
/// `max_message` bytes (close code 1009). Memory stays within about `max_message` plus one header.
class Decoder {
 public:
  explicit Decoder(std::size_t max_message, bool require_mask = true)
      : m_max_message(max_message), m_require_mask(require_mask) {}

  /// Appends received bytes.
  void feed(std::string_view bytes) { m_buffer.append(bytes); }
  /// The next complete message; nullopt when more bytes are needed; a Violation ends the stream.
  std::optional<Message> next(std::optional<Violation>& violation);
  /// Bytes received but not yet decoded (bounded by the message limit plus one header).
  [[nodiscard]] std::size_t buffered() const { return m_buffer.size(); }

 private:
  std::size_t m_max_message;
  bool m_require_mask;
  std::string m_buffer;
  bool m_in_fragment = false;
  Opcode m_fragment_opcode = Opcode::binary;
  std::string m_fragment;
};

}  // namespace kpt::apiserver::ws
