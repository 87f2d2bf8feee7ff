#pragma once

// The one way the plugin and the local cluster word what they tell the user beside a command's
// output: kubectl's `error: `, `warning: ` and `note: ` prefixes, one line each.

#include <iosfwd>
#include <string>
#include <string_view>

namespace kpt::util {

enum class Severity { error, warning, note };

/// "error: MESSAGE", "warning: MESSAGE" or "note: MESSAGE" (no newline), for outputs that are not
/// a plain stream (the follower's console).
std::string message_text(Severity severity, std::string_view message);

/// message_text() and a newline on `out`.
void print_message(std::ostream& out, Severity severity, std::string_view message);

inline void print_error(std::ostream& out, std::string_view message) {
  print_message(out, Severity::error, message);
}
inline void print_warning(std::ostream& out, std::string_view message) {
  print_message(out, Severity::warning, message);
}
inline void print_note(std::ostream& out, std::string_view message) {
  print_message(out, Severity::note, message);
}

}  // namespace kpt::util
