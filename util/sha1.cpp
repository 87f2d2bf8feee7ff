#include "util/sha1.hpp"

#include <array>
#include <cstdint>

namespace kpt::util {

namespace {

std::uint32_t rotl(std::uint32_t x, int n) { return (x << n) | (x >> (32 - n)); }

/// One 64-byte block through the 80 rounds of RFC 3174 section 6.1.
void process_block(std::array<std::uint32_t, 5>& h, const unsigned char* block) {
  std::array<std::uint32_t, 80> w{};
  for (int t = 0; t < 16; ++t) {
    w[t] = (std::uint32_t{block[4 * t]} << 24) | (std::uint32_t{block[4 * t + 1]} << 16) |
           (std::uint32_t{block[4 * t + 2]} << 8) | std::uint32_t{block[4 * t + 3]};
  }
  for (int t = 16; t < 80; ++t) w[t] = rotl(w[t - 3] ^ w[t - 8] ^ w[t - 14] ^ w[t - 16], 1);
  std::uint32_t a = h[0], b = h[1], c = h[2], d = h[3], e = h[4];
  for (int t = 0; t < 80; ++t) {
    std::uint32_t f = 0;
    std::uint32_t k = 0;
    if (t < 20) {
      f = (b & c) | (~b & d);
      k = 0x5A827999;
    } else if (t < 40) {
      f = b ^ c ^ d;
      k = 0x6ED9EBA1;
    } else if (t < 60) {
      f = (b & c) | (b & d) | (c & d);
      k = 0x8F1BBCDC;
    } else {
      f = b ^ c ^ d;
      k = 0xCA62C1D6;
    }
    const std::uint32_t temp = rotl(a, 5) + f + e + w[t] + k;
    e = d;
    d = c;
    c = rotl(b, 30);
    b = a;
    a = temp;
  }
  h[0] += a;
  h[1] += b;
  h[2] += c;
  h[3] += d;
  h[4] += e;
}

}  // namespace

std::string sha1_hex(std::string_view data) {
  std::array<std::uint32_t, 5> h{0x67452301, 0xEFCDAB89, 0x98BADCFE, 0x10325476, 0xC3D2E1F0};
  // The message, a 0x80 byte, zeros up to 56 mod 64, then the bit length big-endian.
  std::string padded(data);
  const std::uint64_t bits = static_cast<std::uint64_t>(data.size()) * 8;
  padded += static_cast<char>(0x80);
  while (padded.size() % 64 != 56) padded += '\0';
  for (int i = 7; i >= 0; --i) padded += static_cast<char>((bits >> (8 * i)) & 0xFF);
  for (std::size_t off = 0; off < padded.size(); off += 64) {
    process_block(h, reinterpret_cast<const unsigned char*>(padded.data() + off));
  }
  static constexpr char k_hex[] = "0123456789abcdef";
  std::string out;
  for (const std::uint32_t word : h) {
    for (int shift = 28; shift >= 0; shift -= 4) out += k_hex[(word >> shift) & 0xF];
  }
  return out;
}

}  // namespace kpt::util
