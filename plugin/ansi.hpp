#pragma once

// The terminal colours the commands use (SGR escape codes), named once. Whether to colour at all
// is Context::colour's decision (--color, NO_COLOR, a terminal).

namespace kpt::plugin::ansi {

inline constexpr const char* reset = "\033[0m";
inline constexpr const char* bold = "\033[1m";
inline constexpr const char* red = "\033[31m";
inline constexpr const char* green = "\033[32m";
inline constexpr const char* yellow = "\033[33m";
inline constexpr const char* bold_red = "\033[1;31m";
inline constexpr const char* bold_green = "\033[1;32m";
inline constexpr const char* bold_yellow = "\033[1;33m";
inline constexpr const char* bold_magenta = "\033[1;35m";
inline constexpr const char* bold_cyan = "\033[1;36m";

}  // namespace kpt::plugin::ansi
