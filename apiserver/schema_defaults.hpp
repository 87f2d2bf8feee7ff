#pragma once

#include <nlohmann/json_fwd.hpp>

namespace kpt::apiserver {

/// Structural defaulting as the API server does it for custom resources
/// (k8s.io/apiextensions-apiserver pkg/apiserver/schema/defaulting/algorithm.go): every property
/// the schema gives a `default` and the object lacks (or holds null for, unless the property is
/// nullable) gets a copy of it; then the same inside every property, `additionalProperties` value
/// and array item present. The root's `metadata` is left alone, as the server does. Recursion
/// stops at `max_depth` levels, so hostile nesting costs nothing (request bodies are bounded too).
void apply_schema_defaults(nlohmann::json& object, const nlohmann::json& schema, int max_depth = 64);

}  // namespace kpt::apiserver
