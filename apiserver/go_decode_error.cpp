#include "apiserver/go_decode_error.hpp"

#include "schema/builtin/builtin_schema.hpp"

#include <nlohmann/json.hpp>

#include <charconv>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <vector>

namespace kpt::apiserver {

namespace {

using json = nlohmann::json;

struct Token {
  bool index = false;
  std::string text;  ///< a field name or map key; the index's digits
};

/// "spec.containers[0].name" -> spec, containers, [0], name.
std::vector<Token> tokens_of(const std::string& path) {
  std::vector<Token> out;
  std::string name;
  const auto flush = [&] {
    if (!name.empty()) out.push_back({false, std::move(name)});
    name.clear();
  };
  for (std::size_t i = 0; i < path.size(); ++i) {
    const char c = path[i];
    const auto close = c == '[' ? path.find(']', i) : std::string::npos;
    if (c == '.') {
      flush();
    } else if (close != std::string::npos && path.find_first_not_of("0123456789", i + 1) == close &&
               close > i + 1) {
      flush();
      out.push_back({true, path.substr(i + 1, close - i - 1)});
      i = close;
    } else {
      name += c;
    }
  }
  flush();
  return out;
}

bool starts_with(std::string_view s, std::string_view prefix) { return s.substr(0, prefix.size()) == prefix; }

/// How a shape prints as a Go type when its declared display is not at hand (a named slice or map).
std::string display_of_shape(std::string_view shape) {
  if (starts_with(shape, "[]")) return "[]" + display_of_shape(shape.substr(2));
  if (starts_with(shape, "map[]")) return "map[string]" + display_of_shape(shape.substr(5));
  if (starts_with(shape, "@")) {
    const auto last = shape.rfind('.');
    const auto package = shape.rfind('.', last - 1);
    return std::string(shape.substr(package + 1));
  }
  if (shape == "$quantity") return "resource.Quantity";
  if (shape == "$intorstring") return "intstr.IntOrString";
  if (shape == "$time") return "v1.Time";
  if (shape == "$duration") return "v1.Duration";
  if (shape == "$raw") return "runtime.RawExtension";
  return std::string(shape);
}

/// The element type of a slice or map type as printed: "[]v1.Container" -> "v1.Container".
std::string element_display(const std::string& display, std::string_view element_shape) {
  if (starts_with(display, "[]")) return display.substr(2);
  if (starts_with(display, "map[")) {
    int depth = 0;
    for (std::size_t i = 3; i < display.size(); ++i) {
      if (display[i] == '[') ++depth;
      if (display[i] == ']' && --depth == 0) return display.substr(i + 1);
    }
  }
  return display_of_shape(element_shape);  // a named type ("v1.ResourceList")
}

bool is_container_shape(std::string_view shape) {
  return starts_with(shape, "@") || starts_with(shape, "[]") || starts_with(shape, "map[]");
}

bool integer_shape(std::string_view shape) {
  return shape == "int32" || shape == "int64" || shape == "int" || shape == "$intorstring";
}

/// Whether a JSON number fits Go's integer parsing (strconv.ParseInt of its text, then the width).
bool fits_integer(const json& v, std::string_view shape) {
  if (v.is_number_float()) return false;
  const bool narrow = shape == "int32" || shape == "$intorstring";
  if (v.is_number_unsigned()) {
    return v.get<std::uint64_t>() <=
           (narrow ? static_cast<std::uint64_t>(std::numeric_limits<std::int32_t>::max())
                   : static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()));
  }
  const auto n = v.get<std::int64_t>();
  return !narrow ||
         (n >= std::numeric_limits<std::int32_t>::min() && n <= std::numeric_limits<std::int32_t>::max());
}

/// UnmarshalTypeError.Value: what the JSON value is ("number 1.5" when an integer cannot hold it).
std::string json_value_kind(const json& v, std::string_view shape) {
  if (v.is_string()) return "string";
  if (v.is_boolean()) return "bool";
  if (v.is_object()) return "object";
  if (v.is_array()) return "array";
  if (v.is_number() && integer_shape(shape) && !fits_integer(v, shape)) return "number " + v.dump();
  return "number";
}

/// The Go type a value fails to decode into: custom decoders read their input as a Go string
/// (metav1.Time, Duration) or int32 (IntOrString's number form) first.
std::string target_display(const std::string& display, std::string_view shape) {
  if (shape == "$time" || shape == "$duration") return "string";
  if (shape == "$intorstring") return "int32";
  return display;
}

}  // namespace

GoTypes::GoTypes(std::string_view json_text) {
  const auto doc = json::parse(json_text);
  for (const auto& [kind, definition] : doc.at("kinds").items())
    m_kinds[kind] = definition.get<std::string>();
  for (const auto& [definition, body] : doc.at("structs").items()) {
    Struct s;
    s.name = body.at("name").get<std::string>();
    for (const auto& [field, type] : body.at("fields").items()) {
      s.fields[field] = {type.at(0).get<std::string>(), type.at(1).get<std::string>()};
    }
    m_structs[definition] = std::move(s);
  }
}

const GoTypes& GoTypes::builtin() {
  static const GoTypes k_types(schema::builtin_go_types_json());
  return k_types;
}

bool GoTypes::knows(const std::string& api_version, const std::string& kind) const {
  return m_kinds.count(api_version + "/" + kind) != 0;
}

std::string GoTypes::type_error(const std::string& api_version, const std::string& kind, const json& object,
                                const std::string& field_path) const {
  const auto root = m_kinds.find(api_version + "/" + kind);
  if (root == m_kinds.end()) return {};
  std::string shape = "@" + root->second;
  std::string display;
  std::string struct_name;
  std::string field_stack;
  const json* value = &object;
  const auto tokens = tokens_of(field_path);
  for (std::size_t i = 0; i < tokens.size(); ++i) {
    const Token& t = tokens[i];
    if (starts_with(shape, "@")) {
      const auto s = m_structs.find(std::string_view(shape).substr(1));
      if (t.index || s == m_structs.end()) return {};
      const auto f = s->second.fields.find(t.text);
      if (f == s->second.fields.end() || !value->is_object() || !value->contains(t.text)) return {};
      struct_name = s->second.name;
      field_stack += (field_stack.empty() ? "" : ".") + t.text;
      display = f->second.display;
      shape = f->second.shape;
      value = &(*value)[t.text];
    } else if (starts_with(shape, "[]")) {
      if (!t.index || !value->is_array()) return {};
      std::size_t at = 0;
      const auto [end, ec] = std::from_chars(t.text.data(), t.text.data() + t.text.size(), at);
      if (ec != std::errc() || end != t.text.data() + t.text.size() || at >= value->size()) return {};
      shape = shape.substr(2);
      display = element_display(display, shape);
      value = &(*value)[at];
    } else if (starts_with(shape, "map[]")) {
      std::string key = t.text;
      shape = shape.substr(5);
      if (!is_container_shape(shape)) {  // the key is the rest of the path, dots and all
        for (++i; i < tokens.size(); ++i) key += "." + tokens[i].text;
        --i;
      }
      if (t.index || !value->is_object() || !value->contains(key)) return {};
      display = element_display(display, shape);
      value = &(*value)[key];
    } else {
      return {};
    }
  }
  if (struct_name.empty() || value->is_null()) return {};
  if (shape == "$quantity") return std::string(k_quantity_format_error);
  return "json: cannot unmarshal " + json_value_kind(*value, shape) + " into Go struct field " + struct_name +
         "." + field_stack + " of type " + target_display(display, shape);
}

}  // namespace kpt::apiserver
