#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace kpt::cel::utf8 {

constexpr char32_t k_replacement = 0xFFFD;
constexpr char32_t k_max_code_point = 0x10FFFF;

/// True for a Unicode scalar value (not a surrogate, at most U+10FFFF).
constexpr bool is_scalar(char32_t c) { return c <= k_max_code_point && (c < 0xD800 || c > 0xDFFF); }

/// Appends the UTF-8 encoding of `c` (a scalar value).
void append(std::string& out, char32_t c);

/// Decodes the code point at `pos` and advances `pos` past it. Malformed input decodes as
/// U+FFFD and advances one byte, as Go does, so every byte is consumed.
char32_t decode(std::string_view text, std::size_t& pos);

/// The number of code points (CEL's size() of a string).
std::size_t length(std::string_view text);

}  // namespace kpt::cel::utf8
