#include "util/base64.hpp"

#include <cstdint>

namespace kpt::util {

namespace {
constexpr std::string_view k_alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

int value_of(char c) {
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= 'a' && c <= 'z') return c - 'a' + 26;
  if (c >= '0' && c <= '9') return c - '0' + 52;
  if (c == '+') return 62;
  if (c == '/') return 63;
  return -1;
}
}  // namespace

std::string base64_encode(std::string_view data) {
  std::string out;
  out.reserve((data.size() + 2) / 3 * 4);
  std::size_t i = 0;
  for (; i + 2 < data.size(); i += 3) {
    const std::uint32_t n = (std::uint32_t(std::uint8_t(data[i])) << 16) |
                            (std::uint32_t(std::uint8_t(data[i + 1])) << 8) | std::uint8_t(data[i + 2]);
    out += k_alphabet[(n >> 18) & 63];
    out += k_alphabet[(n >> 12) & 63];
    out += k_alphabet[(n >> 6) & 63];
    out += k_alphabet[n & 63];
  }
  if (i + 1 == data.size()) {
    const std::uint32_t n = std::uint32_t(std::uint8_t(data[i])) << 16;
    out += k_alphabet[(n >> 18) & 63];
    out += k_alphabet[(n >> 12) & 63];
    out += "==";
  } else if (i + 2 == data.size()) {
    const std::uint32_t n =
        (std::uint32_t(std::uint8_t(data[i])) << 16) | (std::uint32_t(std::uint8_t(data[i + 1])) << 8);
    out += k_alphabet[(n >> 18) & 63];
    out += k_alphabet[(n >> 12) & 63];
    out += k_alphabet[(n >> 6) & 63];
    out += '=';
  }
  return out;
}

std::optional<std::string> base64_decode(std::string_view text) {
  std::string out;
  std::uint32_t acc = 0;
  int bits = 0;
  int pad = 0;
  std::size_t count = 0;
  for (char c : text) {
    if (c == ' ' || c == '\n' || c == '\r' || c == '\t') continue;
    if (c == '=') {
      ++pad;
      ++count;
      continue;
    }
    if (pad > 0) return std::nullopt;
    const int v = value_of(c);
    if (v < 0) return std::nullopt;
    acc = (acc << 6) | std::uint32_t(v);
    bits += 6;
    ++count;
    if (bits >= 8) {
      bits -= 8;
      out += char((acc >> bits) & 0xFF);
    }
  }
  if (count % 4 != 0 || pad > 2) return std::nullopt;
  return out;
}

}  // namespace kpt::util
