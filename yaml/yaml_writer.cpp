#include "yaml/yaml_writer.hpp"

#include "util/strings.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <cstdio>

namespace kpt::yaml {

namespace {

using nlohmann::json;

/// Past this depth the rest is written in flow style (JSON is valid YAML), so hostile nesting
/// cannot grow the emitter's stack.
constexpr int k_max_block_depth = 64;

/// Plain text a YAML 1.1 reader would take for a number, a date or a special float. Errs on the side
/// of quoting: a quoted string always reads back as a string. Linear, for any length.
bool looks_numeric(std::string_view s) {
  if (!s.empty() && (s[0] == '+' || s[0] == '-')) s.remove_prefix(1);
  if (s.empty()) return false;
  const std::string lower = util::to_lower(s);
  if (lower == ".inf" || lower == ".nan") return true;
  if (lower.size() > 2 && lower[0] == '0' && (lower[1] == 'x' || lower[1] == 'o' || lower[1] == 'b')) {
    return lower.find_first_not_of("0123456789abcdef_", 2) == std::string::npos;
  }
  if (std::isdigit(static_cast<unsigned char>(s[0])) == 0 && s[0] != '.') return false;
  // T, t, Z, z and spaces: a timestamp ("2026-12-06T03:37:18Z"), as kubectl -o yaml quotes it.
  return s.find_first_not_of("0123456789._eE+-:TtZz ") == std::string_view::npos;
}

bool reads_as_other_type(const std::string& s) {
  const std::string lower = util::to_lower(s);
  for (const char* word : {"true", "false", "yes", "no", "on", "off", "y", "n", "null", "~"}) {
    if (lower == word) return true;
  }
  return looks_numeric(s);
}

/// The escape for a character at `i` that YAML does not keep as written, or "" for a plain one:
/// the C1 controls (NEL, U+0085, is a line break in YAML 1.1), the line and paragraph separators,
/// the byte-order mark and the two non-characters are not printable, so a plain or literal scalar
/// holding them reads back changed or not at all. `len` is the bytes the escape stands for.
std::string unprintable_escape(const std::string& s, std::size_t i, std::size_t& len) {
  const auto byte = [&](std::size_t k) { return k < s.size() ? static_cast<unsigned char>(s[k]) : 0U; };
  len = 1;
  const unsigned b0 = byte(i);
  if (b0 == 0xC2 && byte(i + 1) >= 0x80 && byte(i + 1) <= 0x9F) {
    len = 2;
    char buf[8];
    std::snprintf(buf, sizeof buf, "\\u%04X", byte(i + 1));
    return buf;
  }
  if (b0 == 0xE2 && byte(i + 1) == 0x80 && (byte(i + 2) == 0xA8 || byte(i + 2) == 0xA9)) {
    len = 3;
    return byte(i + 2) == 0xA8 ? "\\L" : "\\P";
  }
  if (b0 == 0xEF && byte(i + 1) == 0xBB && byte(i + 2) == 0xBF) {
    len = 3;
    return "\\uFEFF";
  }
  if (b0 == 0xEF && byte(i + 1) == 0xBF && (byte(i + 2) == 0xBE || byte(i + 2) == 0xBF)) {
    len = 3;
    return byte(i + 2) == 0xBE ? "\\uFFFE" : "\\uFFFF";
  }
  return "";
}

bool has_unprintable_unicode(const std::string& s) {
  std::size_t len = 0;
  for (std::size_t i = 0; i < s.size(); ++i)
    if (static_cast<unsigned char>(s[i]) >= 0xC2 && !unprintable_escape(s, i, len).empty()) return true;
  return false;
}

bool needs_quotes(const std::string& s) {
  if (s.empty() || s.front() == ' ' || s.back() == ' ' || reads_as_other_type(s)) return true;
  if (std::string_view("-?:,[]{}#&*!|>'\"%@`").find(s.front()) != std::string_view::npos) return true;
  // "..." (and "---", caught above by its '-') at the start of a line ends (or starts) a document.
  if (s.rfind("...", 0) == 0) return true;
  // A plain << is YAML's merge key; the string "<<" must be quoted to stay a string.
  if (s == "<<") return true;
  if (s.find(": ") != std::string::npos || s.find(" #") != std::string::npos || s.back() == ':') return true;
  for (const char c : s) {
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) return true;
  }
  return has_unprintable_unicode(s);
}

std::string double_quoted(const std::string& s) {
  std::string out = "\"";
  for (std::size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    std::size_t len = 0;
    if (std::string escape = unprintable_escape(s, i, len); !escape.empty()) {
      out += escape;
      i += len - 1;
      continue;
    }
    util::append_escaped(out, c);
  }
  return out + "\"";
}

/// Multi-line text that a literal block keeps byte for byte: no control characters but newline
/// and tab, no line with trailing blanks, its first content line not starting with a blank (the
/// block's indentation is read from that line, so its blanks would need an indent marker).
bool fits_literal_block(const std::string& s) {
  if (s.find('\n') == std::string::npos) return false;
  // Only line breaks: a literal block with no content line reads back as "" (libyaml).
  const std::size_t first_content = s.find_first_not_of('\n');
  if (first_content == std::string::npos) return false;
  if (s[first_content] == ' ' || s[first_content] == '\t') return false;
  for (std::size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    if ((static_cast<unsigned char>(c) < 0x20 && c != '\n' && c != '\t') || c == 0x7f) return false;
    if (c == '\n' && i > 0 && (s[i - 1] == ' ' || s[i - 1] == '\t')) return false;
  }
  return s.back() != ' ' && s.back() != '\t' && !has_unprintable_unicode(s);
}

std::string literal_block(const std::string& s, int indent) {
  std::size_t trailing = 0;
  while (trailing < s.size() && s[s.size() - 1 - trailing] == '\n') ++trailing;
  std::string out = trailing == 0 ? "|-" : trailing == 1 ? "|" : "|+";
  const std::string body = s.substr(0, s.size() - trailing);
  // A document's root block at column 0 does not read back in libyaml when a line starts with
  // "- " (it ends the scalar): the lines are indented by at least one space.
  const std::string pad(static_cast<std::size_t>(std::max(indent, 1)), ' ');
  for (const auto& line : util::split(body, '\n')) out += line.empty() ? "\n" : "\n" + pad + line;
  for (std::size_t i = 1; i < trailing; ++i) out += "\n";
  return out;
}

std::string scalar(const json& v, int indent) {
  if (v.is_string()) {
    const auto& s = v.get_ref<const std::string&>();
    if (fits_literal_block(s)) return literal_block(s, indent);
    return needs_quotes(s) ? double_quoted(s) : s;
  }
  return v.dump();
}

// libyaml reads a simple (implicit) key of at most 1024 characters; a longer key is written as
// an explicit "? key" entry, which has no such limit (bytes bound characters from above).
constexpr std::size_t k_max_simple_key = 1000;

/// The key of a block mapping entry up to and including its ':' (`pad` is the entry's indent).
std::string key_part(const std::string& key, const std::string& pad) {
  const std::string text = needs_quotes(key) ? double_quoted(key) : key;
  if (text.size() > k_max_simple_key) return "? " + text + "\n" + pad + ":";
  return text + ":";
}

bool is_block_collection(const json& v) { return (v.is_object() || v.is_array()) && !v.empty(); }

void emit(std::string& out, const json& v, int indent, int depth);

void emit_object(std::string& out, const json& v, int indent, int depth) {
  const std::string pad(static_cast<std::size_t>(indent), ' ');
  bool first = true;
  for (const auto& [key, child] : v.items()) {
    if (!first) out += pad;
    first = false;
    out += key_part(key, pad);
    if (is_block_collection(child) && depth < k_max_block_depth) {
      out += "\n";
      // A sequence under a key starts at the key's column, as sigs.k8s.io/yaml writes it.
      const int child_indent = child.is_array() ? indent : indent + 2;
      out += std::string(static_cast<std::size_t>(child_indent), ' ');
      emit(out, child, child_indent, depth + 1);
    } else {
      out += " " + (is_block_collection(child) ? child.dump() : scalar(child, indent + 2)) + "\n";
    }
  }
}

void emit_array(std::string& out, const json& v, int indent, int depth) {
  const std::string pad(static_cast<std::size_t>(indent), ' ');
  bool first = true;
  for (const auto& item : v) {
    if (!first) out += pad;
    first = false;
    out += "- ";
    if (is_block_collection(item) && depth < k_max_block_depth) {
      emit(out, item, indent + 2, depth + 1);
    } else {
      out += (is_block_collection(item) ? item.dump() : scalar(item, indent + 2)) + "\n";
    }
  }
}

void emit(std::string& out, const json& v, int indent, int depth) {
  if (v.is_object() && !v.empty()) {
    emit_object(out, v, indent, depth);
  } else if (v.is_array() && !v.empty()) {
    emit_array(out, v, indent, depth);
  } else {
    out += (v.is_object() || v.is_array() ? v.dump() : scalar(v, indent)) + "\n";
  }
}

}  // namespace

std::string to_yaml(const json& value) {
  std::string out;
  emit(out, value, 0, 0);
  return out;
}

}  // namespace kpt::yaml
