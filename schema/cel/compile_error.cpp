#include "schema/cel/compile_error.hpp"

#include "schema/cel/utf8.hpp"

namespace kpt::cel {

std::string format_compile_error(std::string_view source, const CompileError& error) {
  std::uint32_t line = 1;
  std::uint32_t col = 1;
  for (std::size_t pos = 0; pos < error.offset && pos < source.size();) {
    if (source[pos] == '\n') {
      ++line, col = 1, ++pos;
      continue;
    }
    utf8::decode(source, pos);
    ++col;
  }
  return std::to_string(line) + ":" + std::to_string(col) + ": " + error.message;
}

}  // namespace kpt::cel
