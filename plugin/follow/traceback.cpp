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

// "  exitcode  : -9 (pid: 4)" -> {"exitcode", "-9 (pid: 4)"}: a field of torchrun's report.
std::optional<std::pair<std::string_view, std::string_view>> report_field(std::string_view line) {
  const auto colon = line.find(':');
  if (!is_indented(line) || colon == std::string_view::npos) return std::nullopt;
  return std::make_pair(util::trim(line.substr(0, colon)), util::trim(line.substr(colon + 1)));
}

// The leading integer of `text` ("-9 (pid: 4)" -> -9, "1 (local_rank: 0)" -> 1).
std::optional<int> leading_int(std::string_view text) {
  std::size_t i = text.starts_with('-') ? 1 : 0;
  const std::size_t digits = i;
  while (i < text.size() && i < digits + 6 && std::isdigit(static_cast<unsigned char>(text[i])) != 0) ++i;
  if (i == digits) return std::nullopt;
  int value = 0;
  for (std::size_t k = digits; k < i; ++k) value = value * 10 + (text[k] - '0');
  return digits == 1 ? -value : value;
}

}  // namespace

bool is_launcher_failure(const PythonError& error) { return is_launcher_failure(error.type); }

std::optional<TorchrunWorkerEnd> torchrun_failed_worker(const std::vector<std::string>& raw) {
  // The last report: "Failures:" (other workers' entries, or <NO_OTHER_FAILURES>), then "Root Cause
  // (first observed failure):" and its entry; each entry starts "[N]:" and is a few fields long.
  constexpr std::size_t k_entry_lines = 10;
  std::size_t root = raw.size();
  for (std::size_t i = raw.size(); i-- > 0;) {
    if (util::trim(strip_launcher_prefix(raw[i])) == "Root Cause (first observed failure):") {
      root = i;
      break;
    }
  }
  if (root == raw.size()) return std::nullopt;
  std::size_t first = root;
  for (std::size_t i = root; i-- > 0 && root - i < 64 * k_entry_lines;) {
    if (util::trim(strip_launcher_prefix(raw[i])) == "Failures:") {
      first = i;
      break;
    }
  }
  // One entry's fields, from the line after its "[N]:" up to the next entry or divider.
  const auto entry_at = [&](std::size_t from) {
    TorchrunWorkerEnd end;
    bool have_code = false;
    for (std::size_t k = from; k < raw.size() && k < from + k_entry_lines; ++k) {
      const auto line = strip_launcher_prefix(raw[k]);
      const auto field = report_field(line);
      if (!field) {
        if (k > from && !is_indented(line)) break;
        continue;
      }
      if (field->first == "rank") {
        end.rank = leading_int(field->second).value_or(-1);
        if (const auto local = field->second.find("local_rank:"); local != std::string_view::npos)
          end.local_rank = leading_int(util::trim(field->second.substr(local + 11))).value_or(-1);
      } else if (field->first == "exitcode") {
        if (const auto code = leading_int(field->second)) {
          end.exit_code = *code;
          have_code = true;
        }
      }
    }
    if (end.exit_code < 0) end.signal = -end.exit_code;
    return have_code ? std::optional<TorchrunWorkerEnd>(end) : std::nullopt;
  };
  std::optional<TorchrunWorkerEnd> root_cause;
  std::optional<TorchrunWorkerEnd> signalled;
  for (std::size_t i = first; i < raw.size() && i <= root + k_entry_lines; ++i) {
    const auto line = util::trim(strip_launcher_prefix(raw[i]));
    if (line.size() < 4 || line.front() != '[' || !line.ends_with("]:")) continue;
    const auto entry = entry_at(i + 1);
    if (!entry) continue;
    if (i > root) root_cause = entry;
    // torchrun stops the other workers with SIGTERM: a signal of another kind is the cause.
    if (entry->signal > 0 && entry->signal != 15 && !signalled) signalled = entry;
  }
  return signalled ? signalled : root_cause;
}

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
