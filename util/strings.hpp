#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kpt::util {

std::vector<std::string> split(std::string_view text, char sep);
std::string join(const std::vector<std::string>& parts, std::string_view sep);
std::string_view trim(std::string_view text);
std::string to_lower(std::string_view text);
bool starts_with(std::string_view text, std::string_view prefix);
bool ends_with(std::string_view text, std::string_view suffix);

/// Levenshtein distance, giving up (returning cap+1) once it must exceed `cap`,
/// so suggestions over long or hostile strings stay cheap.
std::size_t edit_distance(std::string_view a, std::string_view b, std::size_t cap);

/// The candidate closest to `word` within a distance that scales with its length
/// (at most 2 for short words, 3 for long ones), or nothing.
std::optional<std::string> closest_match(std::string_view word, const std::vector<std::string>& candidates);

/// Quotes a user value for a message: 'value', cut to `max` characters with "..." so
/// hostile input cannot flood a terminal.
std::string quote(std::string_view value, std::size_t max = 80);

/// Appends the byte `c` as Go's %q and YAML's double-quoted style both write ASCII: `"`, `\\`,
/// newline, tab and carriage return by name, other control bytes as \xNN, anything else as is.
void append_escaped(std::string& out, char c);

/// Go's %q of a string, as Kubernetes field errors quote bad values: "a\"b".
std::string go_quote(std::string_view text);

/// `text` broken at spaces into lines of at most `width` characters, each line after the
/// first starting with `indent` spaces; a word longer than a line stays whole rather than
/// being cut. For notes a terminal shows: 120 columns is what the table beside them fits.
std::string wrap_words(std::string_view text, std::size_t width, std::size_t indent);

/// The codes written before and after a cell that take no width on a terminal (colour).
struct CellPaint {
  std::string before;
  std::string after;
};

/// How format_columns lays out a table. The default is `kubectl get`'s: its tabwriter pads with 3.
struct ColumnLayout {
  std::size_t gap = 3;
  /// Paint for the cell at (row, column); none when unset or when it returns empty codes.
  std::function<CellPaint(std::size_t row, std::size_t column)> paint;
};

/// Rows as aligned columns: each column as wide as its widest cell plus `gap` spaces, the last
/// column not padded, no trailing spaces, one line per row. Paint codes do not count for width.
/// The one table writer of the CLI (status, env, doctor), so their columns line up alike.
std::string format_columns(const std::vector<std::vector<std::string>>& rows,
                           const ColumnLayout& layout = {});

/// Each note as "note: TEXT" wrapped to 120 columns under its first word, one per line.
std::string note_lines(const std::vector<std::string>& notes);

}  // namespace kpt::util
