#pragma once

// Small accessors over nlohmann::json objects shared by the TrainJob model's files.

#include <nlohmann/json.hpp>

#include <functional>
#include <string>
#include <string_view>

namespace kpt::model::trainjob::detail {

/// object[key] when it is a string, else "".
std::string string_at(const nlohmann::json& object, std::string_view key);

/// object[key] when `object` is an object holding `key`, else nullptr.
const nlohmann::json* child(const nlohmann::json& object, std::string_view key);

/// The object at a dotted path ("spec.template.spec"), or nullptr.
const nlohmann::json* at_path(const nlohmann::json& object, std::string_view dotted_path);

/// The array at a dotted path, or an empty array (also for a value of another type).
const nlohmann::json& array_at(const nlohmann::json& object, std::string_view dotted_path);

/// The object at a dotted path, or an empty object (also for a value of another type).
const nlohmann::json& object_at(const nlohmann::json& object, std::string_view dotted_path);

/// object[key] when it is a boolean, else `fallback`.
bool bool_at(const nlohmann::json& object, std::string_view dotted_path, bool fallback = false);

/// The object at a dotted path, created (as objects) where missing or not an object.
nlohmann::json& ensure_path(nlohmann::json& object, std::string_view dotted_path);

/// metadata.name / metadata.namespace / metadata.uid of an object.
std::string name_of(const nlohmann::json& object);
std::string namespace_of(const nlohmann::json& object);
std::string uid_of(const nlohmann::json& object);

/// The first element of array `list` whose `key` equals `value`, or nullptr.
nlohmann::json* find_by(nlohmann::json& list, std::string_view key, std::string_view value);
const nlohmann::json* find_by(const nlohmann::json& list, std::string_view key, std::string_view value);

/// Trainer's apply.upsert: replaces the first element `same(existing, item)` holds for, else appends.
void upsert(nlohmann::json& list, const nlohmann::json& item,
            const std::function<bool(const nlohmann::json&, const nlohmann::json&)>& same);

/// Upserts by `name` (env vars, volumes).
void upsert_by_name(nlohmann::json& list, const nlohmann::json& item);

/// Upserts a container port: same containerPort, or same name where two missing names are equal
/// (kubeflow/trainer pkg/apply byContainerPortOrName).
void upsert_port(nlohmann::json& ports, const nlohmann::json& port);

/// A TrainJob env var as apply.EnvVar copies it: name, and valueFrom or else value ("" when unset).
nlohmann::json apply_env_var(const nlohmann::json& env);

/// The value of the label `key` under object.metadata.labels, or "".
std::string label_of(const nlohmann::json& object, std::string_view key);

}  // namespace kpt::model::trainjob::detail
