#include "plugin/exit_codes.hpp"

#include <fmt/format.h>

namespace kpt::plugin {

std::string exit_codes_help() {
  std::string text = "Exit codes:\n";
  for (const auto& row : k_exit_code_table) text += fmt::format("  {:<4} {}\n", row.code, row.meaning);
  return text;
}

std::string help_hint(std::string_view command_path) {
  return fmt::format("Run '{} --help' for usage.", command_path);
}

}  // namespace kpt::plugin
