#include "yaml/text_checks.hpp"

#include <cstring>

namespace kpt::yaml {
namespace {

constexpr std::string_view k_bom = "\xEF\xBB\xBF";

bool is_continuation(unsigned char c) { return (c & 0xC0U) == 0x80U; }

// Length of the valid UTF-8 sequence at `i`, or 0 when it is not valid (RFC 3629:
// no overlong forms, no surrogates, nothing past U+10FFFF).
std::size_t utf8_length(std::string_view s, std::size_t i) {
  const auto c = static_cast<unsigned char>(s[i]);
  const auto at = [&](std::size_t k) { return i + k < s.size() ? static_cast<unsigned char>(s[i + k]) : 0U; };
  if (c < 0x80U) return 1;
  if (c >= 0xC2U && c <= 0xDFU) return is_continuation(at(1)) ? 2 : 0;
  if (c >= 0xE0U && c <= 0xEFU) {
    const auto c1 = at(1);
    if (!is_continuation(c1) || !is_continuation(at(2))) return 0;
    if (c == 0xE0U && c1 < 0xA0U) return 0;   // overlong
    if (c == 0xEDU && c1 >= 0xA0U) return 0;  // surrogate
    return 3;
  }
  if (c >= 0xF0U && c <= 0xF4U) {
    const auto c1 = at(1);
    if (!is_continuation(c1) || !is_continuation(at(2)) || !is_continuation(at(3))) return 0;
    if (c == 0xF0U && c1 < 0x90U) return 0;   // overlong
    if (c == 0xF4U && c1 >= 0x90U) return 0;  // past U+10FFFF
    return 4;
  }
  return 0;
}

std::string hex_byte(unsigned char c) {
  constexpr const char* k_digits = "0123456789abcdef";
  return std::string("0x") + k_digits[c >> 4U] + k_digits[c & 0xFU];
}

}  // namespace

Position position_of_offset(std::string_view text, std::size_t offset) {
  if (offset > text.size()) offset = text.size();
  std::size_t line_start = 0;
  std::uint32_t line = 1;
  for (std::size_t i = 0; i < offset; ++i) {
    if (text[i] == '\n') {
      ++line;
      line_start = i + 1;
    }
  }
  if (line == 1 && text.substr(0, k_bom.size()) == k_bom && offset >= k_bom.size()) line_start = k_bom.size();
  std::uint32_t col = 1;
  for (std::size_t i = line_start; i < offset; ++i) {
    if (!is_continuation(static_cast<unsigned char>(text[i]))) ++col;
  }
  return Position{line, col};
}

std::optional<TextProblem> check_text(std::string_view text) {
  const std::size_t n = text.size();
  std::size_t i = 0;
  while (i < n) {
    if (i + 8 <= n) {
      std::uint64_t word = 0;
      std::memcpy(&word, text.data() + i, 8);
      constexpr std::uint64_t k_high = 0x8080808080808080ULL;
      constexpr std::uint64_t k_low = 0x0101010101010101ULL;
      const bool ascii = (word & k_high) == 0;
      const bool has_zero = ((word - k_low) & ~word & k_high) != 0;
      if (ascii && !has_zero) {
        i += 8;
        continue;
      }
    }
    const auto c = static_cast<unsigned char>(text[i]);
    if (c == 0) {
      const auto pos = position_of_offset(text, i);
      return TextProblem{"input.binary", pos,
                         "file looks binary: NUL byte at line " + std::to_string(pos.line) + ", column " +
                             std::to_string(pos.col),
                         "validate YAML or JSON text files only"};
    }
    const auto len = utf8_length(text, i);
    if (len == 0) {
      const bool utf16 =
          i == 0 && n >= 2 && ((c == 0xFFU && text[1] == '\xFE') || (c == 0xFEU && text[1] == '\xFF'));
      return TextProblem{
          "input.invalid-utf8", position_of_offset(text, i),
          "invalid UTF-8: byte " + hex_byte(c) + " does not start a valid character",
          utf16 ? "the file looks UTF-16 encoded; save it as UTF-8" : "save the file as UTF-8"};
    }
    i += len;
  }
  return std::nullopt;
}

std::optional<Position> tab_in_indentation(std::string_view text, std::uint32_t line) {
  const auto content = line_of(text, line);
  for (std::size_t i = 0; i < content.size(); ++i) {
    if (content[i] == '\t') return Position{line, static_cast<std::uint32_t>(i + 1)};
    if (content[i] != ' ' && content[i] != '-') return std::nullopt;
  }
  return std::nullopt;
}

}  // namespace kpt::yaml
