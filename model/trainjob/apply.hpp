#pragma once

// Trainer's pkg/apply: how it merges list items into a pod spec it builds.

#include <nlohmann/json_fwd.hpp>

#include <functional>

namespace kpt::model::trainjob::detail {

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

}  // namespace kpt::model::trainjob::detail
