#include "util/strings.hpp"

#include <algorithm>
#include <cctype>
#include <cstdio>

namespace kpt::util {

std::vector<std::string> split(std::string_view text, char sep) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (true) {
    const auto pos = text.find(sep, start);
    if (pos == std::string_view::npos) {
      out.emplace_back(text.substr(start));
      return out;
    }
    out.emplace_back(text.substr(start, pos - start));
    start = pos + 1;
  }
}

std::string join(const std::vector<std::string>& parts, std::string_view sep) {
  std::string out;
  for (std::size_t i = 0; i < parts.size(); ++i) {
    if (i != 0) out += sep;
    out += parts[i];
  }
  return out;
}

std::string_view trim(std::string_view text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front()))) text.remove_prefix(1);
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.remove_suffix(1);
  return text;
}

std::string to_lower(std::string_view text) {
  std::string out(text);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

bool starts_with(std::string_view text, std::string_view prefix) {
  return text.substr(0, prefix.size()) == prefix;
}

bool ends_with(std::string_view text, std::string_view suffix) {
  return text.size() >= suffix.size() && text.substr(text.size() - suffix.size()) == suffix;
}

std::size_t edit_distance(std::string_view a, std::string_view b, std::size_t cap) {
  const std::size_t longer = std::max(a.size(), b.size());
  const std::size_t shorter = std::min(a.size(), b.size());
  if (longer - shorter > cap) return cap + 1;
  std::vector<std::size_t> prev(b.size() + 1), cur(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    std::size_t row_min = cur[0];
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t subst = prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1);
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, subst});
      row_min = std::min(row_min, cur[j]);
    }
    if (row_min > cap) return cap + 1;
    std::swap(prev, cur);
  }
  return std::min(prev[b.size()], cap + 1);
}

std::optional<std::string> closest_match(std::string_view word, const std::vector<std::string>& candidates) {
  if (word.empty() || word.size() > 128) return std::nullopt;
  const std::size_t cap = word.size() <= 4 ? 1 : (word.size() <= 10 ? 2 : 3);
  const std::string lowered = to_lower(word);
  std::optional<std::string> best;
  std::size_t best_distance = cap + 1;
  for (const auto& c : candidates) {
    // Case slips ("Replicas") count as one edit whatever their number.
    std::size_t d = to_lower(c) == lowered ? 1 : edit_distance(word, c, cap);
    if (d < best_distance) {
      best_distance = d;
      best = c;
    }
  }
  return best;
}

std::string quote(std::string_view value, std::size_t max) {
  std::string out = "'";
  if (value.size() > max) {
    out += value.substr(0, max);
    out += "...";
  } else {
    out += value;
  }
  out += "'";
  return out;
}

void append_escaped(std::string& out, char c) {
  switch (c) {
    case '"':
      out += "\\\"";
      return;
    case '\\':
      out += "\\\\";
      return;
    case '\n':
      out += "\\n";
      return;
    case '\t':
      out += "\\t";
      return;
    case '\r':
      out += "\\r";
      return;
    default:
      break;
  }
  const auto byte = static_cast<unsigned char>(c);
  if (byte < 0x20 || byte == 0x7f) {
    char buf[8];
    std::snprintf(buf, sizeof buf, "\\x%02x", static_cast<unsigned>(byte));
    out += buf;
  } else {
    out += c;
  }
}

std::string go_quote(std::string_view text) {
  std::string out = "\"";
  for (const char c : text) append_escaped(out, c);
  return out + "\"";
}

std::string wrap_words(std::string_view text, std::size_t width, std::size_t indent) {
  std::string out;
  std::size_t column = 0;
  std::size_t pos = 0;
  while (pos < text.size()) {
    if (text[pos] == ' ') {
      ++pos;
      continue;
    }
    std::size_t end = text.find(' ', pos);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view word = text.substr(pos, end - pos);
    if (column == 0) {
      out += word;
      column = word.size();
    } else if (column + 1 + word.size() <= width) {
      out += ' ';
      out += word;
      column += 1 + word.size();
    } else {
      out += '\n';
      out.append(indent, ' ');
      out += word;
      column = indent + word.size();
    }
    pos = end;
  }
  return out;
}

std::string format_columns(const std::vector<std::vector<std::string>>& rows, const ColumnLayout& layout) {
  std::vector<std::size_t> width;
  for (const auto& row : rows) {
    if (width.size() < row.size()) width.resize(row.size(), 0);
    for (std::size_t i = 0; i < row.size(); ++i) width[i] = std::max(width[i], row[i].size());
  }
  std::string out;
  for (std::size_t r = 0; r < rows.size(); ++r) {
    const auto& row = rows[r];
    std::string line;
    std::size_t pending = 0;  // padding owed before the next non-empty cell, so none trails a line
    for (std::size_t i = 0; i < row.size(); ++i) {
      const CellPaint paint = layout.paint && !row[i].empty() ? layout.paint(r, i) : CellPaint{};
      if (!row[i].empty()) {
        line.append(pending, ' ');
        pending = 0;
        line += paint.before + row[i] + paint.after;
      }
      if (i + 1 < row.size()) pending += width[i] - row[i].size() + layout.gap;
    }
    out += line + "\n";
  }
  return out;
}

std::string note_lines(const std::vector<std::string>& notes) {
  constexpr std::size_t k_width = 120;
  constexpr std::size_t k_indent = sizeof("note: ") - 1;
  std::string out;
  for (const auto& n : notes) out += wrap_words("note: " + n, k_width, k_indent) + "\n";
  return out;
}

}  // namespace kpt::util
