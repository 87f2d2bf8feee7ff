#pragma once

#include "yaml/node.hpp"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace kpt::yaml {

/// A problem with the bytes of an input, found before any YAML parsing.
struct TextProblem {
  std::string rule_id;  ///< input.binary or input.invalid-utf8
  Position pos;
  std::string message;
  std::string hint;
};

/// The first NUL byte (binary file) or invalid UTF-8 sequence in `text`, if any.
/// One pass; ASCII runs are checked eight bytes at a time.
std::optional<TextProblem> check_text(std::string_view text);

/// 1-based line and column of byte `offset`. Columns count characters (code points), as
/// libyaml's marks do; a UTF-8 byte order mark at the start does not count.
Position position_of_offset(std::string_view text, std::size_t offset);

/// Where the first tab sits in the indentation (leading blanks) of line `line`, if one does.
std::optional<Position> tab_in_indentation(std::string_view text, std::uint32_t line);

}  // namespace kpt::yaml
