#include "model/trainjob/json_access.hpp"

#include "util/strings.hpp"

namespace kpt::model::trainjob::detail {

using nlohmann::json;

std::string string_at(const json& object, std::string_view key) {
  const json* value = child(object, key);
  return value != nullptr && value->is_string() ? value->get<std::string>() : "";
}

const json* child(const json& object, std::string_view key) {
  if (!object.is_object()) return nullptr;
  const auto it = object.find(key);
  return it == object.end() ? nullptr : &*it;
}

const json* at_path(const json& object, std::string_view dotted_path) {
  const json* current = &object;
  for (const auto& part : util::split(dotted_path, '.')) {
    current = child(*current, part);
    if (current == nullptr) return nullptr;
  }
  return current;
}

const json& array_at(const json& object, std::string_view dotted_path) {
  static const json k_empty = json::array();
  const json* v = at_path(object, dotted_path);
  return v != nullptr && v->is_array() ? *v : k_empty;
}

const json& object_at(const json& object, std::string_view dotted_path) {
  static const json k_empty = json::object();
  const json* v = at_path(object, dotted_path);
  return v != nullptr && v->is_object() ? *v : k_empty;
}

bool bool_at(const json& object, std::string_view dotted_path, bool fallback) {
  const json* v = at_path(object, dotted_path);
  return v != nullptr && v->is_boolean() ? v->get<bool>() : fallback;
}

json& ensure_path(json& object, std::string_view dotted_path) {
  json* current = &object;
  for (const auto& part : util::split(dotted_path, '.')) {
    if (!current->is_object()) *current = json::object();
    current = &(*current)[part];
  }
  if (!current->is_object()) *current = json::object();
  return *current;
}

std::string name_of(const json& object) {
  const json* meta = child(object, "metadata");
  return meta != nullptr ? string_at(*meta, "name") : "";
}

std::string namespace_of(const json& object) {
  const json* meta = child(object, "metadata");
  return meta != nullptr ? string_at(*meta, "namespace") : "";
}

std::string uid_of(const json& object) {
  const json* meta = child(object, "metadata");
  return meta != nullptr ? string_at(*meta, "uid") : "";
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

void upsert(json& list, const json& item, const std::function<bool(const json&, const json&)>& same) {
  if (!list.is_array()) list = json::array();
  for (auto& existing : list) {
    if (same(existing, item)) {
      existing = item;
      return;
    }
  }
  list.push_back(item);
}

namespace {
/// Go's ptr.Equal on an optional field: both unset, or both set and equal.
bool same_field(const json& a, const json& b, std::string_view key) {
  const json* x = child(a, key);
  const json* y = child(b, key);
  return (x == nullptr && y == nullptr) || (x != nullptr && y != nullptr && *x == *y);
}
}  // namespace

void upsert_by_name(json& list, const json& item) {
  upsert(list, item, [](const json& a, const json& b) { return same_field(a, b, "name"); });
}

void upsert_port(json& ports, const json& port) {
  upsert(ports, port, [](const json& a, const json& b) {
    const json* a_port = child(a, "containerPort");
    const json* b_port = child(b, "containerPort");
    return (a_port != nullptr && b_port != nullptr && *a_port == *b_port) || same_field(a, b, "name");
  });
}

json apply_env_var(const json& env) {
  json out = {{"name", string_at(env, "name")}};
  if (const json* from = child(env, "valueFrom"); from != nullptr && !from->is_null()) {
    out["valueFrom"] = *from;
  } else {
    out["value"] = string_at(env, "value");
  }
  return out;
}

std::string label_of(const json& object, std::string_view key) {
  const json* labels = at_path(object, "metadata.labels");
  return labels != nullptr ? string_at(*labels, key) : "";
}

}  // namespace kpt::model::trainjob::detail
