#include "plugin/follow/traceback.hpp"

#include "util/strings.hpp"

#include <cctype>

namespace kpt::plugin {

namespace {

bool is_indented(std::string_view line) { return !line.empty() && (line[0] == ' ' || line[0] == '\t'); }

bool is_identifier_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_'; }

// "pkg.mod.SomeError: message" or a bare "KeyboardInterrupt": a dotted name at column 0, then
// ':' or the end of the line.
std::optional<std::string> exception_type(std::string_view line) {
  if (line.empty() || !(std::isalpha(static_cast<unsigned char>(line[0])) != 0 || line[0] == '_'))
    return std::nullopt;
  std::size_t i = 0;
  while (i < line.size() && (is_identifier_char(line[i]) || line[i] == '.')) ++i;
  if (i < line.size() && line[i] != ':') return std::nullopt;
  std::string type(line.substr(0, i));
  if (type.back() == '.') return std::nullopt;
  return type;
}

// `  File "/work/train.py", line 42, in main` -> {"/work/train.py", "42"}.
std::optional<std::pair<std::string, std::string>> frame_of(std::string_view line) {
  const auto t = util::trim(line);
  if (!util::starts_with(t, "File \"")) return std::nullopt;
  const auto close = t.find("\", line ", 6);
  if (close == std::string_view::npos) return std::nullopt;
  std::string file(t.substr(6, close - 6));
  std::size_t i = close + 8;
  std::size_t j = i;
  while (j < t.size() && std::isdigit(static_cast<unsigned char>(t[j])) != 0) ++j;
  if (j == i) return std::nullopt;
  return std::make_pair(std::move(file), std::string(t.substr(i, j - i)));
}

// Library code: the user's own frame says more about where to look.
bool is_library(const std::string& file) {
  return file.find("/site-packages/") != std::string::npos ||
         file.find("/dist-packages/") != std::string::npos ||
         file.find("/lib/python3") != std::string::npos || util::starts_with(file, "<frozen ");
}

std::string base_name(const std::string& file) {
  const auto slash = file.find_last_of('/');
  return slash == std::string::npos ? file : file.substr(slash + 1);
}

// The exception a traceback that starts (after its header, or at its first frame) at `from`
// ends with, or nothing when the lines stop before one.
std::optional<PythonError> read_traceback(const std::vector<std::string_view>& lines, std::size_t from) {
  std::string user_where;
  std::string any_where;
  bool frames = false;
  for (std::size_t i = from; i < lines.size(); ++i) {
    const std::string_view line = lines[i];
    if (auto frame = frame_of(line)) {
      frames = true;
      const std::string where = base_name(frame->first) + ":" + frame->second;
      any_where = where;
      if (!is_library(frame->first)) user_where = where;
      continue;
    }
    if (is_indented(line) || line.empty()) continue;  // source lines, carets, blank lines
    if (!frames) return std::nullopt;
    auto type = exception_type(line);
    if (!type) return std::nullopt;
    return PythonError{std::string(line), *type, user_where.empty() ? any_where : user_where};
  }
  return std::nullopt;
}

bool is_launcher_failure(const std::string& type) { return util::ends_with(type, "ChildFailedError"); }

}  // namespace

std::string_view strip_launcher_prefix(std::string_view line) {
  while (!line.empty() && (line.back() == '\r' || line.back() == '\n')) line.remove_suffix(1);
  if (line.size() > 3 && line[0] == '[') {
    const auto close = line.find("]:");
    if (close != std::string_view::npos && close < 16) {
      const std::string_view tag = line.substr(1, close - 1);
      std::size_t digits = tag.size();
      while (digits > 0 && std::isdigit(static_cast<unsigned char>(tag[digits - 1])) != 0) --digits;
      const std::string_view word = tag.substr(0, digits);
      if (digits < tag.size() && (word == "default" || word == "rank")) return line.substr(close + 2);
    }
  }
  return line;
}

std::optional<PythonError> last_python_error(const std::vector<std::string>& raw,
                                             const std::function<bool(const PythonError&)>& prefer) {
  std::vector<std::string_view> lines;
  lines.reserve(raw.size());
  for (const auto& l : raw) lines.push_back(strip_launcher_prefix(l));
  std::optional<PythonError> last;
  std::optional<PythonError> last_preferred;
  std::optional<PythonError> last_launcher;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const bool header = lines[i] == "Traceback (most recent call last):";
    // A SyntaxError (and an IndentationError) in the script itself: its frame with no header.
    const bool bare_frame = !header && frame_of(lines[i]) && (i == 0 || !is_indented(lines[i - 1]));
    if (!header && !bare_frame) continue;
    auto found = read_traceback(lines, header ? i + 1 : i);
    if (!found) continue;
    if (is_launcher_failure(found->type)) {
      last_launcher = std::move(found);
      continue;
    }
    if (prefer && prefer(*found)) last_preferred = found;
    last = std::move(found);
  }
  if (last_preferred) return last_preferred;
  return last ? last : last_launcher;
}

}  // namespace kpt::plugin
