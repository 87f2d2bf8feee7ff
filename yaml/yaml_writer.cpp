#include "yaml/yaml_writer.hpp"

#include "util/strings.hpp"

#include <nlohmann/json.hpp>

namespace kpt::yaml {

namespace {

using nlohmann::json;

bool needs_quotes(const std::string& s) {
  if (s.empty()) return true;
  static const char* const k_words[] = {"y", "n", "yes", "no", "on", "off", "true", "false", "null", "~"};
  const std::string lower = util::to_lower(s);
  for (const char* w : k_words) {
    if (lower == w) return true;
  }
  // Anything that starts like a number, an indicator or has ": " / " #" is quoted.
  static const std::string k_start = "-?:,[]{}#&*!|>'\"%@`0123456789.+ ";
  if (k_start.find(s.front()) != std::string::npos) return true;
  if (s.back() == ' ' || s.back() == ':') return true;
  if (s.find(": ") != std::string::npos || s.find(" #") != std::string::npos) return true;
  for (unsigned char c : s) {
    if (c < 0x20 || c == 0x7f) return true;
  }
  return false;
}

std::string scalar(const json& v) {
  if (v.is_string()) {
    const auto& s = v.get_ref<const std::string&>();
    return needs_quotes(s) ? json(s).dump() : s;
  }
  if (v.is_null()) return "null";
  return v.dump();
}

// libyaml reads a simple (implicit) key of at most 1024 characters; a longer key is written as
// an explicit "? key" entry, which has no such limit (bytes bound characters from above).
constexpr std::size_t k_max_simple_key = 1000;

/// The key of a block mapping entry up to and including its ':' (`pad` is the entry's indent).
std::string key_part(const std::string& key, const std::string& pad) {
  const std::string text = needs_quotes(key) ? json(key).dump() : key;
  if (text.size() > k_max_simple_key) return "? " + text + "\n" + pad + ":";
  return text + ":";
}

bool is_empty_collection(const json& v) { return (v.is_object() || v.is_array()) && v.empty(); }

void emit(const json& v, int indent, std::string& out);

void emit_object(const json& obj, int indent, std::string& out, bool first_inline) {
  bool first = true;
  for (auto it = obj.begin(); it != obj.end(); ++it) {
    if (!(first && first_inline)) out += std::string(static_cast<std::size_t>(indent), ' ');
    first = false;
    out += key_part(it.key(), std::string(static_cast<std::size_t>(indent), ' '));
    const json& val = it.value();
    if (is_empty_collection(val)) {
      out += val.is_object() ? " {}\n" : " []\n";
    } else if (val.is_object()) {
      out += "\n";
      emit_object(val, indent + 2, out, false);
    } else if (val.is_array()) {
      out += "\n";
      emit(val, indent, out);
    } else {
      out += " " + scalar(val) + "\n";
    }
  }
}

void emit(const json& v, int indent, std::string& out) {
  const std::string pad(static_cast<std::size_t>(indent), ' ');
  if (v.is_object()) {
    emit_object(v, indent, out, false);
  } else if (v.is_array()) {
    for (const auto& item : v) {
      out += pad + "-";
      if (is_empty_collection(item)) {
        out += item.is_object() ? " {}\n" : " []\n";
      } else if (item.is_object()) {
        out += " ";
        emit_object(item, indent + 2, out, true);
      } else if (item.is_array()) {
        out += "\n";
        emit(item, indent + 2, out);
      } else {
        out += " " + scalar(item) + "\n";
      }
    }
  } else {
    out += pad + scalar(v) + "\n";
  }
}

}  // namespace

std::string to_yaml(const nlohmann::json& value) {
  std::string out;
  if (is_empty_collection(value)) return value.is_object() ? "{}\n" : "[]\n";
  emit(value, 0, out);
  return out;
}

}  // namespace kpt::yaml
