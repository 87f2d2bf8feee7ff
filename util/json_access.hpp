#pragma once

// Reading JSON the way untrusted documents must be read: nothing here throws, whatever the types
// of the values. nlohmann's own `value("k", "")` and `operator[]` throw on a member of another type
// (or on a value that is not an object), and what a client, a server, an exec plugin or a manifest
// sends may be anything.

#include <nlohmann/json_fwd.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace kpt::util {

/// object[key] when `object` is an object holding `key`, else nullptr.
const nlohmann::json* child(const nlohmann::json& object, std::string_view key);

/// object[key] when `object` is an object holding `key`, else a null value.
const nlohmann::json& member(const nlohmann::json& object, std::string_view key);

/// object[key] when it is a string, else "".
std::string string_at(const nlohmann::json& object, std::string_view key);

/// object[key] when it is a string, else nothing (a missing field and "" differ).
std::optional<std::string> optional_string(const nlohmann::json& object, std::string_view key);

/// object[key] when it is an integer, else nothing.
std::optional<std::int64_t> int_at(const nlohmann::json& object, std::string_view key);

/// The value at a dotted path ("spec.template.spec"), or nullptr.
const nlohmann::json* at_path(const nlohmann::json& object, std::string_view dotted_path);

/// The array at a dotted path, or an empty array (also for a value of another type).
const nlohmann::json& array_at(const nlohmann::json& object, std::string_view dotted_path);

/// The object at a dotted path, or an empty object (also for a value of another type).
const nlohmann::json& object_at(const nlohmann::json& object, std::string_view dotted_path);

/// The boolean at a dotted path, else `fallback`.
bool bool_at(const nlohmann::json& object, std::string_view dotted_path, bool fallback = false);

/// The object at a dotted path, created (as objects) where missing or not an object.
nlohmann::json& ensure_path(nlohmann::json& object, std::string_view dotted_path);

/// The first element of array `list` whose string_at(`key`) is `value`, or nullptr.
nlohmann::json* find_by(nlohmann::json& list, std::string_view key, std::string_view value);
const nlohmann::json* find_by(const nlohmann::json& list, std::string_view key, std::string_view value);

}  // namespace kpt::util
