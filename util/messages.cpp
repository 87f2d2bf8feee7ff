#include "util/messages.hpp"

#include <ostream>

namespace kpt::util {

std::string message_text(Severity severity, std::string_view message) {
  std::string_view prefix = "note: ";
  if (severity == Severity::error) prefix = "error: ";
  if (severity == Severity::warning) prefix = "warning: ";
  std::string text(prefix);
  text += message;
  return text;
}

void print_message(std::ostream& out, Severity severity, std::string_view message) {
  out << message_text(severity, message) << "\n";
}

}  // namespace kpt::util
