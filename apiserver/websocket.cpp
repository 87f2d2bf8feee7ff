#include "apiserver/websocket.hpp"

#include <openssl/evp.h>
#include <openssl/sha.h>

namespace kpt::apiserver::ws {

namespace {

constexpr std::string_view k_guid = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11";
constexpr std::size_t k_max_control_payload = 125;

std::string base64(const unsigned char* data, std::size_t size) {
  std::string out(4 * ((size + 2) / 3) + 1, '\0');
  const int n = EVP_EncodeBlock(reinterpret_cast<unsigned char*>(out.data()), data, static_cast<int>(size));
  out.resize(static_cast<std::size_t>(n));
  return out;
}

bool is_control(Opcode op) { return (static_cast<std::uint8_t>(op) & 0x8) != 0; }

bool known_opcode(std::uint8_t op) { return op <= 0x2 || (op >= 0x8 && op <= 0xA); }

}  // namespace

std::string accept_key(std::string_view client_key) {
  std::string input(client_key);
  input += k_guid;
  unsigned char digest[SHA_DIGEST_LENGTH];
  SHA1(reinterpret_cast<const unsigned char*>(input.data()), input.size(), digest);
  return base64(digest, sizeof digest);
}

bool valid_client_key(std::string_view key) {
  // 16 bytes in base64: 22 characters of the alphabet and "==".
  if (key.size() != 24 || key.substr(22) != "==") return false;
  for (std::size_t i = 0; i < 22; ++i) {
    const char c = key[i];
    const bool ok =
        (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '+' || c == '/';
    if (!ok) return false;
  }
  return true;
}

std::string encode_frame(Opcode opcode, std::string_view payload, bool fin,
                         std::optional<std::uint32_t> mask_key) {
  std::string out;
  out.reserve(payload.size() + 14);
  out += static_cast<char>((fin ? 0x80 : 0x00) | static_cast<std::uint8_t>(opcode));
  const std::uint8_t mask_bit = mask_key ? 0x80 : 0x00;
  const std::size_t n = payload.size();
  if (n < 126) {
    out += static_cast<char>(mask_bit | n);
  } else if (n <= 0xFFFF) {
    out += static_cast<char>(mask_bit | 126);
    out += static_cast<char>((n >> 8) & 0xFF);
    out += static_cast<char>(n & 0xFF);
  } else {
    out += static_cast<char>(mask_bit | 127);
    for (int shift = 56; shift >= 0; shift -= 8)
      out += static_cast<char>((static_cast<std::uint64_t>(n) >> shift) & 0xFF);
  }
  if (!mask_key) {
    out.append(payload);
    return out;
  }
  unsigned char key[4];
  for (int i = 0; i < 4; ++i) key[i] = static_cast<unsigned char>((*mask_key >> (24 - 8 * i)) & 0xFF);
  out.append(reinterpret_cast<const char*>(key), 4);
  for (std::size_t i = 0; i < n; ++i) out += static_cast<char>(payload[i] ^ key[i % 4]);
  return out;
}

std::string close_payload(std::uint16_t code, std::string_view reason) {
  std::string out;
  out += static_cast<char>(code >> 8);
  out += static_cast<char>(code & 0xFF);
  out.append(reason.substr(0, k_max_control_payload - 2));
  return out;
}

std::optional<Message> Decoder::next(std::optional<Violation>& violation) {
  while (!violation) {
    if (m_buffer.size() < 2) return std::nullopt;
    const auto b0 = static_cast<std::uint8_t>(m_buffer[0]);
    const auto b1 = static_cast<std::uint8_t>(m_buffer[1]);
    const bool fin = (b0 & 0x80) != 0;
    const std::uint8_t op = b0 & 0x0F;
    const bool masked = (b1 & 0x80) != 0;
    if ((b0 & 0x70) != 0) {
      violation = Violation{k_close_protocol_error, "reserved bits set without an extension"};
      return std::nullopt;
    }
    if (!known_opcode(op)) {
      violation = Violation{k_close_protocol_error, "unknown opcode " + std::to_string(op)};
      return std::nullopt;
    }
    if (m_require_mask && !masked) {
      violation = Violation{k_close_protocol_error, "client frames must be masked"};
      return std::nullopt;
    }
    std::size_t header = 2;
    std::uint64_t length = b1 & 0x7F;
    if (length == 126 || length == 127) {
      const std::size_t extra = length == 126 ? 2 : 8;
      if (m_buffer.size() < header + extra) return std::nullopt;
      length = 0;
      for (std::size_t i = 0; i < extra; ++i)
        length = (length << 8) | static_cast<std::uint8_t>(m_buffer[2 + i]);
      header += extra;
    }
    const auto opcode = static_cast<Opcode>(op);
    if (is_control(opcode) && (!fin || length > k_max_control_payload)) {
      violation = Violation{k_close_protocol_error, "control frames must be whole and at most 125 bytes"};
      return std::nullopt;
    }
    const std::size_t so_far = m_in_fragment ? m_fragment.size() : 0;
    if (length > m_max_message || so_far + length > m_max_message) {
      violation =
          Violation{k_close_too_big, "message larger than " + std::to_string(m_max_message) + " bytes"};
      return std::nullopt;
    }
    if (masked) header += 4;
    if (m_buffer.size() < header + length) return std::nullopt;
    std::string payload = m_buffer.substr(header, static_cast<std::size_t>(length));
    if (masked) {
      const std::size_t key_at = header - 4;
      for (std::size_t i = 0; i < payload.size(); ++i)
        payload[i] = static_cast<char>(payload[i] ^ m_buffer[key_at + i % 4]);
    }
    m_buffer.erase(0, header + static_cast<std::size_t>(length));
    if (is_control(opcode)) return Message{opcode, std::move(payload)};
    if (opcode == Opcode::continuation) {
      if (!m_in_fragment) {
        violation = Violation{k_close_protocol_error, "continuation frame outside a fragmented message"};
        return std::nullopt;
      }
      m_fragment += payload;
    } else {
      if (m_in_fragment) {
        violation = Violation{k_close_protocol_error, "new message inside a fragmented message"};
        return std::nullopt;
      }
      m_fragment_opcode = opcode;
      m_fragment = std::move(payload);
    }
    m_in_fragment = !fin;
    if (fin) {
      Message whole{m_fragment_opcode, std::move(m_fragment)};
      m_fragment.clear();
      return whole;
    }
  }
  return std::nullopt;
}

}  // namespace kpt::apiserver::ws
