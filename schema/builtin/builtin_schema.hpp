#pragma once

#include "schema/structural_schema.hpp"

#include <string_view>

namespace kpt::schema {

/// The schemas of the built-in kinds the embedded API server serves, one entry per kind at its
/// served group/version ("v1" ConfigMap, "apps/v1" Deployment, ...): generated at build time from
/// Debian's Kubernetes swagger definitions and the overlay of newer fields (schema/builtin/),
/// compiled then, and deserialized once on first use; safe to call from several threads.
const SchemaSet& builtin_schemas();

/// The Go types of those kinds (k8s_go_types.json, written by extract_go_types.py): for each Kubernetes
/// definition its Go struct name and, per JSON field, [Go type as decode errors print it, shape].
std::string_view builtin_go_types_json();

/// The strategic-merge-patch strategies of those kinds' lists, from the swagger's
/// x-kubernetes-patch-* extensions: {"v1/Pod": {"spec.containers": {"key": "name", "strategy":
/// "merge"}, ...}}, a list's items transparent in the path.
std::string_view builtin_patch_keys_json();

}  // namespace kpt::schema
