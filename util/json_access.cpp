#include "util/json_access.hpp"

#include "util/strings.hpp"

#include <nlohmann/json.hpp>

namespace kpt::util {

using nlohmann::json;

const json* child(const json& object, std::string_view key) {
  if (!object.is_object()) return nullptr;
  const auto it = object.find(key);
  return it == object.end() ? nullptr : &*it;
}

const json& member(const json& object, std::string_view key) {
  static const json k_null;
  const json* value = child(object, key);
  return value != nullptr ? *value : k_null;
}

std::string string_at(const json& object, std::string_view key) {
  const json* value = child(object, key);
  return value != nullptr && value->is_string() ? value->get<std::string>() : "";
}

std::optional<std::string> optional_string(const json& object, std::string_view key) {
  const json* value = child(object, key);
  if (value == nullptr || !value->is_string()) return std::nullopt;
  return value->get<std::string>();
}

std::optional<std::int64_t> int_at(const json& object, std::string_view key) {
  const json* value = child(object, key);
  if (value == nullptr || !value->is_number_integer()) return std::nullopt;
  return value->get<std::int64_t>();
}

const json* at_path(const json& object, std::string_view dotted_path) {
  // Walks the path's views in place: a split into strings cost a vector and an allocation per
  // segment, and the Trainer rules look up thousands of paths a corpus.
  const json* current = &object;
  std::string_view rest = dotted_path;
  while (true) {
    const std::size_t dot = rest.find('.');
    current = child(*current, rest.substr(0, dot));
    if (current == nullptr || dot == std::string_view::npos) return current;
    rest.remove_prefix(dot + 1);
  }
}

const json& array_at(const json& object, std::string_view dotted_path) {
  static const json k_empty = json::array();
  const json* value = at_path(object, dotted_path);
  return value != nullptr && value->is_array() ? *value : k_empty;
}

const json& object_at(const json& object, std::string_view dotted_path) {
  static const json k_empty = json::object();
  const json* value = at_path(object, dotted_path);
  return value != nullptr && value->is_object() ? *value : k_empty;
}

bool bool_at(const json& object, std::string_view dotted_path, bool fallback) {
  const json* value = at_path(object, dotted_path);
  return value != nullptr && value->is_boolean() ? value->get<bool>() : fallback;
}

json& ensure_path(json& object, std::string_view dotted_path) {
  json* current = &object;
  for (const auto& part : split(dotted_path, '.')) {
    if (!current->is_object()) *current = json::object();
    current = &(*current)[part];
  }
  if (!current->is_object()) *current = json::object();
  return *current;
}

json* find_by(json& list, std::string_view key, std::string_view value) {
  if (!list.is_array()) return nullptr;
  for (auto& item : list) {
    if (string_at(item, key) == value) return &item;
  }
  return nullptr;
}

const json* find_by(const json& list, std::string_view key, std::string_view value) {
  return find_by(const_cast<json&>(list), key, value);
}

}  // namespace kpt::util
