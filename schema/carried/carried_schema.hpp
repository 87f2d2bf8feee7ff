#pragma once

#include "schema/structural_schema.hpp"

#include <string_view>

namespace kpt::schema {

/// The schema the binary carries for offline use: PyTorchJob kubeflow.org/v1 with the newest
/// field set (operator v1.9.4, pod template included). Compiled at build time and deserialized
/// once, on first use; safe to call from several threads.
const SchemaSet& carried_schema();

/// The same schema as openAPIV3Schema JSON text (compact, sorted keys), for the embedded API
/// server to serve in its CRD and /openapi/v3.
std::string_view carried_openapi_json();

/// Release whose field set the carried schema has.
inline constexpr std::string_view k_carried_schema_release = "v1.9.4";

}  // namespace kpt::schema
